package grpcport

import (
	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/platform/auth"
)

// Policy: any signed-in user may list the banks and get a quote at the list price; the
// transfers service asks with the user's token it was called with, before the published fee
// schedule has reached it.
var Policy = auth.Policy{
	feesv1.FeesService_ListBanks_FullMethodName: auth.User,
	feesv1.FeesService_Quote_FullMethodName:     auth.User,
}
