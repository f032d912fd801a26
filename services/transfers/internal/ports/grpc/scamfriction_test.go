package grpcport_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	grpcport "github.com/thumela/thumela/services/transfers/internal/ports/grpc"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// wantConfirmation fails unless err is the documented refusal: FailedPrecondition with an
// ErrorInfo of reason RECIPIENT_CONFIRMATION_REQUIRED in the transfers domain.
func wantConfirmation(t *testing.T, what string, err error) {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != codes.FailedPrecondition {
		t.Fatalf("%s: %v, want FailedPrecondition RECIPIENT_CONFIRMATION_REQUIRED", what, err)
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetReason() == grpcport.ReasonRecipientConfirmationRequired &&
			info.GetDomain() == "transfers.thumela.co.za" {
			return
		}
	}
	t.Fatalf("%s: %v has no RECIPIENT_CONFIRMATION_REQUIRED ErrorInfo (details %v)", what, err, st.Details())
}

// storedConfirmation is the transfer's recipient_known_confirmed column.
func storedConfirmation(t *testing.T, e *testkit.Env, id string) bool {
	t.Helper()
	var confirmed bool
	if err := e.Pool.QueryRow(context.Background(), `SELECT recipient_known_confirmed FROM transfers WHERE id = $1`, id).
		Scan(&confirmed); err != nil {
		t.Fatal(err)
	}
	return confirmed
}

func TestRecipientConfirmationContract(t *testing.T) {
	t.Parallel()
	if grpcport.ReasonRecipientConfirmationRequired != "RECIPIENT_CONFIRMATION_REQUIRED" {
		t.Fatalf("reason %q", grpcport.ReasonRecipientConfirmationRequired)
	}
}

// A first payment to a phone needs the sender's tick on "Do you know {name} personally?":
// without it nothing is stored, whatever the step-up; the question comes before the step-up;
// with it the transfer is created and carries the answer (API, column, event); a replay needs
// no answer; a phone the sender has paid needs none.
func TestRecipientConfirmation(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	unconfirmed := func(key string) *transfersv1.CreateTransferRequest {
		req := testkit.Request(key, pm)
		req.RecipientPhone = "083 765 4321"
		req.RecipientKnownConfirmed = false
		return req
	}

	// Without the answer: refused with or without a step-up, and before the step-up is asked.
	for _, at := range []time.Time{time.Now(), {}} {
		_, err := e.Client.CreateTransfer(e.CtxSteppedUpAt(t, user, at), unconfirmed("first"))
		wantConfirmation(t, "a new phone without the answer", err)
	}
	if n := rows(t, e, user); n != 0 {
		t.Fatalf("%d transfers stored by refused creates", n)
	}

	// With the answer but no step-up: now the step-up is asked for, and still nothing stored.
	req := unconfirmed("first")
	req.RecipientKnownConfirmed = true
	_, err := e.Client.CreateTransfer(e.CtxSteppedUpAt(t, user, time.Time{}), req)
	wantStepUp(t, "answered, not stepped up", err)
	if n := rows(t, e, user); n != 0 {
		t.Fatalf("%d transfers stored by a refused create", n)
	}

	// Answered and stepped up (the same key: the refusals used nothing up): created, recorded.
	tr := create(t, e.Ctx(t, user), e, req)
	if !tr.GetRecipientKnownConfirmed() || !storedConfirmation(t, e, tr.GetId()) {
		t.Fatalf("the answer was not recorded: API %v, column %v", tr.GetRecipientKnownConfirmed(), storedConfirmation(t, e, tr.GetId()))
	}
	if evs := e.StatusEvents(t, tr.GetId()); len(evs) != 1 || !evs[0].GetTransfer().GetRecipientKnownConfirmed() {
		t.Fatalf("the created event does not carry the answer: %v", evs)
	}

	// A replay, with or without the answer, returns the transfer: the answer is not part of
	// what the transfer is.
	for _, confirmed := range []bool{false, true} {
		again := unconfirmed("first")
		again.RecipientKnownConfirmed = confirmed
		res, err := e.Client.CreateTransfer(e.CtxSteppedUpAt(t, user, time.Time{}), again)
		if err != nil || res.GetTransfer().GetId() != tr.GetId() {
			t.Fatalf("replay (answer %v): %v, %v", confirmed, res.GetTransfer().GetId(), err)
		}
	}
	// A pending transfer does not make the phone known: the next one is asked again.
	_, err = e.Client.CreateTransfer(e.Ctx(t, user), unconfirmed("second"))
	wantConfirmation(t, "a phone whose only transfer is pending", err)
	if n := rows(t, e, user); n != 1 {
		t.Fatalf("%d transfers, want 1", n)
	}

	// A phone the sender has paid (v.user's completed R500 to 082 123 4567) needs no answer, and
	// the transfer records that none was given.
	v := issue(t, e)
	known := testkit.Request("known", v.transfer.GetPaymentMethodId())
	known.RecipientKnownConfirmed = false
	got := create(t, e.Ctx(t, v.user), e, known)
	if got.GetRecipientKnownConfirmed() || storedConfirmation(t, e, got.GetId()) {
		t.Fatalf("a known phone's transfer records an answer that was not given")
	}
	// Another sender's payment to a phone does not make it known to this one.
	_, err = e.Client.CreateTransfer(e.Ctx(t, user), func() *transfersv1.CreateTransferRequest {
		r := testkit.Request("other-senders-phone", pm)
		r.RecipientKnownConfirmed = false
		return r
	}())
	wantConfirmation(t, "a phone only another sender paid", err)
}

