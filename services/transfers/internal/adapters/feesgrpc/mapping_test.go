package feesgrpc

import (
	"testing"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/events"
)

// Every bank has its own fees enum value, the same one transfers' contract carries (a
// Transfer's bank is a thumela.fees.v1.Bank too), so a quote is for the bank the transfer shows.
func TestEveryBankMapsToItsFeesBank(t *testing.T) {
	t.Parallel()
	seen := map[feesv1.Bank]domain.Bank{}
	for _, b := range domain.Banks {
		fb := banks[b]
		if fb == feesv1.Bank_BANK_UNSPECIFIED {
			t.Errorf("bank %q has no fees enum value", b)
		}
		if other, ok := seen[fb]; ok {
			t.Errorf("banks %q and %q both map to %v", other, b, fb)
		}
		seen[fb] = b
		if fb != events.Bank(b) {
			t.Errorf("bank %q: fees %v, transfers' contract %v", b, fb, events.Bank(b))
		}
	}
}
