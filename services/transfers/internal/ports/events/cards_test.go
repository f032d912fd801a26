package events_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/natstest"
	"github.com/thumela/thumela/services/transfers/internal/adapters/cardcache"
	"github.com/thumela/thumela/services/transfers/internal/ports/events"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

const (
	alice      = "0190f6a4-3c2e-7d41-9b7e-2f4f1f6c8a01"
	aliceCard  = "0190f6a4-3c2e-7d41-9b7e-2f4f1f6c8b01"
	aliceCard2 = "0190f6a4-3c2e-7d41-9b7e-2f4f1f6c8b02"
)

// get reads user's card id through c, failing the test on an error.
func get(t *testing.T, c *cardcache.Cache, user, id string) {
	t.Helper()
	if _, err := c.GetPaymentMethod(t.Context(), user, id); err != nil {
		t.Fatalf("GetPaymentMethod(%s, %s): %v", user, id, err)
	}
}

// followChanges runs c's feed as transfers (its own NATS identity, under the production
// permission table) until the test ends, and waits until it is live.
func followChanges(t *testing.T, srv *natstest.Server, c *cardcache.Cache) {
	t.Helper()
	_, js := srv.Connect(t, "transfers")
	if err := bus.EnsureStreams(t.Context(), js); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- events.FollowCardChanges(ctx, js, c, testkit.Discard) }()
	t.Cleanup(func() { cancel(); <-done }) //nolint:errcheck // the follower's error after cancel is the cancellation
	testkit.Eventually(t, 10*time.Second, "the card cache's feed is live", c.Live)
}

// publishChange publishes a PaymentMethodChanged as paymentmethods' outbox relay would.
func publishChange(t *testing.T, srv *natstest.Server, user, id string, change paymentmethodsv1.PaymentMethodChange) {
	t.Helper()
	_, js := srv.Connect(t, "paymentmethods")
	data, err := proto.Marshal(&paymentmethodsv1.PaymentMethodChanged{UserId: user, PaymentMethodId: id, Change: change})
	if err != nil {
		t.Fatal(err)
	}
	subject, err := bus.Subject(bus.DomainPaymentMethods, user, "changed")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(t.Context(), subject, data); err != nil {
		t.Fatal(err)
	}
}

// Each replica's cache drops a card when paymentmethods announces a change of it: every
// replica reads every event (two caches on one stream both drop it).
func TestChangeEventInvalidatesEveryReplica(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	pm := testkit.NewFakePayments()
	pm.AddCard(alice, aliceCard, "Everyday Visa", "4242", testkit.TokenApprove)
	pm.AddCard(alice, aliceCard2, "Other Visa", "1111", testkit.TokenApprove)
	replicas := []*cardcache.Cache{cardcache.New(pm), cardcache.New(pm)}
	for _, c := range replicas {
		followChanges(t, srv, c)
		get(t, c, alice, aliceCard)
		get(t, c, alice, aliceCard2)
	}
	for _, change := range []paymentmethodsv1.PaymentMethodChange{
		paymentmethodsv1.PaymentMethodChange_PAYMENT_METHOD_CHANGE_UPDATED,
		paymentmethodsv1.PaymentMethodChange_PAYMENT_METHOD_CHANGE_DEFAULT_CHANGED,
		paymentmethodsv1.PaymentMethodChange_PAYMENT_METHOD_CHANGE_DELETED,
	} {
		for _, c := range replicas {
			get(t, c, alice, aliceCard) // (re)filled
		}
		publishChange(t, srv, alice, aliceCard, change)
		for i, c := range replicas {
			testkit.Eventually(t, 10*time.Second, "replica drops the changed card", func() bool { return c.Len() == 1 })
			calls := pm.GetCalls()
			get(t, c, alice, aliceCard2) // the other card is still held
			if pm.GetCalls() != calls {
				t.Fatalf("%s: replica %d dropped an unchanged card", change, i)
			}
		}
	}
}