// A transfer the limits refuse anyway says so first, rather than asking a question whose
// answer would not help.
func TestLimitsBeforeRecipientConfirmation(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	req := testkit.Request("over", pm)
	req.AmountCents = 310_000 // over the R3,000 per-transfer limit
	req.RecipientKnownConfirmed = false
	_, err := e.Client.CreateTransfer(e.Ctx(t, user), req)
	if le, _ := limitDetail(t, err); le.GetKind() != transfersv1.LimitKind_LIMIT_KIND_PER_TRANSFER {
		t.Fatalf("over the per-transfer limit without the answer: %v, want the limit's refusal", err)
	}
}

// issueTo creates a R500 transfer of user's to 082 123 4567 and completes it with a voucher, as
// issue does, for a sender with several vouchers.
func issueTo(t *testing.T, e *testkit.Env, user, pm string) voucher {
	t.Helper()
	tr := create(t, e.Ctx(t, user), e, testkit.Request("k-"+uuid.NewString(), pm))
	id := uuid.MustParse(tr.GetId())
	now := e.Clock.Now()
	ctx := context.Background()
	if _, err := e.Repo.Update(ctx, uuid.Nil, id, func(x *domain.Transfer) error { return x.ClaimCharge(now, now.Add(time.Minute)) }); err != nil {
		t.Fatal(err)
	}
	v, err := domain.NewVoucher(e.PINs, id, now, domain.DefaultVoucherTTL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Repo.Update(ctx, uuid.Nil, id, func(x *domain.Transfer) error { return x.Complete("ch_"+id.String(), v, now) }); err != nil {
		t.Fatal(err)
	}
	return voucher{transfer: tr, user: user, number: v.Number, pin: v.PIN}
}

func freeze(t *testing.T, e *testkit.Env, user string) []*transfersv1.Transfer {
	t.Helper()
	res, err := e.Client.FreezeVouchers(e.Ctx(t, user), &transfersv1.FreezeVouchersRequest{})
	if err != nil {
		t.Fatalf("FreezeVouchers: %v", err)
	}
	return res.GetCancelled()
}

// 'Freeze my vouchers' cancels every voucher of the sender's awaiting collection, each as a
// cancel does (refund owed, live event, then the full refund and its e-mail), and nothing
// else: not a collected or expired voucher, not a transfer still being charged, not another
// sender's. A second freeze cancels nothing new.
func TestFreezeVouchers(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	awaiting := []voucher{issueTo(t, e, user, pm), issueTo(t, e, user, pm)}
	collected := issueTo(t, e, user, pm)
	if _, err := e.Client.CollectVoucher(atm(t, e), collected.request()); err != nil {
		t.Fatalf("collect: %v", err)
	}
	expired := issueTo(t, e, user, pm)
	later := e.Clock.Now().Add(domain.DefaultVoucherTTL + time.Minute)
	if _, err := e.Repo.Update(context.Background(), uuid.Nil, uuid.MustParse(expired.transfer.GetId()),
		func(x *domain.Transfer) error { return x.Expire(later) }); err != nil {
		t.Fatal(err)
	}
	pending := create(t, e.Ctx(t, user), e, testkit.Request("pending", pm))
	other := issue(t, e) // another sender's voucher

	got := freeze(t, e, user)
	ids := map[string]bool{}
	for _, tr := range got {
		ids[tr.GetId()] = true
	}
	if len(got) != 2 || !ids[awaiting[0].transfer.GetId()] || !ids[awaiting[1].transfer.GetId()] {
		t.Fatalf("cancelled %v, want the two awaiting vouchers", got)
	}
	for _, tr := range got {
		if tr.GetVoucher().GetCollectionStatus() != transfersv1.CollectionStatus_COLLECTION_STATUS_CANCELLED ||
			tr.GetRefundStatus() != transfersv1.RefundStatus_REFUND_STATUS_PENDING {
			t.Fatalf("answered %v", tr)
		}
		evs := e.VoucherEvents(t, tr.GetId())
		if last := evs[len(evs)-1]; last.GetTransfer().GetVoucher().GetCollectionStatus() != transfersv1.CollectionStatus_COLLECTION_STATUS_CANCELLED {
			t.Fatalf("no live event of the cancel: %v", last)
		}
	}
	for id, want := range map[string]string{
		collected.transfer.GetId(): "collected", expired.transfer.GetId(): "expired", other.transfer.GetId(): "awaiting_collection",
	} {
		if r := readVoucher(t, e, id); r.status != want {
			t.Fatalf("voucher %s is %s, want %s", id, r.status, want)
		}
	}
	if st := getTransfer(t, e, user, pending.GetId()).GetStatus(); st != transfersv1.TransferStatus_TRANSFER_STATUS_PENDING {
		t.Fatalf("the pending transfer is %v", st)
	}
	// The recipients can no longer collect.
	_, err := e.Client.CollectVoucher(atm(t, e), awaiting[0].request())
	if r := refused(t, err); r.GetReason() != transfersv1.CollectionRefused_REASON_CANCELLED {
		t.Fatalf("collecting a frozen voucher: %v", r)
	}

	// Repeating it changes nothing and writes nothing.
	outbox := len(e.Outbox(t))
	if again := freeze(t, e, user); len(again) != 0 {
		t.Fatalf("a second freeze cancelled %v", again)
	}
	if n := len(e.Outbox(t)); n != outbox {
		t.Fatalf("a second freeze wrote %d events", n-outbox)
	}

	// Each is refunded in full (amount and fee), and the sender is told by e-mail.
	e.StartWorker(t, nil, e.WorkerConfig())
	for _, v := range awaiting {
		id := v.transfer.GetId()
		testkit.Eventually(t, 10*time.Second, "the refund of "+id, func() bool {
			return getTransfer(t, e, user, id).GetRefundStatus() == transfersv1.RefundStatus_REFUND_STATUS_REFUNDED
		})
		charge, amount, ok := e.Payments.Refunded("refund-" + id)
		if !ok || charge != "ch_"+id || amount.Cents() != v.transfer.GetTotalAmountCents() {
			t.Fatalf("refund of %s: %s %d %v, want the whole %d", id, charge, amount.Cents(), ok, v.transfer.GetTotalAmountCents())
		}
		if mails := e.NotificationsOf(t, id, notificationsv1.Template_TEMPLATE_VOUCHER_REFUNDED); len(mails) != 1 {
			t.Fatalf("%d refund e-mails for %s", len(mails), id)
		}
	}
	if _, _, ok := e.Payments.Refunded("refund-" + collected.transfer.GetId()); ok {
		t.Fatalf("the collected voucher was refunded")
	}
}

// 'Freeze my vouchers' also pauses the sender's active scheduled sends (a scam or a lost phone
// means no more money should leave), and only theirs; a second freeze pauses nothing more.
func TestFreezePausesTheScheduledSends(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	active := createSchedule(t, e, user, pm, nil)
	alreadyPaused := createSchedule(t, e, user, pm, nil)
	if _, err := e.Client.PauseSchedule(e.Ctx(t, user), &transfersv1.PauseScheduleRequest{ScheduleId: alreadyPaused.GetId()}); err != nil {
		t.Fatal(err)
	}
	other, otherPM := e.NewUser()
	othersSchedule := createSchedule(t, e, other, otherPM, nil)

	res, err := e.Client.FreezeVouchers(e.Ctx(t, user), &transfersv1.FreezeVouchersRequest{})
	if err != nil || res.GetPausedSchedules() != 1 {
		t.Fatalf("FreezeVouchers = %v, %v; want one schedule paused", res, err)
	}
	for _, sch := range listSchedules(t, e, user) {
		if sch.GetState() != transfersv1.ScheduleState_SCHEDULE_STATE_PAUSED {
			t.Fatalf("schedule %s after the freeze: %v", sch.GetId(), sch.GetState())
		}
	}
	if got := listSchedules(t, e, other); len(got) != 1 || got[0].GetId() != othersSchedule.GetId() ||
		got[0].GetState() != transfersv1.ScheduleState_SCHEDULE_STATE_ACTIVE {
		t.Fatalf("another sender's schedules after the freeze: %v", got)
	}
	// Nothing is due from a paused schedule: the scheduler makes no transfer of it.
	if n := tick(t, scheduler(e, app.SchedulerConfig{})); n != 1 {
		t.Fatalf("the scheduler ran %d schedules, want 1 (the other sender's)", n)
	}
	if got := scheduledTransfers(t, e, active.GetId()); len(got) != 0 {
		t.Fatalf("a frozen sender's schedule made %v", got)
	}
	if again, err := e.Client.FreezeVouchers(e.Ctx(t, user), &transfersv1.FreezeVouchersRequest{}); err != nil || again.GetPausedSchedules() != 0 {
		t.Fatalf("a second freeze = %v, %v", again, err)
	}
}

// A freeze and a collection of the same voucher at the same moment: exactly one of them wins.
// Either the cash is dispensed and the voucher stays collected (nothing cancelled, no refund),
// or the voucher is cancelled with its refund owed and the ATM is refused; never both.
func TestFreezeRacesCollection(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{MaxConns: 8})
	wins := map[string]int{}
	for range 12 {
		user, pm := e.NewUser()
		v := issueTo(t, e, user, pm)
		var (
			wg        sync.WaitGroup
			collected error
			cancelled []*transfersv1.Transfer
			frozen    error
		)
		start := make(chan struct{})
		atmCtx, userCtx, collect := atm(t, e), e.Ctx(t, user), v.request()
		wg.Go(func() {
			<-start
			_, collected = e.Client.CollectVoucher(atmCtx, collect)
		})
		wg.Go(func() {
			<-start
			var res *transfersv1.FreezeVouchersResponse
			res, frozen = e.Client.FreezeVouchers(userCtx, &transfersv1.FreezeVouchersRequest{})
			cancelled = res.GetCancelled()
		})
		close(start)
		wg.Wait()
		if frozen != nil {
			t.Fatalf("freeze: %v", frozen)
		}
		row := readVoucher(t, e, v.transfer.GetId())
		refund := getTransfer(t, e, user, v.transfer.GetId()).GetRefundStatus()
		switch collected {
		case nil:
			if len(cancelled) != 0 || row.status != "collected" || refund != transfersv1.RefundStatus_REFUND_STATUS_NONE {
				t.Fatalf("collected, yet cancelled %v (voucher %s, refund %v)", cancelled, row.status, refund)
			}
			wins["collection"]++
		default:
			if r := refused(t, collected); r.GetReason() != transfersv1.CollectionRefused_REASON_CANCELLED {
				t.Fatalf("refused for %v", r.GetReason())
			}
			if len(cancelled) != 1 || row.status != "cancelled" || refund != transfersv1.RefundStatus_REFUND_STATUS_PENDING {
				t.Fatalf("refused, yet cancelled %v (voucher %s, refund %v)", cancelled, row.status, refund)
			}
			wins["freeze"]++
		}
	}
	t.Logf("winners: %v", wins)
}

// Another user's freeze (their token names only them) leaves a sender's vouchers alone, and
// the ATM gateway may not call it.
func TestFreezeVouchersScope(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	intruder, _ := e.NewUser()
	_, err := e.Client.FreezeVouchers(atm(t, e), &transfersv1.FreezeVouchersRequest{})
	wantCode(t, "the ATM gateway", err, codes.PermissionDenied, "")
	if got := freeze(t, e, intruder); len(got) != 0 {
		t.Fatalf("the intruder's own freeze cancelled %v", got)
	}
	if r := readVoucher(t, e, v.transfer.GetId()); r.status != "awaiting_collection" {
		t.Fatalf("the voucher is %s", r.status)
	}
}
