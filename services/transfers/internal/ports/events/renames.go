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

// Identity's UserRenamed, through which a scheduled send's occurrences name the sender as their
// profile now does.

// UserRenamedConsumer is the durable JetStream consumer of every user's renames, from the start
// of the stream: a rename published while transfers was down still reaches the schedules.
var UserRenamedConsumer = jetstream.ConsumerConfig{
	Durable:       bus.DurableTransfersRenames,
	Description:   "transfers: users' new names, for their scheduled sends",
	FilterSubject: bus.UserRenamedFilter,
	DeliverPolicy: jetstream.DeliverAllPolicy,
	AckPolicy:     jetstream.AckExplicitPolicy,
	AckWait:       30 * time.Second,
}

// UserRenamedHandler renames the sender of each renamed user's scheduled sends. It is
// idempotent, and keeps the newest change whatever the order of delivery. A message that cannot
// be read or applied is terminated rather than redelivered forever.
func UserRenamedHandler(svc *app.Service) outbox.Handler {
	return func(ctx context.Context, msg jetstream.Msg) error {
		var ev identityv1.UserRenamed
		if ok, err := outbox.Decode(msg, &ev); !ok {
			return err
		}
		var changedAt time.Time
		if ev.GetChangedAt() != nil {
			changedAt = ev.GetChangedAt().AsTime()
		}
		err := svc.RenameSender(ctx, ev.GetUserId(), ev.GetFirstName(), ev.GetLastName(), changedAt)
		if errors.Is(err, app.ErrInvalidEvent) {
			return outbox.Permanent(err)
		}
		return err
	}
}

// ConsumeUserRenamed feeds the renames until ctx ends. While NATS cannot be reached it keeps
// trying to create the consumer; the renames wait in the stream meanwhile.
func ConsumeUserRenamed(ctx context.Context, js jetstream.JetStream, svc *app.Service, logger *slog.Logger) error {
	return outbox.ConsumeUntilDone(ctx, js, bus.StreamEvents, UserRenamedConsumer, UserRenamedHandler(svc),
		logger, "cannot consume identity's renames yet; retrying")
}
