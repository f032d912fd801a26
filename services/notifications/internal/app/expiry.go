package app

import (
	"context"
	"time"

	"github.com/thumela/thumela/services/notifications/internal/domain"
)

// ExpireStale fails the deliveries still queued ExpireAfter after they were received: their
// request has left the stream, nothing will retry them. It returns how many it failed.
func (d *Deliverer) ExpireStale(ctx context.Context) (int, error) {
	now := d.cfg.Now()
	ids, err := d.repo.QueuedBefore(ctx, now.Add(-d.cfg.ExpireAfter), now, 100)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		expired := false
		del, err := d.repo.Update(ctx, id, func(x *domain.Delivery) error {
			if x.ClaimedUntil.After(now) {
				return nil // an attempt started meanwhile
			}
			expired = x.MarkFailed(domain.ReasonExpired, now)
			return nil
		})
		if err != nil {
			return n, err
		}
		if expired {
			n++
			d.tel.failure(ctx, del.Channel, d.provider(del.Channel), "expired")
		}
	}
	return n, nil
}

// RunExpiry runs ExpireStale every interval until ctx ends.
func (d *Deliverer) RunExpiry(ctx context.Context, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if n, err := d.ExpireStale(ctx); err != nil {
			if ctx.Err() == nil {
				d.logger.WarnContext(ctx, "expiring stale deliveries failed", "error", err)
			}
		} else if n > 0 {
			d.logger.WarnContext(ctx, "stale deliveries failed as expired", "count", n)
		}
	}
}
