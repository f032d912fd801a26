package bench

import (
	"context"
	"fmt"
	"time"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
)

// Unfinished counts the users' transfers that are still pending or processing, through the
// BFF's ListTransfers (its total_count).
func Unfinished(ctx context.Context, users []*User) (int, error) {
	total := 0
	for _, u := range users {
		for _, st := range []bffv1.TransferStatus{bffv1.TransferStatus_TRANSFER_STATUS_PENDING, bffv1.TransferStatus_TRANSFER_STATUS_PROCESSING} {
			res, err := u.Transfers.ListTransfers(ctx, &bffv1.ListTransfersRequest{Status: st, Page: 1, PageSize: 1})
			if err != nil {
				return 0, err
			}
			total += int(res.GetTotalCount())
		}
	}
	return total, nil
}

// Drain waits until none of the users' transfers is pending or processing (the transfers
// worker has caught up with a load phase), or the timeout passes. It returns how long it
// waited and how many were still unfinished at the end.
func Drain(ctx context.Context, users []*User, timeout time.Duration) (time.Duration, int, error) {
	began := time.Now()
	for {
		n, err := Unfinished(ctx, users)
		if err != nil {
			return time.Since(began), n, fmt.Errorf("count unfinished transfers: %w", err)
		}
		if n == 0 || time.Since(began) > timeout {
			return time.Since(began), n, nil
		}
		select {
		case <-ctx.Done():
			return time.Since(began), n, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}
