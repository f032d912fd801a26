package grpcport

import (
	"testing"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/events"
)

// A request's enums read back as the values the responses and events write, and UNSPECIFIED
// (or an enum value this build does not know) reads as none.
func TestRequestEnumsInvertTheResponses(t *testing.T) {
	t.Parallel()
	for _, b := range domain.Banks {
		if got := bankFromProto(events.Bank(b)); got != b {
			t.Errorf("bank %q reads back as %q", b, got)
		}
	}
	for _, s := range domain.Statuses {
		if got := statusFromProto(events.Status(s)); got != s {
			t.Errorf("status %q reads back as %q", s, got)
		}
	}
	for _, f := range []domain.Frequency{domain.Weekly, domain.Monthly} {
		if got := frequencyFromProto(frequency(f)); got != f {
			t.Errorf("frequency %q reads back as %q", f, got)
		}
	}
	if b, s, f := bankFromProto(feesv1.Bank_BANK_UNSPECIFIED), statusFromProto(transfersv1.TransferStatus_TRANSFER_STATUS_UNSPECIFIED),
		frequencyFromProto(transfersv1.ScheduleFrequency_SCHEDULE_FREQUENCY_UNSPECIFIED); b != "" || s != "" || f != "" {
		t.Errorf("UNSPECIFIED reads as %q, %q, %q", b, s, f)
	}
	if b := bankFromProto(feesv1.Bank(99)); b != "" {
		t.Errorf("an unknown bank reads as %q", b)
	}
}
