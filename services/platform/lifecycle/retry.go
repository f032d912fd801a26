package lifecycle

import (
	"context"
	"log/slog"
	"time"
)

// maxRetryPause bounds KeepTrying's pause between attempts.
const maxRetryPause = 30 * time.Second

// KeepTrying runs attempt until ctx ends: a follower of the bus (a consumer, a key watch) whose
// attempt returns when it cannot start or when its subscription breaks. Between attempts it
// pauses, from first doubling up to 30 s, and it logs warning once (with the first error), not
// on every retry: a NATS that is down for an hour is one line, not thousands. It returns nil
// when ctx ends, whatever the last attempt said.
func KeepTrying(ctx context.Context, logger *slog.Logger, warning string, first time.Duration, attempt func(context.Context) error) error {
	pause, warned := first, false
	for {
		err := attempt(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if !warned {
			logger.WarnContext(ctx, warning, "error", err)
			warned = true
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(pause):
		}
		pause = min(pause*2, maxRetryPause)
	}
}
