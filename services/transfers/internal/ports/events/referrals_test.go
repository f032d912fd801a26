package events_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/natstest"
	"github.com/thumela/thumela/services/transfers/internal/ports/events"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

const waitFor = 15 * time.Second

// credit returns user's GetCredit answer.
func credit(t *testing.T, e *testkit.Env, user string) *transfersv1.GetCreditResponse {
	t.Helper()
	res, err := e.Client.GetCredit(e.Ctx(t, user), &transfersv1.GetCreditRequest{})
	if err != nil {
		t.Fatalf("GetCredit: %v", err)
	}
	return res
}

// TestUserVerifiedConsumer: identity's UserVerified, read through the durable consumer with
// transfers' NATS credentials, pays the welcome once however often it is delivered.
func TestUserVerifiedConsumer(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	referrer, _ := e.NewUser()
	friend, _ := e.NewUser()
	code := credit(t, e, referrer).GetReferralCode()

	srv := natstest.StartWithStreams(t)
	_, identity := srv.Connect(t, "identity")
	_, transfers := srv.Connect(t, "transfers")
	publish := func(user, code string) {
		t.Helper()
		subject, err := bus.Subject(bus.DomainIdentity, user, "verified")
		if err != nil {
			t.Fatal(err)
		}
		natstest.Publish(t, identity, subject, &identityv1.UserVerified{UserId: user, ReferralCode: code, OccurredAt: timestamppb.Now()})
	}
	// The same verification twice (a relay that republished it), the referrer's own code, and
	// a message that cannot be read: only the first pays.
	publish(friend, code)
	publish(friend, code)
	publish(referrer, code)
	subject, _ := bus.Subject(bus.DomainIdentity, friend, "verified")
	natstest.PublishData(t, identity, subject, "", []byte("not a proto"))

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- events.ConsumeUserVerified(ctx, transfers, e.App, testkit.Discard) }()
	t.Cleanup(func() { cancel(); <-done }) //nolint:errcheck // the follower's error after cancel is the cancellation

	testkit.Eventually(t, waitFor, "every verification to be handled", func() bool {
		cons, err := transfers.Consumer(t.Context(), bus.StreamEvents, bus.DurableTransfersReferrals)
		if err != nil {
			return false
		}
		info, err := cons.Info(t.Context())
		return err == nil && info.AckFloor.Stream >= 4 && info.NumAckPending == 0
	})
	if c := credit(t, e, friend); c.GetBalanceCents() != 5000 || len(c.GetRecentMovements()) != 1 {
		t.Fatalf("friend's credit = %v", c)
	}
	if c := credit(t, e, referrer); c.GetBalanceCents() != 0 || c.GetFriendsJoined() != 1 {
		t.Fatalf("referrer's credit = %v", c)
	}
	e.CheckLedger(t)
}
