// Package revocation makes a session revoked anywhere unusable on this BFF replica at once.
//
// Identity publishes SessionsRevoked (thumela.identity.<user_id>.sessions_revoked on
// THUMELA_EVENTS) in the transaction that revokes: a sign-out, "sign out" / "sign out all other
// sessions", a password change or reset. A Listener reads those events through a JetStream
// ordered consumer that starts at the stream's end (only what happens from now on matters: a
// replica that starts has nothing cached) and, for each, drops the sessions' cached grants and
// ends their live streams (session.Tokens.ForgetSessions).
//
// Identity's UserRenamed (thumela.identity.<user_id>.renamed) is read the same way: the user's
// cached grants carry their old names, so they are dropped (session.Tokens.ForgetUser) and the
// next call of each session gets a token with the new ones. The sessions stay live.
//
// A revocation missed while NATS was unreachable must not leave a grant usable: while the
// listener is not reading, the grant cache is off (every call asks identity, which refuses a
// revoked session), and each time the consumer is (re)created every cached grant is dropped.
// A gap in what was heard then costs each session one exchange with identity, never a window.
package revocation

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	"github.com/thumela/thumela/services/platform/bus"

	"github.com/thumela/thumela/bff/internal/session"
)

// Subject is every user's revocations, and RenamedSubject every user's renames: what the
// listener reads.
var (
	Subject        = bus.Root + "." + bus.DomainIdentity + ".*.sessions_revoked"
	RenamedSubject = bus.UserRenamedFilter
)

// Forgetter is what the listener tells (session.Tokens).
type Forgetter interface {
	ForgetSessions(ids ...string)
	ForgetUser(userID string)
	SetCaching(on bool)
}

var _ Forgetter = (*session.Tokens)(nil)

// Listener applies identity's revocations to this replica's grants and streams.
type Listener struct {
	js     jetstream.JetStream
	tokens Forgetter
	logger *slog.Logger
	// heartbeat is how often the server must show the pull is alive; a missed one (a network
	// split the client has not noticed) is an error, and the consumer is made again.
	heartbeat time.Duration
	ready     chan struct{}
}

// New returns a listener; Run it for the life of the process.
func New(js jetstream.JetStream, tokens Forgetter, logger *slog.Logger) *Listener {
	if logger == nil {
		logger = slog.Default()
	}
	return &Listener{js: js, tokens: tokens, logger: logger.With("component", "revocation"),
		heartbeat: 2 * time.Second, ready: make(chan struct{})}
}

// Ready is closed once the listener first reads the stream.
func (l *Listener) Ready() <-chan struct{} { return l.ready }

// Run reads revocations until ctx ends. The grant cache stays off until the consumer reads the
// stream, and goes off again whenever it stops (an error, NATS disconnected).
func (l *Listener) Run(ctx context.Context) error {
	l.tokens.SetCaching(false)
	status := l.js.Conn().StatusChanged(nats.DISCONNECTED, nats.RECONNECTING, nats.CLOSED, nats.CONNECTED)
	defer l.js.Conn().RemoveStatusListener(status)
	delay := 100 * time.Millisecond
	first := true
	for {
		interrupted := make(chan error, 1)
		cc, err := l.start(ctx, interrupted)
		if err == nil {
			// Whatever was cached before this point may have missed a revocation.
			l.tokens.SetCaching(true)
			if first {
				close(l.ready)
				first = false
			}
			delay = 100 * time.Millisecond
			err = l.wait(ctx, status, interrupted)
			l.tokens.SetCaching(false)
			// Not waited for: while NATS is away the ordered consumer's own recovery holds the
			// lock that Stop takes until its next attempt, which then sees it stopped.
			go cc.Stop()
			if ctx.Err() != nil {
				return nil
			}
			l.logger.WarnContext(ctx, "revocations: stopped hearing them; every call asks identity until they are heard again", "err", err)
		} else {
			l.logger.WarnContext(ctx, "revocations: cannot read the events stream yet, retrying", "err", err, "retry_in", delay)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(delay):
		}
		delay = min(2*delay, 5*time.Second)
	}
}

// start makes the consumer at the stream's end and starts reading.
func (l *Listener) start(ctx context.Context, interrupted chan<- error) (jetstream.ConsumeContext, error) {
	if l.js.Conn().Status() != nats.CONNECTED {
		return nil, fmt.Errorf("NATS is %s", l.js.Conn().Status())
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cons, err := l.js.OrderedConsumer(cctx, bus.StreamEvents, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{Subject, RenamedSubject},
		DeliverPolicy:  jetstream.DeliverNewPolicy,
	})
	if err != nil {
		return nil, fmt.Errorf("ordered consumer: %w", err)
	}
	cc, err := cons.Consume(l.handle,
		jetstream.PullHeartbeat(l.heartbeat), jetstream.PullExpiry(5*l.heartbeat),
		jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
			select {
			case interrupted <- err:
			default:
			}
		}))
	if err != nil {
		return nil, fmt.Errorf("consume: %w", err)
	}
	return cc, nil
}

// wait returns when reading stops: an error from the consumer, or the connection lost.
func (l *Listener) wait(ctx context.Context, status <-chan nats.Status, interrupted <-chan error) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-interrupted:
			return err
		case st := <-status:
			if st != nats.CONNECTED {
				return fmt.Errorf("NATS %s", st)
			}
		}
	}
}

// handle applies one revocation or rename.
func (l *Listener) handle(msg jetstream.Msg) {
	if strings.HasSuffix(msg.Subject(), ".renamed") {
		var ev identityv1.UserRenamed
		if err := proto.Unmarshal(msg.Data(), &ev); err != nil {
			l.logger.Warn("revocations: a rename that does not decode", "subject", msg.Subject(), "err", err)
			return
		}
		l.tokens.ForgetUser(ev.GetUserId())
		return
	}
	var ev identityv1.SessionsRevoked
	if err := proto.Unmarshal(msg.Data(), &ev); err != nil {
		l.logger.Warn("revocations: an event that does not decode", "subject", msg.Subject(), "err", err)
		return
	}
	l.tokens.ForgetSessions(ev.GetSessionIds()...)
	l.logger.Debug("revocations: sessions revoked", "sessions", len(ev.GetSessionIds()), "reason", ev.GetReason())
}
