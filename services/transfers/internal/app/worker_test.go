package app_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

const wait = 15 * time.Second

func newTransfer(t *testing.T, e *testkit.Env, user, pm, key string, amount int64) *domain.Transfer {
	t.Helper()
	tr, err := e.App.CreateTransfer(e.Ctx(t, user), testkit.Caller(user), testkit.Input(key, pm, amount))
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	return tr
}

func statuses(evs []*transfersv1.TransferStatusChanged) string {
	var s []string
	for _, ev := range evs {
		s = append(s, ev.GetPreviousStatus().String()+"→"+ev.GetTransfer().GetStatus().String())
	}
	return strings.Join(s, ", ")
}

const (
	wantCompleted = "TRANSFER_STATUS_UNSPECIFIED→TRANSFER_STATUS_PENDING, TRANSFER_STATUS_PENDING→TRANSFER_STATUS_PROCESSING, TRANSFER_STATUS_PROCESSING→TRANSFER_STATUS_COMPLETED"
	wantFailed    = "TRANSFER_STATUS_UNSPECIFIED→TRANSFER_STATUS_PENDING, TRANSFER_STATUS_PENDING→TRANSFER_STATUS_PROCESSING, TRANSFER_STATUS_PROCESSING→TRANSFER_STATUS_FAILED"
)

// An approved charge completes the transfer with a voucher and the recipient's SMS. The sweep
// is an hour: only the commit's in-process wake-up can have woken the worker.
func TestWorkerCompletesAnApprovedTransfer(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	cfg := e.WorkerConfig()
	cfg.Sweep = time.Hour
	e.StartWorker(t, nil, cfg)
	user, pm := e.NewUser()
	newTransfer(t, e, user, pm, "first", 10000) // the free one
	began := time.Now()
	tr := newTransfer(t, e, user, pm, "k", 50000)
	done := e.WaitStatus(t, tr.ID().String(), domain.StatusCompleted, wait)
	// With an hour between sweeps, completing at all proves the commit woke the worker.
	t.Logf("created → completed in %s", time.Since(began).Round(time.Millisecond))

	if amount, ok := e.Payments.Charged(tr.ChargeKey()); !ok || amount.Cents() != 51150 {
		t.Fatalf("charged %v (%v), want the total R511.50", amount, ok)
	}
	s := done.State()
	if s.ChargeID == "" || s.Voucher.Status != domain.CollectionAwaiting || !regexp.MustCompile(`^[0-9]{10}$`).MatchString(s.Voucher.Number) {
		t.Fatalf("completed transfer = %+v", s)
	}
	if !s.Voucher.ExpiresAt.Equal(testkit.DefaultStart.Add(7 * 24 * time.Hour)) {
		t.Fatalf("voucher expires %v", s.Voucher.ExpiresAt)
	}

	if got := statuses(e.StatusEvents(t, tr.ID().String())); got != wantCompleted {
		t.Fatalf("status events: %s", got)
	}
	if vs := e.VoucherEvents(t, tr.ID().String()); len(vs) != 1 || vs[0].GetVoucher().GetCollectionStatus() != transfersv1.CollectionStatus_COLLECTION_STATUS_AWAITING_COLLECTION {
		t.Fatalf("voucher events: %v", vs)
	}

	// Two SMS requests and two receipts: one each per completed transfer; decode this
	// transfer's.
	e.WaitStatus(t, newTransferID(t, e, user, "first"), domain.StatusCompleted, wait)
	if n := len(e.Notifications(t)); n != 4 {
		t.Fatalf("%d notification requests, want an SMS and a receipt per transfer", n)
	}
	smss := e.NotificationsOf(t, tr.ID().String(), notificationsv1.Template_TEMPLATE_VOUCHER_ISSUED)
	if len(smss) != 1 {
		t.Fatalf("%d SMS requests for the transfer", len(smss))
	}
	sms := smss[0].Request
	if smss[0].Subject != "thumela.notifications.transfers."+user+".sms" || !smss[0].Ephemeral {
		t.Fatalf("SMS subject %s, ephemeral %v", smss[0].Subject, smss[0].Ephemeral)
	}
	if sms.GetChannel() != notificationsv1.Channel_CHANNEL_SMS || sms.GetRecipient() != "+27821234567" ||
		sms.GetUserId() != user || sms.GetSourceService() != "transfers" || sms.GetReference() != tr.ID().String() {
		t.Fatalf("SMS = %v", sms)
	}
	// What the SMS said is now the notifications service's to word: here, its params.
	if p := sms.GetParams(); p["sender_name"] != "Thandi N." || p["amount_cents"] != "50000" || p["bank"] != "Capitec" ||
		p["expires_at"] != "2026-03-25T10:00:00Z" || p["reference"] != tr.Reference() {
		t.Errorf("SMS params %v", p)
	}
	secrets := e.Secrets(t, sms)
	if secrets["voucher_number"] != s.Voucher.Number || !e.PINs.Verify(s.Voucher.PINHash, tr.ID(), secrets["pin"]) {
		t.Fatal("the sealed secrets are not the voucher's number and PIN")
	}
	if bytes.Contains(smss[0].Payload, []byte(s.Voucher.Number)) {
		t.Fatal("the SMS request holds the voucher number in clear")
	}
	receipts := e.NotificationsOf(t, tr.ID().String(), notificationsv1.Template_TEMPLATE_TRANSFER_RECEIPT)
	if len(receipts) != 1 || receipts[0].Subject != "thumela.notifications.transfers."+user+".email" || !receipts[0].Ephemeral ||
		receipts[0].Request.GetRecipient() != testkit.SenderEmail || receipts[0].Request.GetParams()["total_cents"] != "51150" ||
		receipts[0].Request.GetParams()["first_name"] != "Thandi" {
		t.Fatalf("receipts %v", receipts)
	}
	// The completed event carries the voucher for the sender (never its PIN: the contract has no
	// field for it).
	evs := e.StatusEvents(t, tr.ID().String())
	if v := evs[2].GetTransfer().GetVoucher(); v.GetNumber() != s.Voucher.Number ||
		v.GetCollectionStatus() != transfersv1.CollectionStatus_COLLECTION_STATUS_AWAITING_COLLECTION {
		t.Fatalf("completed event voucher = %v", v)
	}
}

