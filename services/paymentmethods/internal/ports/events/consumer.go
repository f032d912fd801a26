// Package events is the payment methods service's incoming port on the event bus: it feeds
// the usage records from the transfers service's events. A transfer's pending
// TransferStatusChanged on thumela.transfers.<user_id>.status names the payment method the
// transfer uses, which from then on cannot be deleted.
package events

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/outbox"
)

// Durable is the consumer's durable name on THUMELA_EVENTS: every replica shares it, so each
// event is handled once per delivery, and it survives restarts.
const Durable = "paymentmethods-transfer-usage"

// FilterSubject is every user's transfer status events.
const FilterSubject = bus.Root + "." + bus.DomainTransfers + ".*.status"

// UsageRecorder records that a transfer uses a payment method; it must be idempotent.
type UsageRecorder interface {
	RecordTransferUsage(ctx context.Context, userID, paymentMethodID, transferID string) error
}

// Consumer runs the durable consumer.
type Consumer struct {
	js       jetstream.JetStream
	recorder UsageRecorder
	logger   *slog.Logger
	replicas int
	retry    time.Duration
}

// New returns the consumer. replicas is the stream replica count, used when the consumer has
// to (re)create the streams because NATS was down at start.
func New(js jetstream.JetStream, recorder UsageRecorder, logger *slog.Logger, replicas int) *Consumer {
	return &Consumer{js: js, recorder: recorder, logger: logger, replicas: replicas, retry: 2 * time.Second}
}

// Handle processes one message: unmarshal, record, ack. A payload that does not unmarshal is
// rejected for good; a database failure is retried by redelivery.
func (c *Consumer) Handle(ctx context.Context, msg jetstream.Msg) error {
	var ev transfersv1.TransferStatusChanged
	if err := proto.Unmarshal(msg.Data(), &ev); err != nil {
		return outbox.Permanent(fmt.Errorf("unmarshal TransferStatusChanged: %w", err))
	}
	t := ev.GetTransfer()
	// The pending event is the one that counts: the later ones (processing, completed, failed)
	// name the same card, and from processing on the charge itself keeps the card (Delete
	// looks for a charge), so they are acknowledged without a statement.
	if t.GetPaymentMethodId() == "" || t.GetStatus() != transfersv1.TransferStatus_TRANSFER_STATUS_PENDING {
		return nil
	}
	return c.recorder.RecordTransferUsage(ctx, t.GetUserId(), t.GetPaymentMethodId(), t.GetId())
}

// Run consumes until ctx ends. NATS being down at start, or the stream missing, only delays
// it: it retries until the consumer exists.
func (c *Consumer) Run(ctx context.Context) error {
	cfg := jetstream.ConsumerConfig{
		Durable:       Durable,
		Description:   "paymentmethods: which payment methods transfers use",
		FilterSubject: FilterSubject,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       30 * time.Second,
		MaxDeliver:    -1,
	}
	warned := false
	for {
		cc, err := outbox.Consume(ctx, c.js, bus.StreamEvents, cfg, c.Handle, outbox.WithConsumeLogger(c.logger))
		if err == nil {
			if warned {
				c.logger.InfoContext(ctx, "transfer usage consumer started")
			}
			<-ctx.Done() // Consume stops the subscription when ctx ends
			select {
			case <-cc.Closed():
			case <-time.After(5 * time.Second):
			}
			return nil
		}
		if ctx.Err() != nil {
			return nil
		}
		if !warned {
			c.logger.WarnContext(ctx, "transfer usage consumer cannot start yet; retrying", "error", err)
			warned = true
		}
		// The streams may not exist when NATS was down while the service started.
		_ = bus.EnsureStreams(ctx, c.js, bus.WithReplicas(c.replicas))
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(c.retry):
		}
	}
}
