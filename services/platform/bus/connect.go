package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Reconnect backoff: quick at first so a blip costs little, capped so a long outage costs
// one attempt every few seconds, with jitter so a fleet does not reconnect in lockstep.
const (
	reconnectBase = 100 * time.Millisecond
	reconnectMax  = 5 * time.Second
)

// Credentials are how a process proves to NATS who it is (an NKey seed: the server knows
// the public half and that identity's permissions, bus.AuthConf) and checks that it talks to
// the real server (TLS with a private CA). Every process reads the same unprefixed variables;
// each gets its own seed.
type Credentials struct {
	// NKeySeedFile is the file holding the process's NKey seed ("SU…"), a secret; empty
	// connects without credentials, which an authorizing server refuses.
	NKeySeedFile string `env:"NATS_NKEY_SEED_FILE,noprefix"`
	// CAFile, when set, makes the connection TLS and trusts this PEM bundle to sign the
	// server's certificate (production); empty connects in clear (the dev stack's loopback).
	CAFile string `env:"NATS_CA_FILE,noprefix"`
	// Identity is the permission table's name for the process (bus.Services), which fixes its
	// inbox prefix; Connect uses the client name when it is empty. Not configuration: the
	// binary knows what it is.
	Identity string
}

// ConnectOption adds to Connect's defaults.
type ConnectOption func(*connectOptions)

type connectOptions struct {
	creds Credentials
	extra []nats.Option
}

// WithCredentials authenticates the connection (see Credentials).
func WithCredentials(c Credentials) ConnectOption {
	return func(o *connectOptions) { o.creds = c }
}

// WithNATSOptions adds raw client options (tests: a faster reconnect).
func WithNATSOptions(opts ...nats.Option) ConnectOption {
	return func(o *connectOptions) { o.extra = append(o.extra, opts...) }
}

// ErrCredentials is wrapped when the credentials cannot be used (an unreadable seed or CA
// file, an identity that is no subject token): configuration that retrying cannot fix.
var ErrCredentials = errors.New("bus: NATS credentials")

// Options returns the client options that apply c: the NKey, the identity's inbox prefix,
// TLS. A tool that connects with nats.Connect directly uses them.
func (c Credentials) Options() ([]nats.Option, error) {
	var opts []nats.Option
	if c.NKeySeedFile != "" {
		nk, err := nats.NkeyOptionFromSeed(c.NKeySeedFile)
		if err != nil {
			return nil, fmt.Errorf("%w: NATS_NKEY_SEED_FILE: %w", ErrCredentials, err)
		}
		opts = append(opts, nk)
		if c.Identity != "" {
			if err := validateToken(c.Identity); err != nil {
				return nil, fmt.Errorf("%w: identity %q: %s", ErrCredentials, c.Identity, err)
			}
			// The server lets the identity subscribe only below its own inbox prefix.
			opts = append(opts, nats.CustomInboxPrefix(InboxPrefix(c.Identity)))
		}
	}
	if c.CAFile != "" {
		if _, err := os.Stat(c.CAFile); err != nil {
			return nil, fmt.Errorf("%w: NATS_CA_FILE: %w", ErrCredentials, err)
		}
		opts = append(opts, nats.RootCAs(c.CAFile))
	}
	return opts, nil
}

// Connect connects to NATS and returns the connection and its JetStream context. NATS being
// down never makes it fail: the client keeps retrying forever in the background with
// backoff, buffering publishes, and the outbox keeps events in PostgreSQL meanwhile. Only a
// malformed URL, unusable credentials or a cancelled ctx is an error. Disconnects, reconnects
// and asynchronous errors are logged; a permission violation (a subject the permission table
// does not grant this identity) is logged at error level with the subject, since it means the
// table and the code disagree. Close with nc.Drain() on shutdown.
func Connect(ctx context.Context, url, clientName string, logger *slog.Logger, options ...ConnectOption) (*nats.Conn, jetstream.JetStream, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if logger == nil {
		logger = slog.Default()
	}
	var o connectOptions
	for _, opt := range options {
		opt(&o)
	}
	if o.creds.Identity == "" && o.creds.NKeySeedFile != "" {
		o.creds.Identity = clientName
	}
	logger = logger.With("component", "nats", "client", clientName)
	credOpts, err := o.creds.Options()
	if err != nil {
		return nil, nil, err
	}

	opts := append([]nats.Option{
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
			if errors.Is(err, nats.ErrPermissionViolation) || errors.Is(err, nats.ErrAuthorization) {
				logger.Error("NATS REFUSED: permission violation; the permission table (bus/permissions.go) does not grant this",
					"identity", o.creds.Identity, "error", err)
				return
			}
			if sub != nil {
				logger.Error("nats async error", "subject", sub.Subject, "error", err)
				return
			}
			logger.Error("nats async error", "error", err)
		}),
	}, credOpts...)
	nc, err := nats.Connect(url, append(opts, o.extra...)...)
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
		d = min(reconnectBase<<max(attempts-1, 0), reconnectMax)
	}
	// ±20 % jitter.
	return d - d/5 + rand.N(2*d/5+1) //nolint:gosec // G404: jitter spreads reconnects; it guards no secret
}
