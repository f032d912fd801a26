// Package events is the transfers service's incoming edge on the event bus: the consumers of
// other services' events. Identity's UserVerified pays a referred friend's welcome credit
// (referrals.go); paymentmethods' PaymentMethodChanged keeps the card cache current (cards.go);
// notifications' DeliveryChanged tells a sender of a voucher SMS that failed (deliveries.go);
// identity's UserRenamed renames the sender of the user's scheduled sends (renames.go).
package events

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/transfers/internal/app"
)

// Identity's UserVerified, through which a friend who signed up with a referral code gets their
// welcome credit.

// UserVerifiedConsumer is the durable JetStream consumer of every user's verification, from the
// start of the stream (a verification published while transfers was down still pays).
var UserVerifiedConsumer = jetstream.ConsumerConfig{
	Durable:       bus.DurableTransfersReferrals,
	Description:   "transfers: verified users' referral codes, for the welcome credit",
	FilterSubject: bus.UserVerifiedFilter,
	DeliverPolicy: jetstream.DeliverAllPolicy,
	AckPolicy:     jetstream.AckExplicitPolicy,
	AckWait:       30 * time.Second,
}

// UserVerifiedHandler pays the welcome credit of each verified user who signed up with a
// referral code. It is idempotent (JetStream delivers at least once): the referral row and the
// movement's id make a redelivery pay nothing. A message that cannot be read is terminated
// rather than redelivered forever.
func UserVerifiedHandler(svc *app.Service) outbox.Handler {
	return func(ctx context.Context, msg jetstream.Msg) error {
		var ev identityv1.UserVerified
		if ok, err := outbox.Decode(msg, &ev); !ok {
			return err // nil for another event on a verified subject: not ours to read
		}
		var at time.Time
		if ev.GetOccurredAt() != nil {
			at = ev.GetOccurredAt().AsTime()
		}
		err := svc.ReferralWelcome(ctx, ev.GetUserId(), ev.GetReferralCode(), at)
		if errors.Is(err, app.ErrInvalidEvent) {
			return outbox.Permanent(err)
		}
		return err
	}
}

// ConsumeUserVerified feeds the referral welcomes until ctx ends. While NATS cannot be reached
// it keeps trying to create the consumer; the events wait in the stream meanwhile.
func ConsumeUserVerified(ctx context.Context, js jetstream.JetStream, svc *app.Service, logger *slog.Logger) error {
	return outbox.ConsumeUntilDone(ctx, js, bus.StreamEvents, UserVerifiedConsumer, UserVerifiedHandler(svc),
		logger, "cannot consume identity's verifications yet; retrying")
}
