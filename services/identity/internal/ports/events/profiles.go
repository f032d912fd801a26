// Package events is identity's incoming edge on the event bus: profiles' ProfileUpdated, from
// which a user's names follow their profile.
package events

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/outbox"

	"github.com/thumela/thumela/services/identity/internal/app"
)

// ProfileUpdatedConsumer is the durable JetStream consumer of every user's profile changes,
// from the start of the stream: a change saved while identity was down still applies.
var ProfileUpdatedConsumer = jetstream.ConsumerConfig{
	Durable:       bus.DurableIdentityProfileNames,
	Description:   "identity: the names users save in their profiles, for their access tokens",
	FilterSubject: bus.ProfileUpdatedFilter,
	DeliverPolicy: jetstream.DeliverAllPolicy,
	AckPolicy:     jetstream.AckExplicitPolicy,
	AckWait:       30 * time.Second,
}

// ProfileUpdatedHandler applies each profile's names to its user. JetStream delivers at least
// once and not always in order; TakeProfileNames keeps the newest change. A message that cannot
// be read or applied is terminated rather than redelivered forever.
func ProfileUpdatedHandler(svc *app.Service) outbox.Handler {
	return func(ctx context.Context, msg jetstream.Msg) error {
		var ev profilesv1.ProfileUpdated
		if ok, err := outbox.Decode(msg, &ev); !ok {
			return err
		}
		p := ev.GetProfile()
		var at time.Time
		switch {
		case p.GetUpdatedAt() != nil:
			at = p.GetUpdatedAt().AsTime()
		case ev.GetOccurredAt() != nil:
			at = ev.GetOccurredAt().AsTime()
		}
		err := svc.TakeProfileNames(ctx, p.GetUserId(), p.GetFirstName(), p.GetLastName(), at)
		if errors.Is(err, app.ErrInvalidProfileEvent) {
			return outbox.Permanent(err)
		}
		return err
	}
}

// ConsumeProfileUpdates applies profile changes until ctx ends. While NATS cannot be reached it
// keeps trying to create the consumer; the changes wait in the stream meanwhile.
func ConsumeProfileUpdates(ctx context.Context, js jetstream.JetStream, svc *app.Service, logger *slog.Logger) error {
	return outbox.ConsumeUntilDone(ctx, js, bus.StreamEvents, ProfileUpdatedConsumer, ProfileUpdatedHandler(svc),
		logger, "cannot consume profiles' changes yet; retrying")
}