func newTransferID(t *testing.T, e *testkit.Env, user, key string) string {
	t.Helper()
	tr, err := e.Repo.FindByKey(context.Background(), uuid.MustParse(user), key)
	if err != nil {
		t.Fatal(err)
	}
	return tr.ID().String()
}

func TestWorkerFailsADeclinedTransfer(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	e.StartWorker(t, nil, e.WorkerConfig())
	tests := []struct {
		token, reason string
	}{
		{testkit.TokenDecline, "Your card was declined."},
		{testkit.TokenInsufficient, "Your card has insufficient funds."},
		{testkit.TokenRejected, "The payment method could not be charged. Nothing was taken."},
	}
	for _, tt := range tests {
		user, pm := e.NewUser(tt.token)
		tr := newTransfer(t, e, user, pm, "k", 50000)
		failed := e.WaitStatus(t, tr.ID().String(), domain.StatusFailed, wait)
		if s := failed.State(); s.FailureReason != tt.reason || s.Voucher.Status != "" || s.ChargeID != "" {
			t.Fatalf("%s: failed transfer = %+v", tt.token, s)
		}
		if got := statuses(e.StatusEvents(t, tr.ID().String())); got != wantFailed {
			t.Fatalf("%s: status events: %s", tt.token, got)
		}
	}
	if n := e.Payments.ApprovedCharges(); n != 0 {
		t.Fatalf("%d charges approved, want none", n)
	}
	if notes := e.Notifications(t); len(notes) != 0 {
		t.Fatalf("notifications requested for failed transfers: %v", notes)
	}
}

