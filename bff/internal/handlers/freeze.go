package handlers

import (
	"context"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
)

// FreezeVouchers is the dashboard's 'Freeze my vouchers': transfers cancels every one of the
// session user's vouchers awaiting collection, each with a full refund, and answers the
// transfers it cancelled, after pausing the user's active scheduled sends (how many, it says).
// The browser's list and live state follow from the cancellations'
// own events on the live stream; the answer only says how many.
func (t *Transfers) FreezeVouchers(ctx context.Context, _ *bffv1.FreezeVouchersRequest) (*bffv1.FreezeVouchersResponse, error) {
	res, err := forward(ctx, t.Deps, t.Deps.Transfers.FreezeVouchers, &transfersv1.FreezeVouchersRequest{})
	if err != nil {
		return nil, err
	}
	return &bffv1.FreezeVouchersResponse{Cancelled: transfersToBFF(res.GetCancelled()), PausedSchedules: res.GetPausedSchedules()}, nil
}
