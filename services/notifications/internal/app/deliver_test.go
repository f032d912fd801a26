package app_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	"github.com/thumela/thumela/services/notifications/internal/adapters/bulksms"
	"github.com/thumela/thumela/services/notifications/internal/app"
	"github.com/thumela/thumela/services/notifications/internal/domain"
	"github.com/thumela/thumela/services/notifications/internal/ports/events"
	"github.com/thumela/thumela/services/notifications/internal/testkit"
	"github.com/thumela/thumela/services/platform/seal"
)

// budgetCounter is the store, counting the look-ups of a recipient's SMS budget.
type budgetCounter struct {
	app.Repository
	lookups atomic.Int64
}

func (c *budgetCounter) SMSSentTo(ctx context.Context, recipient, userID string, since time.Time, limit int) (int, error) {
	c.lookups.Add(1)
	return c.Repository.SMSSentTo(ctx, recipient, userID, since, limit)
}

// TestARedeliveryIsJudgedAgainstTheBudgetOnlyWhenNew: a redelivery of a request stored already
// claims it and sends it without looking up the recipient's budget (judged when it was stored);
// a redelivery of one that no earlier delivery stored (it failed or crashed first) is judged as
// a new request is: over the budget, failed without an attempt; within it, sent.
func TestARedeliveryIsJudgedAgainstTheBudgetOnlyWhenNew(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	store := &budgetCounter{Repository: e.Store}
	sms, err := bulksms.New(bulksms.Config{URL: e.SMS.URL, TokenID: e.SMS.TokenID, TokenSecret: e.SMS.TokenSecret, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	keyring, err := seal.NewKeyring(e.Key)
	if err != nil {
		t.Fatal(err)
	}
	// Its own Deliverer, over the counting store; the test hands it the requests itself.
	d, err := app.NewDeliverer(store, nil, sms, keyring, app.DeliverConfig{
		RetryWindow: 24 * time.Hour, SendTimeout: 5 * time.Second, SMSPerRecipientPerDay: 2,
	}, nil, testkit.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	user := uuid.NewString()
	requestOf := func(sender, phone, reference string) app.Request {
		t.Helper()
		b, err := proto.Marshal(testkit.VoucherRequest(t, e.Key.Public(), sender, phone, reference))
		if err != nil {
			t.Fatal(err)
		}
		req, err := events.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		return req
	}
	request := func(phone, reference string) app.Request {
		t.Helper()
		return requestOf(user, phone, reference)
	}
	handle := func(req app.Request, deliveries int, want app.Action) {
		t.Helper()
		if out, err := d.Handle(ctx, req, deliveries); err != nil || out.Action != want {
			t.Fatalf("delivery %d of %s: %+v %v, want action %d", deliveries, req.Reference, out, err, want)
		}
	}
	wantDelivery := func(req app.Request, status domain.Status, attempts int, reason string) {
		t.Helper()
		got, ok := e.Delivery(t, req.ID.String())
		if !ok || got.Status != status || got.Attempts != attempts || got.FailureReason != reason {
			t.Fatalf("%s: %+v, want %s after %d attempts (%q)", req.Reference, got, status, attempts, reason)
		}
	}

	// Stored by its first delivery, which the provider put off: the second sends it.
	const phone = "+27825550021"
	e.SMS.Unavailable(phone, 1)
	stored := request(phone, "TH-STORED")
	handle(stored, 1, app.Retry)
	if n := store.lookups.Load(); n != 1 {
		t.Fatalf("%d budget look-ups for the first delivery, want 1", n)
	}
	handle(stored, 2, app.Ack)
	wantDelivery(stored, domain.StatusSent, 2, "")
	if n := store.lookups.Load(); n != 1 {
		t.Errorf("%d budget look-ups after the redelivery, want still 1", n)
	}
	// Handled already: acknowledged, nothing sent again.
	handle(stored, 3, app.Ack)
	if n := e.SMS.Submissions(phone); n != 1 {
		t.Errorf("the provider took %d SMS for the stored request, want 1", n)
	}

	// A number at its budget, and a request for it that only a redelivery brings: failed.
	const full = "+27825550022"
	handle(request(full, "TH-1"), 1, app.Ack)
	handle(request(full, "TH-2"), 1, app.Ack)
	late := request(full, "TH-LATE")
	handle(late, 3, app.Ack)
	wantDelivery(late, domain.StatusFailed, 0, domain.ReasonRecipientBudget)
	if n := e.SMS.Submissions(full); n != 2 {
		t.Errorf("the provider took %d SMS for the number at its budget, want 2", n)
	}
	// The same for a number within its budget: sent.
	within := request("+27825550023", "TH-WITHIN")
	handle(within, 2, app.Ack)
	wantDelivery(within, domain.StatusSent, 1, "")
}
