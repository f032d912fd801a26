package app_test

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/google/uuid"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

func reminders(t *testing.T, e *testkit.Env, tr *domain.Transfer) []testkit.Notification {
	t.Helper()
	return e.NotificationsOf(t, tr.ID().String(), notificationsv1.Template_TEMPLATE_VOUCHER_REMINDER)
}

// 24 hours before the voucher expires, its recipient is reminded by SMS, once, whichever of two
// workers (two replicas) gets there; a collected or cancelled voucher is not.
func TestReminderOnceBeforeTheExpiry(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{MaxConns: 6})
	w1, _ := e.StartWorker(t, nil, e.WorkerConfig())
	w2, _ := e.StartWorker(t, testkit.OpenPool(t, e.DBURL, 4), e.WorkerConfig())
	user, pm := e.NewUser()
	waiting := newTransfer(t, e, user, pm, "waiting", 10000)
	collected := newTransfer(t, e, user, pm, "collected", 20000)
	cancelled := newTransfer(t, e, user, pm, "cancelled", 30000)
	for _, tr := range []*domain.Transfer{waiting, collected, cancelled} {
		e.WaitStatus(t, tr.ID().String(), domain.StatusCompleted, wait)
	}
	ctx := context.Background()
	got, _ := e.Repo.Get(ctx, uuid.MustParse(user), collected.ID())
	if _, err := e.App.CollectVoucher(ctx, domain.CollectInput{
		VoucherNumber: got.Voucher().Number, PIN: e.VoucherPIN(t, collected.ID().String()), RecipientPhone: "0821234567",
		Bank: domain.Capitec, ATMID: "ATM-1", AmountCents: 20000, STAN: "1", RRN: "R1",
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.App.CancelTransfer(e.Ctx(t, user), testkit.Caller(user), cancelled.ID().String()); err != nil {
		t.Fatal(err)
	}
	pass := func() {
		for range 3 {
			w1.Notify()
			w2.Notify()
			time.Sleep(100 * time.Millisecond)
		}
	}

	expires := testkit.DefaultStart.Add(domain.DefaultVoucherTTL)
	e.Clock.Set(expires.Add(-domain.ReminderBefore - time.Second))
	pass()
	if n := len(reminders(t, e, waiting)); n != 0 {
		t.Fatalf("%d reminders more than 24 hours before the expiry", n)
	}
	e.Clock.Set(expires.Add(-domain.ReminderBefore))
	w1.Notify()
	w2.Notify()
	testkit.Eventually(t, wait, "the reminder", func() bool { return len(reminders(t, e, waiting)) > 0 })
	pass()
	e.Clock.Advance(time.Hour)
	pass()
	rs := reminders(t, e, waiting)
	if len(rs) != 1 {
		t.Fatalf("%d reminders, want 1", len(rs))
	}
	r := rs[0]
	if r.Subject != "thumela.notifications.transfers."+user+".sms" || !r.Ephemeral || r.Request.GetRecipient() != "+27821234567" ||
		r.Request.GetSecrets() != nil || r.Request.GetChannel() != notificationsv1.Channel_CHANNEL_SMS || r.Request.GetUserId() != user {
		t.Fatalf("reminder %v", r.Request)
	}
	if p := r.Request.GetParams(); !maps.Equal(p, map[string]string{
		"sender_name": "Thandi N.", "amount_cents": "10000", "bank": "Capitec",
		"expires_at": expires.UTC().Format(time.RFC3339), "reference": waiting.Reference(),
	}) {
		t.Fatalf("reminder params %v", p)
	}
	for _, tr := range []*domain.Transfer{collected, cancelled} {
		if n := len(reminders(t, e, tr)); n != 0 {
			t.Fatalf("%d reminders of a voucher no longer awaiting collection", n)
		}
	}
	var sent *time.Time
	if err := e.Pool.QueryRow(ctx, `SELECT reminder_sent_at FROM transfers WHERE id = $1`, waiting.ID()).Scan(&sent); err != nil ||
		sent == nil || !sent.Equal(expires.Add(-domain.ReminderBefore)) {
		t.Fatalf("reminder_sent_at %v (%v)", sent, err)
	}
	// A voucher re-issued after its reminder is not reminded again.
	if _, err := e.App.ResendVoucher(e.Ctx(t, user), testkit.Caller(user), waiting.ID().String()); err != nil {
		t.Fatal(err)
	}
	pass()
	if n := len(reminders(t, e, waiting)); n != 1 {
		t.Fatalf("%d reminders after a resend, want 1", n)
	}
}

// Unknown numbers' counts are kept while they can matter and pruned afterwards.
func TestPruneCollectionRecords(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	ctx := context.Background()
	now := e.Clock.Now()
	for i, age := range []time.Duration{time.Hour, 9 * 24 * time.Hour, 10 * 24 * time.Hour} {
		if _, err := e.Pool.Exec(ctx, `INSERT INTO unknown_voucher_numbers (number_digest, failed_attempts, updated_at) VALUES ($1, 1, $2)`,
			[]byte{byte(i)}, now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	for i, age := range []time.Duration{time.Hour, 9 * 24 * time.Hour, 10 * 24 * time.Hour} {
		if _, err := e.Pool.Exec(ctx, `INSERT INTO early_reversals (bank, retrieval_reference, stan, received_at)
			VALUES ('fnb', $1, '000001', $2)`, fmt.Sprintf("RRN%d", i), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	e.StartWorker(t, nil, e.WorkerConfig())
	testkit.Eventually(t, wait, "the old counts and early reversals pruned", func() bool {
		var counts, reversals int
		return e.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM unknown_voucher_numbers), (SELECT count(*) FROM early_reversals)`).
			Scan(&counts, &reversals) == nil && counts == 1 && reversals == 1
	})
}
