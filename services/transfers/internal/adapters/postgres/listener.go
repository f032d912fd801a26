package postgres

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Listener keeps a dedicated connection LISTENing on the work channel and calls onNotify for
// every notification, and once after every (re)connect, since commits may have been missed
// meanwhile. The worker's fallback sweep covers the time the connection is down.
type Listener struct {
	pool    *pgxpool.Pool
	channel string
	logger  *slog.Logger
}

// NewListener returns a listener on WorkChannel(schema).
func NewListener(pool *pgxpool.Pool, schema string, logger *slog.Logger) *Listener {
	return &Listener{pool: pool, channel: WorkChannel(schema), logger: logger.With("component", "transfers.listener")}
}

const (
	minListenBackoff = 50 * time.Millisecond
	maxListenBackoff = 5 * time.Second
)

// Run listens until ctx ends, then returns nil.
func (l *Listener) Run(ctx context.Context, onNotify func()) error {
	backoff := minListenBackoff
	down := false
	for ctx.Err() == nil {
		connected, err := l.listenOnce(ctx, onNotify)
		if ctx.Err() != nil {
			return nil
		}
		if connected {
			backoff, down = minListenBackoff, false
		}
		if !down {
			down = true
			l.logger.Warn("work LISTEN connection lost; reconnecting (the sweep covers the gap)", "error", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, maxListenBackoff)
	}
	return nil
}

func (l *Listener) listenOnce(ctx context.Context, onNotify func()) (bool, error) {
	cfg := l.pool.Config().ConnConfig.Copy()
	cfg.Tracer = nil // a span per wait would only be noise
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return false, err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{l.channel}.Sanitize()); err != nil {
		return false, err
	}
	onNotify()
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return true, err
		}
		onNotify()
	}
}