// A worker died after charging the card and before recording it: the transfer is left
// processing. When the lease passes, a new worker charges again with the same key, gets the
// same answer and completes it: one charge, one voucher, one SMS.
func TestWorkerResumesAfterBeingKilled(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	charged := newTransfer(t, e, user, pm, "charged", 50000)
	claimedOnly := newTransfer(t, e, user, pm, "claimed", 20000)
	ctx := context.Background()
	now := e.Clock.Now()
	lease := e.WorkerConfig().Lease

	// The dead worker's progress: both claimed, the first one charged.
	for range 2 {
		if tr, err := e.Repo.ClaimCharge(ctx, now, now.Add(lease), nil); err != nil || tr == nil {
			t.Fatalf("claim: %v, %v", tr, err)
		}
	}
	if res, err := e.Payments.Charge(ctx, app.ChargeRequest{UserID: user, Token: testkit.TokenApprove, Amount: charged.Total(), IdempotencyKey: charged.ChargeKey()}); err != nil || !res.Approved {
		t.Fatalf("charge: %v %v", res, err)
	}

	// A new worker does not touch them while the lease holds.
	w, _ := e.StartWorker(t, nil, e.WorkerConfig())
	time.Sleep(300 * time.Millisecond)
	for _, tr := range []*domain.Transfer{charged, claimedOnly} {
		got, err := e.Repo.Get(ctx, uuid.MustParse(user), tr.ID())
		if err != nil || got.Status() != domain.StatusProcessing {
			t.Fatalf("under a live lease: %v %v", got.Status(), err)
		}
	}
	// Once it passes, both complete.
	e.Clock.Advance(lease)
	w.Notify()
	for _, tr := range []*domain.Transfer{charged, claimedOnly} {
		e.WaitStatus(t, tr.ID().String(), domain.StatusCompleted, wait)
		if got := statuses(e.StatusEvents(t, tr.ID().String())); got != wantCompleted {
			t.Fatalf("status events: %s", got)
		}
	}
	if calls := e.Payments.ChargeCalls(charged.ChargeKey()); calls != 2 {
		t.Fatalf("charged transfer: %d charge calls, want 2 (the dead worker's and the replay)", calls)
	}
	if calls := e.Payments.ChargeCalls(claimedOnly.ChargeKey()); calls != 1 {
		t.Fatalf("claimed transfer: %d charge calls, want 1", calls)
	}
	if n := e.Payments.ApprovedCharges(); n != 2 {
		t.Fatalf("%d charges made, want 2 (one per transfer)", n)
	}
	// One SMS and one receipt per transfer, although the charge step ran twice for one.
	for _, tr := range []*domain.Transfer{charged, claimedOnly} {
		for _, tmpl := range []notificationsv1.Template{notificationsv1.Template_TEMPLATE_VOUCHER_ISSUED, notificationsv1.Template_TEMPLATE_TRANSFER_RECEIPT} {
			if n := len(e.NotificationsOf(t, tr.ID().String(), tmpl)); n != 1 {
				t.Fatalf("%d %s requests, want 1", n, tmpl)
			}
		}
	}
	if notes := e.Notifications(t); len(notes) != 4 {
		t.Fatalf("%d notification requests, want 4", len(notes))
	}
}

// paymentmethods being down postpones the charge; it is retried with the same key.
func TestWorkerRetriesATransientFailure(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	e.Payments.FailNextCharges(2)
	cfg := e.WorkerConfig()
	e.StartWorker(t, nil, cfg)
	user, pm := e.NewUser()
	tr := newTransfer(t, e, user, pm, "k", 50000)
	// The retries wait on the lease; the test's clock stands still, so move it.
	go func() {
		for range 40 {
			time.Sleep(50 * time.Millisecond)
			e.Clock.Advance(cfg.RetryMax)
		}
	}()
	e.WaitStatus(t, tr.ID().String(), domain.StatusCompleted, wait)
	if calls := e.Payments.ChargeCalls(tr.ChargeKey()); calls != 3 || e.Payments.ApprovedCharges() != 1 {
		t.Fatalf("%d calls, %d charges; want 3 calls and one charge", calls, e.Payments.ApprovedCharges())
	}
	if got := statuses(e.StatusEvents(t, tr.ID().String())); got != wantCompleted {
		t.Fatalf("status events: %s", got)
	}
}

