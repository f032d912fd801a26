package feesgrpc

import (
	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// banks maps a bank to the fees contract's enum: this client's own mapping to the peer it
// calls, apart from the one transfers' own contract uses (events.Bank), so that a change on
// either side stays on that side.
var banks = map[domain.Bank]feesv1.Bank{
	domain.StandardBank: feesv1.Bank_BANK_STANDARD_BANK,
	domain.ABSA:         feesv1.Bank_BANK_ABSA,
	domain.FNB:          feesv1.Bank_BANK_FNB,
	domain.Nedbank:      feesv1.Bank_BANK_NEDBANK,
	domain.Capitec:      feesv1.Bank_BANK_CAPITEC,
}
