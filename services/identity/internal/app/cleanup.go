package app

import (
	"context"
	"time"
)

// Cleanup deletes throttle records, sessions and codes that no rule reads any more.
func (s *Service) Cleanup(ctx context.Context) (int64, error) {
	now := s.now()
	return s.store.Cleanup(ctx, now.Add(-s.cfg.Throttle.Window), now.Add(-24*time.Hour), now.Add(-24*time.Hour))
}

// CleanupEvery runs Cleanup now and then every interval until ctx ends. A failed round is
// logged and left to the next one.
func (s *Service) CleanupEvery(ctx context.Context, interval time.Duration) error {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		if n, err := s.Cleanup(ctx); err != nil && ctx.Err() == nil {
			s.logger.WarnContext(ctx, "identity clean-up failed", "error", err)
		} else if n > 0 {
			s.logger.InfoContext(ctx, "identity clean-up", "rows", n)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}
