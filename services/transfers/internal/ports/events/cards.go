package events

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/lifecycle"
)

// CardCache is the per-process cache of the senders' cards (adapters/cardcache) that
// paymentmethods' PaymentMethodChanged events keep current.
type CardCache interface {
	// SetLive turns caching on while the events arrive, and off when they stop.
	SetLive(live bool)
	// Invalidate drops userID's card id.
	Invalidate(userID, id string)
	// Reset drops every card.
	Reset()
}

// FollowCardChanges reads paymentmethods' PaymentMethodChanged events until ctx ends and drops
// from c the card each names. It uses an ordered consumer (ephemeral, unacknowledged, from the
// newest event): every replica reads every event, and nothing is kept on the server once it
// stops. The cache is live only while the consumer runs; a consumer that cannot be made is
// retried, the calls going to paymentmethods meanwhile.
func FollowCardChanges(ctx context.Context, js jetstream.JetStream, c CardCache, logger *slog.Logger) error {
	return lifecycle.KeepTrying(ctx, logger, "cannot read payment-method changes; cards are not cached meanwhile", 250*time.Millisecond,
		func(ctx context.Context) error {
			defer c.SetLive(false)
			return followCardChangesOnce(ctx, js, c, logger)
		})
}

var errFeedStopped = errors.New("payment-method changes: the consumer stopped")

func followCardChangesOnce(ctx context.Context, js jetstream.JetStream, c CardCache, logger *slog.Logger) error {
	cons, err := js.OrderedConsumer(ctx, bus.StreamEvents, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{bus.PaymentMethodChangedFilter},
		// Earlier events changed nothing this (empty) cache holds.
		DeliverPolicy: jetstream.DeliverNewPolicy,
	})
	if err != nil {
		return err
	}
	stopped := make(chan error, 1)
	cc, err := cons.Consume(func(msg jetstream.Msg) { handleCardChange(ctx, c, msg, logger) },
		jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
			// The ordered consumer recreates itself after a missed heartbeat or a reconnect and
			// resumes after the last event it delivered, so an error here loses no event.
			logger.DebugContext(ctx, "payment-method changes: consumer error", "error", err)
		}))
	if err != nil {
		return err
	}
	defer cc.Stop()
	go func() {
		<-cc.Closed()
		stopped <- errFeedStopped
	}()
	c.SetLive(true)
	select {
	case <-ctx.Done():
		return nil
	case err := <-stopped:
		return err
	}
}

func handleCardChange(ctx context.Context, c CardCache, msg jetstream.Msg, logger *slog.Logger) {
	var ev paymentmethodsv1.PaymentMethodChanged
	if err := proto.Unmarshal(msg.Data(), &ev); err != nil || ev.GetUserId() == "" || ev.GetPaymentMethodId() == "" {
		// Not knowing which card changed: drop them all rather than keep a stale one.
		logger.WarnContext(ctx, "unreadable payment-method change; dropping every cached card", "subject", msg.Subject(), "error", err)
		c.Reset()
		return
	}
	c.Invalidate(ev.GetUserId(), ev.GetPaymentMethodId())
}
