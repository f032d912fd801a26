package handlers

import (
	"context"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
)

// Credit implements thumela.bff.v1.CreditService: the sender's transfer credit and referral
// figures (/refer-friend). transfers owns the ledger and the referral code; the BFF forwards.
type Credit struct {
	// Unimplemented answers CodeUnimplemented for an RPC not written yet.
	bffv1connect.UnimplementedCreditServiceHandler
	*Deps
}

var _ bffv1connect.CreditServiceHandler = (*Credit)(nil)

func (c *Credit) GetCredit(ctx context.Context, _ *bffv1.GetCreditRequest) (*bffv1.GetCreditResponse, error) {
	res, err := forward(ctx, c.Deps, c.Deps.Transfers.GetCredit, &transfersv1.GetCreditRequest{})
	if err != nil {
		return nil, err
	}
	out := &bffv1.GetCreditResponse{
		BalanceCents:       res.GetBalanceCents(),
		ReferralCode:       res.GetReferralCode(),
		FriendsJoined:      res.GetFriendsJoined(),
		FriendsRewarded:    res.GetFriendsRewarded(),
		RewardsEarnedCents: res.GetRewardsEarnedCents(),
		RecentMovements:    make([]*bffv1.CreditMovement, 0, len(res.GetRecentMovements())),
	}
	for _, m := range res.GetRecentMovements() {
		out.RecentMovements = append(out.RecentMovements, creditMovementToBFF(m))
	}
	return out, nil
}
