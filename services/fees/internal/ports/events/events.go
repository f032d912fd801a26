// Package events is what fees consumes from other services: the transfers service's status
// events, which feed the transfer history behind the first-transfer waiver.
package events

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/fees/internal/app"
	"github.com/thumela/thumela/services/fees/internal/domain"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/outbox"
)

// TransferEventsConsumer is the durable JetStream consumer through which fees learns of
// transfers: every status event of every user, from the start of the stream.
var TransferEventsConsumer = jetstream.ConsumerConfig{
	Durable:       "fees-transfer-history",
	Description:   "fees: transfers per sender, for the first-transfer waiver",
	FilterSubject: bus.Root + "." + bus.DomainTransfers + ".*.status",
	DeliverPolicy: jetstream.DeliverAllPolicy,
	AckPolicy:     jetstream.AckExplicitPolicy,
	AckWait:       30 * time.Second,
}

var transferStatuses = map[transfersv1.TransferStatus]domain.TransferStatus{
	transfersv1.TransferStatus_TRANSFER_STATUS_PENDING:    domain.TransferPending,
	transfersv1.TransferStatus_TRANSFER_STATUS_PROCESSING: domain.TransferProcessing,
	transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED:  domain.TransferCompleted,
	transfersv1.TransferStatus_TRANSFER_STATUS_FAILED:     domain.TransferFailed,
}

// TransferStatusHandler records each TransferStatusChanged. It is idempotent (JetStream
// delivers at least once): the projection keeps the latest status of each transfer. A message
// that cannot be read is terminated rather than redelivered forever.
func TransferStatusHandler(svc *app.Service) outbox.Handler {
	return func(ctx context.Context, msg jetstream.Msg) error {
		var ev transfersv1.TransferStatusChanged
		if ok, err := outbox.Decode(msg, &ev); !ok {
			return err // nil for another event on a status subject: not ours to read
		}
		t := ev.GetTransfer()
		err := svc.RecordTransfer(ctx, t.GetId(), t.GetUserId(), transferStatuses[t.GetStatus()])
		if errors.Is(err, app.ErrInvalidEvent) {
			return outbox.Permanent(err)
		}
		return err
	}
}

// ConsumeTransferEvents feeds the transfer history until ctx ends. While NATS cannot be
// reached it keeps trying to create the consumer; the quote in the meantime may offer a
// waiver that the transfers service then refuses (it decides for certain).
func ConsumeTransferEvents(ctx context.Context, js jetstream.JetStream, svc *app.Service, logger *slog.Logger) error {
	return outbox.ConsumeUntilDone(ctx, js, bus.StreamEvents, TransferEventsConsumer, TransferStatusHandler(svc),
		logger, "cannot consume transfer events yet; retrying")
}
