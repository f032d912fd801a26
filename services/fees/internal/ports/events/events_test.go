package events_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/fees/internal/adapters/postgres"
	"github.com/thumela/thumela/services/fees/internal/app"
	"github.com/thumela/thumela/services/fees/internal/ports/events"
	"github.com/thumela/thumela/services/fees/internal/testkit"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/natstest"
	"github.com/thumela/thumela/services/platform/outbox"
)

// publish sends a transfer's status event as the transfers service's outbox relay would.
func publish(t *testing.T, js jetstream.JetStream, transferID, userID string, s transfersv1.TransferStatus) {
	t.Helper()
	payload, err := proto.Marshal(&transfersv1.TransferStatusChanged{Transfer: &transfersv1.Transfer{Id: transferID, UserId: userID, Status: s}})
	if err != nil {
		t.Fatal(err)
	}
	subject, err := bus.Subject(bus.DomainTransfers, userID, "status")
	if err != nil {
		t.Fatal(err)
	}
	msg := nats.NewMsg(subject)
	msg.Data = payload
	msg.Header.Set(outbox.HeaderEventType, "thumela.transfers.v1.TransferStatusChanged")
	if _, err := js.PublishMsg(t.Context(), msg); err != nil {
		t.Fatal(err)
	}
}

func quote(t *testing.T, e testkit.Env) *feesv1.Quote {
	t.Helper()
	res, err := e.Client.Quote(e.Ctx, &feesv1.QuoteRequest{Bank: feesv1.Bank_BANK_ABSA, AmountCents: 10000})
	if err != nil {
		t.Fatal(err)
	}
	return res.GetQuote()
}

// The first transfer is free until fees hears of a transfer that has not failed; it hears
// through a durable consumer of the transfers service's status events.
func TestFirstTransferWaiverFollowsTransferEvents(t *testing.T) {
	t.Parallel()
	e := testkit.Start(t, testkit.WithHistory())
	// The events arrive as the transfers service publishes them; fees reads them with its own
	// NATS credentials, so the permission table is what the consumer runs under.
	srv := natstest.Start(t)
	_, js := srv.Connect(t, "transfers")
	_, feesJS := srv.Connect(t, "fees")
	if err := bus.EnsureStreams(t.Context(), js); err != nil {
		t.Fatal(err)
	}
	svc := app.New(postgres.NewBankFees(e.Pool), postgres.NewTransferHistory(e.Pool), testkit.DiscardLogger)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- events.ConsumeTransferEvents(ctx, feesJS, svc, testkit.DiscardLogger) }()
	t.Cleanup(func() { cancel(); <-done }) //nolint:errcheck // the consumer's error after cancel is the cancellation

	// A new sender's quote is waived: nothing to pay, the fee that would have applied shown.
	if q := quote(t, e); !q.GetWaived() || q.GetTotalFeeCents() != 0 || q.GetWaivedFeeCents() != 880 ||
		q.GetTotalAmountCents() != 10000 || q.GetBankFeeCents() != 850 || q.GetPlatformFeeCents() != 30 {
		t.Fatalf("first quote = %v, want waived 880 c", q)
	}

	// A poison message is dropped and does not stop the consumer.
	subject, _ := bus.Subject(bus.DomainTransfers, e.UserID, "status")
	if _, err := js.Publish(t.Context(), subject, []byte("not a proto")); err != nil {
		t.Fatal(err)
	}
	// The sender's first transfer failed: still free.
	failed := uuid.NewString()
	for _, s := range []transfersv1.TransferStatus{
		transfersv1.TransferStatus_TRANSFER_STATUS_PENDING, transfersv1.TransferStatus_TRANSFER_STATUS_PROCESSING,
		transfersv1.TransferStatus_TRANSFER_STATUS_FAILED,
	} {
		publish(t, js, failed, e.UserID, s)
	}
	waitConsumed(t, feesJS, 4)
	if q := quote(t, e); !q.GetWaived() {
		t.Fatalf("after a failed transfer: %v, want waived", q)
	}
	// Another transfer is pending (delivered twice): the next quote charges the fee.
	pending := uuid.NewString()
	publish(t, js, pending, e.UserID, transfersv1.TransferStatus_TRANSFER_STATUS_PENDING)
	publish(t, js, pending, e.UserID, transfersv1.TransferStatus_TRANSFER_STATUS_PENDING)
	waitConsumed(t, feesJS, 6)
	if q := quote(t, e); q.GetWaived() || q.GetTotalFeeCents() != 880 || q.GetWaivedFeeCents() != 0 {
		t.Fatalf("after a pending transfer: %v, want 880 c charged", q)
	}
	// Another user's transfers are theirs.
	publish(t, js, uuid.NewString(), uuid.NewString(), transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED)
	waitConsumed(t, feesJS, 7)
	var n int
	if err := e.Pool.QueryRow(t.Context(), `SELECT count(*) FROM sender_transfers`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("%d transfers recorded (%v), want 3", n, err)
	}
}

// waitConsumed waits until the durable consumer has acknowledged (or terminated) n messages.
func waitConsumed(t *testing.T, js jetstream.JetStream, n uint64) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		cons, err := js.Consumer(t.Context(), bus.StreamEvents, events.TransferEventsConsumer.Durable)
		if err == nil {
			if info, err := cons.Info(t.Context()); err == nil && info.AckFloor.Stream >= n && info.NumAckPending == 0 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the consumer did not get through %d messages", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