// Two workers, each with its own pool as two replicas would have, share 100 transfers: each
// is charged once and completed once.
func TestTwoWorkersProcessEachTransferOnce(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{MaxConns: 4})
	const users, perUser = 10, 10
	var all []*domain.Transfer
	var mu sync.Mutex
	var wg sync.WaitGroup
	for u := range users {
		wg.Go(func() {
			user, pm := e.NewUser()
			for i := range perUser {
				tr := newTransfer(t, e, user, pm, fmt.Sprintf("k%d-%d", u, i), 10000)
				mu.Lock()
				all = append(all, tr)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	e.StartWorker(t, testkit.OpenPool(t, e.DBURL, 4), e.WorkerConfig())
	e.StartWorker(t, testkit.OpenPool(t, e.DBURL, 4), e.WorkerConfig())
	testkit.Eventually(t, 60*time.Second, "100 completed transfers", func() bool {
		var n int
		_ = e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM transfers WHERE status = 'completed'`).Scan(&n)
		return n == users*perUser
	})
	for _, tr := range all {
		if calls := e.Payments.ChargeCalls(tr.ChargeKey()); calls != 1 {
			t.Fatalf("transfer %s charged %d times", tr.ID(), calls)
		}
		if got := statuses(e.StatusEvents(t, tr.ID().String())); got != wantCompleted {
			t.Fatalf("transfer %s events: %s", tr.ID(), got)
		}
	}
	if n := e.Payments.ApprovedCharges(); n != users*perUser {
		t.Fatalf("%d charges, want %d", n, users*perUser)
	}
	if notes := e.Notifications(t); len(notes) != 2*users*perUser {
		t.Fatalf("%d notification requests, want an SMS and a receipt for each of %d", len(notes), users*perUser)
	}
	var vouchers int
	if err := e.Pool.QueryRow(context.Background(), `SELECT count(DISTINCT voucher_number) FROM transfers`).Scan(&vouchers); err != nil || vouchers != users*perUser {
		t.Fatalf("%d distinct vouchers (%v)", vouchers, err)
	}
}

// An unclaimed voucher expires after 7 days and the whole total is refunded, once.
func TestVoucherExpiryRefundsOnce(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	w, _ := e.StartWorker(t, nil, e.WorkerConfig())
	user, pm := e.NewUser()
	newTransfer(t, e, user, pm, "free", 10000)
	tr := newTransfer(t, e, user, pm, "k", 50000)
	done := e.WaitStatus(t, tr.ID().String(), domain.StatusCompleted, wait)

	e.Clock.Advance(7*24*time.Hour - time.Second)
	w.Notify()
	time.Sleep(300 * time.Millisecond)
	if e.Payments.RefundCalls(tr.RefundKey()) != 0 {
		t.Fatal("refunded before the voucher expired")
	}
	e.Clock.Advance(time.Second)
	w.Notify()
	testkit.Eventually(t, wait, "the refund", func() bool { return e.Payments.RefundCalls(tr.RefundKey()) > 0 })
	testkit.Eventually(t, wait, "the refund recorded", func() bool {
		got, _ := e.Repo.Get(context.Background(), uuid.MustParse(user), tr.ID())
		return got.Refund().Status == domain.RefundRefunded
	})
	// More passes refund nothing more.
	for range 3 {
		w.Notify()
		time.Sleep(100 * time.Millisecond)
	}
	if calls := e.Payments.RefundCalls(tr.RefundKey()); calls != 1 {
		t.Fatalf("%d refund calls, want 1", calls)
	}
	chargeID, amount, _ := e.Payments.Refunded(tr.RefundKey())
	if chargeID != done.State().ChargeID || amount.Cents() != 51150 {
		t.Fatalf("refunded %s of %s, want R511.50 of %s", amount, chargeID, done.State().ChargeID)
	}
	got, _ := e.Repo.Get(context.Background(), uuid.MustParse(user), tr.ID())
	if got.Voucher().Status != domain.CollectionExpired || got.Status() != domain.StatusCompleted {
		t.Fatalf("after expiry: %s / %s", got.Status(), got.Voucher().Status)
	}
	vs := e.VoucherEvents(t, tr.ID().String())
	// Issued, expired (refund pending), and the refund made: the last tells the sender's open pages.
	if len(vs) != 3 || vs[1].GetVoucher().GetCollectionStatus() != transfersv1.CollectionStatus_COLLECTION_STATUS_EXPIRED ||
		vs[1].GetTransfer().GetRefundStatus() != transfersv1.RefundStatus_REFUND_STATUS_PENDING ||
		vs[2].GetVoucher().GetCollectionStatus() != transfersv1.CollectionStatus_COLLECTION_STATUS_EXPIRED ||
		vs[2].GetTransfer().GetRefundStatus() != transfersv1.RefundStatus_REFUND_STATUS_REFUNDED {
		t.Fatalf("voucher events %v", vs)
	}
	wantRefundEmail(t, e, tr, "expired")
}

// wantRefundEmail requires exactly one VOUCHER_REFUNDED request for tr, to the sender, for
// reason.
func wantRefundEmail(t *testing.T, e *testkit.Env, tr *domain.Transfer, reason string) {
	t.Helper()
	refunded := e.NotificationsOf(t, tr.ID().String(), notificationsv1.Template_TEMPLATE_VOUCHER_REFUNDED)
	if len(refunded) != 1 {
		t.Fatalf("%d refund e-mail requests, want 1", len(refunded))
	}
	r := refunded[0]
	if r.Request.GetRecipient() != testkit.SenderEmail || r.Request.GetChannel() != notificationsv1.Channel_CHANNEL_EMAIL ||
		r.Request.GetParams()["reason"] != reason || r.Request.GetParams()["total_cents"] != fmt.Sprint(tr.Total().Cents()) ||
		!r.Ephemeral || r.Request.GetSecrets() != nil {
		t.Fatalf("refund e-mail request %v (ephemeral %v)", r.Request, r.Ephemeral)
	}
}

// The refund's e-mail is asked for once, when the refund is recorded, however often the step
// ran: after transient failures, and after a worker died between the refund and its record.
func TestRefundEmailOnceAcrossRetries(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	cfg := e.WorkerConfig()
	w, stop := e.StartWorker(t, nil, cfg)
	user, pm := e.NewUser()
	failing := newTransfer(t, e, user, pm, "failing", 20000)
	orphaned := newTransfer(t, e, user, pm, "orphaned", 30000)
	for _, tr := range []*domain.Transfer{failing, orphaned} {
		e.WaitStatus(t, tr.ID().String(), domain.StatusCompleted, wait)
	}
	stop()
	ctx := context.Background()

	// orphaned: cancelled, its refund claimed and made by a worker that died before recording it.
	if _, err := e.App.CancelTransfer(e.Ctx(t, user), testkit.Caller(user), orphaned.ID().String()); err != nil {
		t.Fatal(err)
	}
	now := e.Clock.Now()
	claimed, err := e.Repo.ClaimRefund(ctx, now, now.Add(cfg.Lease), nil)
	if err != nil || claimed == nil || claimed.ID() != orphaned.ID() {
		t.Fatalf("claim: %v, %v", claimed, err)
	}
	if _, err := e.Payments.Refund(ctx, app.RefundRequest{ChargeID: claimed.State().ChargeID, Amount: claimed.Total(), IdempotencyKey: claimed.RefundKey()}); err != nil {
		t.Fatal(err)
	}
	// failing: cancelled; paymentmethods fails the next two refund calls.
	e.Payments.FailNextRefunds(2)
	if _, err := e.App.CancelTransfer(e.Ctx(t, user), testkit.Caller(user), failing.ID().String()); err != nil {
		t.Fatal(err)
	}

	e.Clock.Advance(cfg.Lease) // the dead worker's lease passes
	w, _ = e.StartWorker(t, nil, cfg)
	go func() { // the retries wait on the clock, which stands still
		for range 40 {
			time.Sleep(50 * time.Millisecond)
			e.Clock.Advance(cfg.RetryMax)
			w.Notify()
		}
	}()
	for _, tr := range []*domain.Transfer{failing, orphaned} {
		testkit.Eventually(t, wait, "the refund of "+tr.Reference()+" recorded", func() bool {
			got, _ := e.Repo.Get(ctx, uuid.MustParse(user), tr.ID())
			return got.Refund().Status == domain.RefundRefunded
		})
	}
	// The dead worker's call, two that failed (either refund may have drawn them) and one
	// that succeeded per refund.
	failingCalls, orphanedCalls := e.Payments.RefundCalls(failing.RefundKey()), e.Payments.RefundCalls(orphaned.RefundKey())
	if failingCalls+orphanedCalls != 5 || orphanedCalls < 2 {
		t.Fatalf("refund calls: %d for the failing refund, %d for the orphaned one; want 5 in all, 2 or more for the orphaned",
			failingCalls, orphanedCalls)
	}
	// A late duplicate of the record (a worker whose lease passed) is refused and asks for nothing.
	if _, err := e.Repo.Update(ctx, uuid.Nil, failing.ID(), func(t *domain.Transfer) error { return t.Refunded("re_late", e.Clock.Now()) }); !errors.Is(err, domain.ErrInvalidTransition) {
		t.Fatalf("second record of the refund: %v", err)
	}
	wantRefundEmail(t, e, failing, "cancelled")
	wantRefundEmail(t, e, orphaned, "cancelled")
}

// Cancelling refunds the whole total once; a second cancel is refused.
func TestCancelRefundsOnce(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	w, _ := e.StartWorker(t, nil, e.WorkerConfig())
	user, pm := e.NewUser()
	caller := testkit.Caller(user)
	ctx := e.Ctx(t, user)
	tr := newTransfer(t, e, user, pm, "k", 50000)

	// Not yet completed: nothing to cancel. (The worker may already be on it.)
	e.WaitStatus(t, tr.ID().String(), domain.StatusCompleted, wait)
	cancelled, err := e.App.CancelTransfer(ctx, caller, tr.ID().String())
	if err != nil {
		t.Fatal(err)
	}
	if cancelled.Voucher().Status != domain.CollectionCancelled || cancelled.Refund().Status != domain.RefundPending {
		t.Fatalf("cancelled = %+v", cancelled.State())
	}
	testkit.Eventually(t, wait, "the refund recorded", func() bool {
		got, _ := e.Repo.Get(context.Background(), uuid.MustParse(user), tr.ID())
		return got.Refund().Status == domain.RefundRefunded
	})
	if _, err := e.App.CancelTransfer(ctx, caller, tr.ID().String()); err != domain.ErrNotCancellable {
		t.Fatalf("second cancel: %v", err)
	}
	for range 3 {
		w.Notify()
		time.Sleep(100 * time.Millisecond)
	}
	if calls := e.Payments.RefundCalls(tr.RefundKey()); calls != 1 {
		t.Fatalf("%d refund calls, want 1", calls)
	}
	if _, amount, _ := e.Payments.Refunded(tr.RefundKey()); amount.Cents() != 50000 {
		t.Fatalf("refunded %s, want the whole R500.00 (the fee was waived)", amount)
	}
	vs := e.VoucherEvents(t, tr.ID().String())
	// Issued, cancelled (refund pending), and the refund made: the last tells the sender's open pages.
	if len(vs) != 3 || vs[1].GetVoucher().GetCollectionStatus() != transfersv1.CollectionStatus_COLLECTION_STATUS_CANCELLED ||
		vs[1].GetTransfer().GetRefundStatus() != transfersv1.RefundStatus_REFUND_STATUS_PENDING ||
		vs[2].GetVoucher().GetCollectionStatus() != transfersv1.CollectionStatus_COLLECTION_STATUS_CANCELLED ||
		vs[2].GetTransfer().GetRefundStatus() != transfersv1.RefundStatus_REFUND_STATUS_REFUNDED {
		t.Fatalf("voucher events %v", vs)
	}
	wantRefundEmail(t, e, tr, "cancelled")

	// A failed transfer has no voucher to cancel.
	user2, pm2 := e.NewUser(testkit.TokenDecline)
	failed := newTransfer(t, e, user2, pm2, "k", 50000)
	e.WaitStatus(t, failed.ID().String(), domain.StatusFailed, wait)
	if _, err := e.App.CancelTransfer(e.Ctx(t, user2), testkit.Caller(user2), failed.ID().String()); err != domain.ErrNotCancellable {
		t.Fatalf("cancel a failed transfer: %v", err)
	}
}
