package events

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/transfers/internal/app"
)

// Notifications' DeliveryChanged, as announced on thumela.deliveries.<user>.failed when a
// delivery fails, through which a voucher SMS that failed for good is told to its sender by
// e-mail.

// DeliveryChangedConsumer is the durable JetStream consumer of every user's failed deliveries,
// from the moment it is first made (the failures before it concern no one now).
var DeliveryChangedConsumer = jetstream.ConsumerConfig{
	Durable:       bus.DurableTransfersSMSFailures,
	Description:   "transfers: voucher SMS that failed for good, for the sender's e-mail",
	FilterSubject: bus.DeliveryFailedFilter,
	DeliverPolicy: jetstream.DeliverNewPolicy,
	AckPolicy:     jetstream.AckExplicitPolicy,
	AckWait:       30 * time.Second,
}

// DeliveryChangedHandler tells the sender of a voucher SMS that failed for good (the first
// voucher SMS or a re-issue's; not a reminder, whose voucher SMS arrived). It is idempotent: the
// e-mail's request id is derived from the transfer and the failed SMS's, so a redelivery asks
// for the same e-mail, which notifications sends once. The user is the subject's
// (thumela.deliveries.<user>.failed); a message that cannot be read is terminated.
func DeliveryChangedHandler(svc *app.Service) outbox.Handler {
	return func(ctx context.Context, msg jetstream.Msg) error {
		var ev notificationsv1.DeliveryChanged
		if ok, err := outbox.Decode(msg, &ev); !ok {
			return err
		}
		d := ev.GetDelivery()
		if d.GetStatus() != notificationsv1.DeliveryStatus_DELIVERY_STATUS_FAILED ||
			ev.GetPreviousStatus() == notificationsv1.DeliveryStatus_DELIVERY_STATUS_FAILED ||
			d.GetChannel() != notificationsv1.Channel_CHANNEL_SMS ||
			d.GetTemplate() != notificationsv1.Template_TEMPLATE_VOUCHER_ISSUED {
			return nil
		}
		tokens := strings.Split(msg.Subject(), ".")
		if len(tokens) != 4 {
			return outbox.Permanent(app.ErrInvalidEvent)
		}
		err := svc.VoucherSMSFailed(ctx, tokens[2], d.GetReference(), d.GetRecipient(), d.GetRequestId(), d.GetFailureReason())
		if errors.Is(err, app.ErrInvalidEvent) {
			return outbox.Permanent(err)
		}
		return err
	}
}

// ConsumeDeliveryChanged feeds the voucher SMS failures until ctx ends. While NATS cannot be
// reached it keeps trying to create the consumer; the events wait in the stream meanwhile.
func ConsumeDeliveryChanged(ctx context.Context, js jetstream.JetStream, svc *app.Service, logger *slog.Logger) error {
	return outbox.ConsumeUntilDone(ctx, js, bus.StreamEvents, DeliveryChangedConsumer, DeliveryChangedHandler(svc),
		logger, "cannot consume notifications' deliveries yet; retrying")
}
