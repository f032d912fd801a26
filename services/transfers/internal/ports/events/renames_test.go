package events_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/natstest"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/ports/events"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// weeklySchedule makes a weekly R500 to Sipho from the env's today for user, paying with pm.
func weeklySchedule(t *testing.T, e *testkit.Env, user, pm string) string {
	t.Helper()
	res, err := e.Client.CreateSchedule(e.Ctx(t, user), &transfersv1.CreateScheduleRequest{
		IdempotencyKey: "s-" + uuid.NewString(), RecipientName: "Sipho Dlamini", RecipientPhone: "082 123 4567",
		Bank: feesv1.Bank_BANK_CAPITEC, AmountCents: 50_000, PaymentMethodId: pm,
		Frequency: transfersv1.ScheduleFrequency_SCHEDULE_FREQUENCY_WEEKLY,
		StartDate: e.Clock.Now().In(johannesburg).Format(time.DateOnly), RecipientKnownConfirmed: true,
	})
	if err != nil {
		t.Fatalf("CreateSchedule: %v", err)
	}
	return res.GetSchedule().GetId()
}

var johannesburg = func() *time.Location {
	loc, err := time.LoadLocation("Africa/Johannesburg")
	if err != nil {
		panic(err)
	}
	return loc
}()

// TestUserRenamedConsumer: identity's UserRenamed, read through the durable consumer with
// transfers' NATS credentials, renames the sender of the user's scheduled sends, and so of the
// transfers they make; a late, older rename undoes nothing, and another user's schedules keep
// their names.
func TestUserRenamedConsumer(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	other, otherPM := e.NewUser()
	renamed := weeklySchedule(t, e, user, pm)
	kept := weeklySchedule(t, e, other, otherPM)

	srv := natstest.StartWithStreams(t)
	_, identity := srv.Connect(t, "identity")
	_, transfers := srv.Connect(t, "transfers")
	subject, err := bus.Subject(bus.DomainIdentity, user, "renamed")
	if err != nil {
		t.Fatal(err)
	}
	rename := func(first, last string, changedAt time.Time) {
		t.Helper()
		natstest.Publish(t, identity, subject, &identityv1.UserRenamed{UserId: user, FirstName: first, LastName: last,
			ChangedAt: timestamppb.New(changedAt), OccurredAt: timestamppb.Now()})
	}
	now := e.Clock.Now()
	natstest.PublishData(t, identity, subject, "thumela.identity.v1.UserRenamed", []byte("not a proto"))
	rename("Lindiwe", "Dube", now.Add(2*time.Minute))
	rename("Older", "Name", now.Add(time.Minute))

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- events.ConsumeUserRenamed(ctx, transfers, e.App, testkit.Discard) }()
	t.Cleanup(func() { cancel(); <-done }) //nolint:errcheck // the consumer's error after cancel is the cancellation

	testkit.Eventually(t, waitFor, "every rename to be handled", func() bool {
		cons, err := transfers.Consumer(t.Context(), bus.StreamEvents, bus.DurableTransfersRenames)
		if err != nil {
			return false
		}
		info, err := cons.Info(t.Context())
		return err == nil && info.AckFloor.Stream >= 3 && info.NumAckPending == 0
	})
	senderOf := func(schedule string) string {
		t.Helper()
		var first, last string
		if err := e.Pool.QueryRow(t.Context(), `SELECT sender_first_name, sender_last_name FROM schedules WHERE id = $1`,
			schedule).Scan(&first, &last); err != nil {
			t.Fatal(err)
		}
		return first + " " + last
	}
	if got := senderOf(renamed); got != "Lindiwe Dube" {
		t.Fatalf("the renamed user's schedule names its sender %q, want Lindiwe Dube", got)
	}
	if got := senderOf(kept); got != "Thandi Nkosi" {
		t.Fatalf("another user's schedule names its sender %q, want Thandi Nkosi", got)
	}

	// The occurrence the scheduler makes now names the sender as the profile does.
	if _, err := app.NewScheduler(e.App, app.SchedulerConfig{}, e.Logger).Tick(t.Context()); err != nil {
		t.Fatal(err)
	}
	var senderName string
	if err := e.Pool.QueryRow(t.Context(), `SELECT sender_name FROM transfers WHERE schedule_id = $1`, renamed).Scan(&senderName); err != nil {
		t.Fatal(err)
	}
	if senderName != "Lindiwe D." {
		t.Fatalf("the scheduled transfer's sender is %q, want Lindiwe D.", senderName)
	}
}
