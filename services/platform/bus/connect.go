package bus

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Reconnect backoff: quick at first so a blip costs little, capped so a long outage costs
// one attempt every few seconds, with jitter so a fleet does not reconnect in lockstep.
const (
	reconnectMin = 100 * time.Millisecond
	reconnectMax = 5 * time.Second
)

// Connect connects to NATS and returns the connection and its JetStream context. NATS being
// down never makes it fail: the client keeps retrying forever in the background with
// backoff, buffering publishes, and the outbox keeps events in PostgreSQL meanwhile. Only a
// malformed URL or a cancelled ctx is an error. Disconnects, reconnects and asynchronous
// errors are logged. Close with nc.Drain() on shutdown.
func Connect(ctx context.Context, url, clientName string, logger *slog.Logger) (*nats.Conn, jetstream.JetStream, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if logger == nil {
		logger = slog.Default()
	}
	logger = logger.With("component", "nats", "client", clientName)

	nc, err := nats.Connect(url,
		nats.Name(clientName),
		nats.RetryOnFailedConnect(true),
		nats.MaxReconnects(-1),
		nats.CustomReconnectDelay(reconnectDelay),
		nats.ConnectHandler(func(c *nats.Conn) {
			logger.Info("nats connected", "server", c.ConnectedUrlRedacted())
		}),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				logger.Warn("nats disconnected, reconnecting", "error", err)
			} else {
				logger.Info("nats disconnected")
			}
		}),
		nats.ReconnectHandler(func(c *nats.Conn) {
			logger.Info("nats reconnected", "server", c.ConnectedUrlRedacted())
		}),
		nats.ClosedHandler(func(*nats.Conn) { logger.Info("nats connection closed") }),
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			if sub != nil {
				logger.Error("nats async error", "subject", sub.Subject, "error", err)
				return
			}
			logger.Error("nats async error", "error", err)
		}),
	)
	if err != nil {
		// With RetryOnFailedConnect an unreachable server is not an error; what gets here is a
		// malformed URL or option, which retrying cannot fix.
		return nil, nil, fmt.Errorf("bus: connect: %w", err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("bus: jetstream: %w", err)
	}
	return nc, js, nil
}

func reconnectDelay(attempts int) time.Duration {
	d := reconnectMax
	if attempts < 10 {
		d = min(reconnectMin<<max(attempts-1, 0), reconnectMax)
	}
	// ±20 % jitter.
	return d - d/5 + rand.N(2*d/5+1)
}
