package grpcport

import (
	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/platform/auth"
)

// Policy: any signed-in user may list the banks and get a quote. Quote prices for the token's
// subject; the transfers service quotes with the user's token it was called with.
var Policy = auth.Policy{
	feesv1.FeesService_ListBanks_FullMethodName: auth.User,
	feesv1.FeesService_Quote_FullMethodName:     auth.User,
}
