package bulksms_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/thumela/thumela/services/notifications/internal/adapters/bulksms"
	"github.com/thumela/thumela/services/notifications/internal/domain"
)

// FuzzDecodeReports: the delivery-report webhook's body comes from the internet (behind a
// secret path, but still). Any body either is refused or decodes to messages whose reports are
// well formed: a known outcome, a failure reason exactly when failed, and the provider's id
// carried through. A decoded body encodes and decodes again to the same reports.
func FuzzDecodeReports(f *testing.F) {
	f.Add([]byte(`[{"id":"1","type":"SENT","to":"27821234567","userSuppliedId":"d-1","status":{"id":"DELIVERED.null","type":"DELIVERED"}}]`))
	f.Add([]byte(`[{"id":"2","status":{"type":"FAILED","subtype":"HANDSET_ERROR"}}]`))
	f.Add([]byte(`[{"id":"3","status":{"id":"FAILED.EXPIRED"}}]`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`[{}] trailing`))
	f.Add([]byte(`{"id":"not an array"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		msgs, err := bulksms.DecodeReports(bytes.NewReader(body))
		if err != nil {
			return
		}
		reports := make([]domain.Report, len(msgs))
		for i, m := range msgs {
			r := m.Report()
			reports[i] = r
			switch r.Outcome {
			case domain.OutcomeUnknown, domain.OutcomeAccepted, domain.OutcomeDelivered:
				if r.FailureReason != "" {
					t.Fatalf("report %+v has a failure reason but did not fail", r)
				}
			case domain.OutcomeFailed:
				if r.FailureReason == "" {
					t.Fatalf("a failed report has no reason: %+v from %s", r, body)
				}
			default:
				t.Fatalf("unknown outcome %v", r.Outcome)
			}
			if r.ProviderMessageID != m.ID {
				t.Fatalf("provider id %q became %q", m.ID, r.ProviderMessageID)
			}
		}
		again, err := json.Marshal(msgs)
		if err != nil {
			t.Fatalf("decoded reports do not encode: %v", err)
		}
		msgs2, err := bulksms.DecodeReports(bytes.NewReader(again))
		if err != nil || len(msgs2) != len(msgs) {
			t.Fatalf("re-encoded reports do not decode: %v", err)
		}
		for i := range msgs2 {
			if msgs2[i].Report() != reports[i] {
				t.Fatalf("report %d changed through a round trip: %+v -> %+v", i, reports[i], msgs2[i].Report())
			}
		}
	})
}
