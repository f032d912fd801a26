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

// quietCores is how busy the machine may be, averaged over a second, and still count as quiet:
// the idle stack's timers and pollers use a few hundredths of a core.
const quietCores = 0.15

// Settle waits until the machine has been quiet for a second (below quietCores), or the timeout
// passes: the stack has finished the work a phase left behind once the worker caught up, the
// SMS and e-mails of its transfers, their delivery reports and the events' consumers. Without
// it that work lands on the next phase, slowing its load and flattering or darkening its
// pgbench baseline by turns. It returns how long it waited and whether the machine went quiet.
func Settle(ctx context.Context, timeout time.Duration) (time.Duration, bool, error) {
	began := time.Now()
	last, err := machineBusy()
	if err != nil {
		return 0, false, err
	}
	for {
		select {
		case <-ctx.Done():
			return time.Since(began), false, ctx.Err()
		case <-time.After(time.Second):
		}
		busy, err := machineBusy()
		if err != nil {
			return time.Since(began), false, err
		}
		if busy-last < quietCores {
			return time.Since(began), true, nil
		}
		if time.Since(began) > timeout {
			return time.Since(began), false, nil
		}
		last = busy
	}
}

// settle is Settle between two phases, logged under what.
func (r *runner) settle(ctx context.Context, what string) time.Duration {
	waited, quiet, err := Settle(ctx, r.cfg.DrainTimeout)
	switch {
	case err != nil:
		r.step("  could not wait for the machine to go quiet after %s: %v", what, err)
	case !quiet:
		r.step("  the machine was still busy %.0f s after %s; going on", waited.Seconds(), what)
	default:
		r.step("  machine quiet %.1f s after %s", waited.Seconds(), what)
	}
	return waited
}
