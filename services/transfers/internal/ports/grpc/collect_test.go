package grpcport_test

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	grpcport "github.com/thumela/thumela/services/transfers/internal/ports/grpc"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

const wrongCredentials = "The voucher number, PIN or phone number is incorrect."

// voucher is an issued voucher with its clear PIN, as the recipient's SMS carries it.
type voucher struct {
	transfer *transfersv1.Transfer
	user     string
	number   string
	pin      string
}

// issue creates a R500 Capitec transfer to 082 123 4567 and completes it with a voucher whose
// PIN the test knows, through the repository (the worker's own steps, without the charge).
func issue(t *testing.T, e *testkit.Env) voucher {
	t.Helper()
	return issueWith(t, e, nil)
}

// issueWith is issue with the create request edited by edit (when not nil). When the sender
// chose the PIN, the voucher's pin is theirs.
func issueWith(t *testing.T, e *testkit.Env, edit func(*transfersv1.CreateTransferRequest)) voucher {
	t.Helper()
	user, pm := e.NewUser()
	req := testkit.Request("k-"+uuid.NewString(), pm)
	if edit != nil {
		edit(req)
	}
	tr := create(t, e.Ctx(t, user), e, req)
	id := uuid.MustParse(tr.GetId())
	now := e.Clock.Now()
	ctx := context.Background()
	if _, err := e.Repo.Update(ctx, uuid.Nil, id, func(x *domain.Transfer) error {
		return x.ClaimCharge(now, now.Add(time.Minute))
	}); err != nil {
		t.Fatal(err)
	}
	v, err := domain.NewVoucher(e.PINs, id, now, domain.DefaultVoucherTTL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Repo.Update(ctx, uuid.Nil, id, func(x *domain.Transfer) error {
		return x.Complete("ch_"+id.String(), v, now)
	}); err != nil {
		t.Fatal(err)
	}
	pin := v.PIN
	if req.GetSenderPin() != "" {
		pin = req.GetSenderPin()
	}
	return voucher{transfer: tr, user: user, number: v.Number, pin: pin}
}

// wrong returns a PIN that is not pin.
func wrong(pin string) string {
	if pin == "1234" {
		return "4321"
	}
	return "1234"
}

// refs counts the ATM requests of the package's tests: each gets its own STAN and RRN.
var refs atomic.Int64

// atmRefs returns a fresh STAN (DE 11) and RRN (DE 37), as an ATM gives each new request.
func atmRefs() (stan, rrn string) {
	n := refs.Add(1)
	return fmt.Sprintf("%06d", n%1_000_000), fmt.Sprintf("T%011d", n)
}

// request is a new ATM request (its own STAN and RRN) with the voucher's right credentials and
// amount, at a Capitec ATM.
func (v voucher) request() *transfersv1.CollectVoucherRequest {
	stan, rrn := atmRefs()
	return &transfersv1.CollectVoucherRequest{
		VoucherNumber: v.number, Pin: v.pin, RecipientPhone: "082 123 4567",
		Bank: feesv1.Bank_BANK_CAPITEC, AtmId: "CPT-ATM-0042", AmountCents: 50_000,
		SystemTraceAuditNumber: stan, RetrievalReference: rrn,
	}
}

// refused returns err's CollectionRefused detail, failing when there is none.
func refused(t *testing.T, err error) *transfersv1.CollectionRefused {
	t.Helper()
	for _, d := range status.Convert(err).Details() {
		if r, ok := d.(*transfersv1.CollectionRefused); ok {
			return r
		}
	}
	t.Fatalf("no CollectionRefused detail in %v", err)
	return nil
}

func atm(t *testing.T, e *testkit.Env) context.Context {
	return e.ServiceCtx(t, grpcport.ATMGatewayService)
}

// voucherRow is the voucher's stored collection fields.
type voucherRow struct {
	status      string
	attempts    int
	lockedUntil *time.Time
	atmID       *string
	collectedAt *time.Time
}

func readVoucher(t *testing.T, e *testkit.Env, transferID string) voucherRow {
	t.Helper()
	var r voucherRow
	if err := e.Pool.QueryRow(context.Background(), `SELECT collection_status, voucher_failed_attempts,
		voucher_locked_until, collected_atm_id, collected_at FROM transfers WHERE id = $1`, transferID).
		Scan(&r.status, &r.attempts, &r.lockedUntil, &r.atmID, &r.collectedAt); err != nil {
		t.Fatal(err)
	}
	return r
}

func wantCode(t *testing.T, what string, err error, code codes.Code, msg string) {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != code || (msg != "" && !strings.Contains(st.Message(), msg)) {
		t.Fatalf("%s: %v, want %s %q", what, err, code, msg)
	}
}

// The whole path, with the real worker issuing the voucher and the PIN opened from the SMS
// request, as the notifications service opens it.
func TestCollectVoucher(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	e.StartWorker(t, nil, e.WorkerConfig())
	user, pm := e.NewUser()
	create(t, e.Ctx(t, user), e, testkit.Request("first", pm)) // the second transfer pays a fee
	tr := create(t, e.Ctx(t, user), e, testkit.Request("second", pm))
	done := e.WaitStatus(t, tr.GetId(), domain.StatusCompleted, 10*time.Second)
	number := done.Voucher().Number
	pin := e.VoucherPIN(t, tr.GetId())
	if !regexp.MustCompile(`^[0-9]{4}$`).MatchString(pin) || tr.GetFeeCents() == 0 {
		t.Fatalf("no PIN in the SMS request for voucher %s, or no fee (%d)", number, tr.GetFeeCents())
	}

	e.Clock.Advance(3 * time.Hour)
	at := e.Clock.Now()
	stan, rrn := atmRefs()
	res, err := e.Client.CollectVoucher(atm(t, e), &transfersv1.CollectVoucherRequest{
		VoucherNumber: number, Pin: pin, RecipientPhone: "+27 82 123 4567", // another notation
		Bank: feesv1.Bank_BANK_CAPITEC, AtmId: "CPT-ATM-0042", AmountCents: 50_000,
		SystemTraceAuditNumber: stan, RetrievalReference: rrn,
	})
	if err != nil {
		t.Fatalf("CollectVoucher: %v", err)
	}
	// The ATM dispenses the amount sent, never the fee.
	if res.GetTransferId() != tr.GetId() || res.GetAmountCents() != 50_000 || !res.GetCollectedAt().AsTime().Equal(at) {
		t.Fatalf("response = %v", res)
	}
	row := readVoucher(t, e, tr.GetId())
	if row.status != "collected" || row.atmID == nil || *row.atmID != "CPT-ATM-0042" || !row.collectedAt.Equal(at) || row.attempts != 0 {
		t.Fatalf("stored voucher = %+v", row)
	}

	// The sender's dashboard hears of it: a VoucherChanged event with the transfer, written
	// with the collection.
	evs := e.VoucherEvents(t, tr.GetId())
	last := evs[len(evs)-1]
	if len(evs) != 2 || last.GetVoucher().GetCollectionStatus() != transfersv1.CollectionStatus_COLLECTION_STATUS_COLLECTED ||
		last.GetTransfer().GetId() != tr.GetId() ||
		last.GetTransfer().GetVoucher().GetCollectionStatus() != transfersv1.CollectionStatus_COLLECTION_STATUS_COLLECTED ||
		!last.GetTransfer().GetVoucher().GetCollectedAt().AsTime().Equal(at) || !last.GetOccurredAt().AsTime().Equal(at) {
		t.Fatalf("voucher events = %v", evs)
	}
	got, err := e.Client.GetTransfer(e.Ctx(t, user), &transfersv1.GetTransferRequest{TransferId: tr.GetId()})
	if err != nil {
		t.Fatal(err)
	}
	if g := got.GetTransfer(); g.GetStatus() != transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED ||
		g.GetVoucher().GetCollectionStatus() != transfersv1.CollectionStatus_COLLECTION_STATUS_COLLECTED ||
		!g.GetVoucher().GetCollectedAt().AsTime().Equal(at) || g.GetVoucher().GetNumber() != number {
		t.Fatalf("GetTransfer = %v", g)
	}
	// The sender is told by e-mail, with the collection: who, how much, where and when.
	collected := e.NotificationsOf(t, tr.GetId(), notificationsv1.Template_TEMPLATE_CASH_COLLECTED)
	if len(collected) != 1 || !collected[0].Ephemeral || collected[0].Subject != "thumela.notifications.transfers."+user+".email" {
		t.Fatalf("cash collected requests %v", collected)
	}
	if c := collected[0].Request; c.GetRecipient() != testkit.SenderEmail || c.GetUserId() != user || c.GetSecrets() != nil ||
		!maps.Equal(c.GetParams(), map[string]string{
			"first_name": "Thandi", "recipient_name": "Sipho Dlamini", "amount_cents": "50000", "bank": "Capitec",
			"location": "Capitec ATM CPT-ATM-0042", "at": at.UTC().Format(time.RFC3339), "reference": tr.GetReference(),
		}) {
		t.Fatalf("cash collected request %v", c)
	}
	// Collected is an end: the sender can no longer cancel, nor can the cash come out twice.
	_, err = e.Client.CancelTransfer(e.Ctx(t, user), &transfersv1.CancelTransferRequest{TransferId: tr.GetId()})
	wantCode(t, "cancel after collection", err, codes.FailedPrecondition, "")
	stan, rrn = atmRefs()
	_, err = e.Client.CollectVoucher(atm(t, e), &transfersv1.CollectVoucherRequest{
		VoucherNumber: number, Pin: pin, RecipientPhone: "0821234567", Bank: feesv1.Bank_BANK_CAPITEC, AtmId: "CPT-ATM-0042",
		AmountCents: 50_000, SystemTraceAuditNumber: stan, RetrievalReference: rrn,
	})
	wantCode(t, "second collection", err, codes.FailedPrecondition, "already been collected")
	if n := len(e.NotificationsOf(t, tr.GetId(), notificationsv1.Template_TEMPLATE_CASH_COLLECTED)); n != 1 {
		t.Fatalf("%d cash collected requests after a second collection, want 1", n)
	}
}

// A wrong number, phone or PIN cannot be told apart; those against a real voucher count (and
// so does an unknown number, against itself: see TestCollectVoucherUnknownNumberAnswersLikeAVoucher).
// Only what is not a voucher number at all is told so.
func TestCollectVoucherWrongCredentialsGiveOneAnswer(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	other := issue(t, e)

	cases := map[string]func(r *transfersv1.CollectVoucherRequest){
		"wrong PIN":              func(r *transfersv1.CollectVoucherRequest) { r.Pin = wrong(v.pin) },
		"wrong phone":            func(r *transfersv1.CollectVoucherRequest) { r.RecipientPhone = "071 222 3333" },
		"phone that is no phone": func(r *transfersv1.CollectVoucherRequest) { r.RecipientPhone = "not a phone" },
		"unknown number": func(r *transfersv1.CollectVoucherRequest) {
			r.VoucherNumber = "0000000000"
			if v.number == r.VoucherNumber || other.number == r.VoucherNumber {
				r.VoucherNumber = "0000000001"
			}
		},
		"another voucher's PIN":    func(r *transfersv1.CollectVoucherRequest) { r.Pin = other.pin },
		"another voucher's number": func(r *transfersv1.CollectVoucherRequest) { r.VoucherNumber = other.number },
	}
	if other.pin == v.pin {
		delete(cases, "another voucher's PIN") // 1 in 10 000: the PIN would be right
		delete(cases, "another voucher's number")
	}
	var counted int
	for name, mutate := range cases {
		req := v.request()
		mutate(req)
		_, err := e.Client.CollectVoucher(atm(t, e), req)
		st := status.Convert(err)
		if st.Code() != codes.PermissionDenied || st.Message() != wrongCredentials || len(st.Details()) != 1 ||
			refused(t, err).GetReason() != transfersv1.CollectionRefused_REASON_WRONG_CREDENTIALS {
			t.Errorf("%s: %v, want PermissionDenied %q with WRONG_CREDENTIALS and nothing more", name, err, wrongCredentials)
		}
		switch name {
		case "wrong PIN", "wrong phone", "phone that is no phone", "another voucher's PIN":
			counted++
		}
	}
	if row := readVoucher(t, e, v.transfer.GetId()); row.attempts != counted || row.status != "awaiting_collection" || row.lockedUntil != nil {
		t.Fatalf("voucher after wrong attempts = %+v, want %d attempts", row, counted)
	}
	if len(e.VoucherEvents(t, v.transfer.GetId())) != 1 {
		t.Fatal("a refused attempt wrote an event")
	}
	// What is not a voucher number at all is told so, and counts against nothing.
	for _, number := range []string{"12ab", "123456789", "12345678901", "12345 6789"} {
		req := v.request()
		req.VoucherNumber = number
		_, err := e.Client.CollectVoucher(atm(t, e), req)
		if st := status.Convert(err); st.Code() != codes.PermissionDenied ||
			refused(t, err).GetReason() != transfersv1.CollectionRefused_REASON_INVALID_VOUCHER || refused(t, err).GetAttemptsLeft() != 0 {
			t.Errorf("malformed number %q: %v, want PermissionDenied with INVALID_VOUCHER", number, err)
		}
	}
	if row := readVoucher(t, e, v.transfer.GetId()); row.attempts != counted {
		t.Fatalf("malformed numbers counted against the voucher: %+v", row)
	}
	// The right credentials still work (fewer than five wrong).
	if _, err := e.Client.CollectVoucher(atm(t, e), v.request()); err != nil {
		t.Fatalf("right credentials after %d wrong: %v", counted, err)
	}
}

func TestCollectVoucherLocksAfterFiveWrongAttempts(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	// Each attempt is a new ATM request (its own RRN), as at a real ATM.
	bad := func() *transfersv1.CollectVoucherRequest {
		r := v.request()
		r.Pin = wrong(v.pin)
		return r
	}
	start := e.Clock.Now()
	for i := 1; i < domain.MaxCollectAttempts; i++ {
		_, err := e.Client.CollectVoucher(atm(t, e), bad())
		wantCode(t, "wrong PIN", err, codes.PermissionDenied, wrongCredentials)
		if left := refused(t, err).GetAttemptsLeft(); left != int32(domain.MaxCollectAttempts-i) {
			t.Fatalf("wrong PIN %d: %d attempts left, want %d", i, left, domain.MaxCollectAttempts-i)
		}
	}
	// The fifth locks the voucher and says so.
	_, fifth := e.Client.CollectVoucher(atm(t, e), bad())
	wantCode(t, "fifth wrong PIN", fifth, codes.ResourceExhausted, "locked until 19 Mar 2026 12:00 SAST")
	row := readVoucher(t, e, v.transfer.GetId())
	if row.attempts != 5 || row.lockedUntil == nil || !row.lockedUntil.Equal(start.Add(24*time.Hour)) {
		t.Fatalf("after 5 wrong PINs: %+v", row)
	}
	// Locked: even the right PIN is refused, and says until when.
	_, err := e.Client.CollectVoucher(atm(t, e), v.request())
	wantCode(t, "right PIN while locked", err, codes.ResourceExhausted, "locked until 19 Mar 2026 12:00 SAST")
	e.Clock.Advance(24*time.Hour - time.Second)
	_, err = e.Client.CollectVoucher(atm(t, e), v.request())
	wantCode(t, "right PIN a second before the lock passes", err, codes.ResourceExhausted, "locked")
	if row := readVoucher(t, e, v.transfer.GetId()); row.attempts != 5 || row.status != "awaiting_collection" {
		t.Fatalf("attempts while locked changed the voucher: %+v", row)
	}

	// The lock passes: a fresh count starts (one wrong PIN does not lock again), and the
	// right PIN collects.
	e.Clock.Advance(time.Second)
	_, err = e.Client.CollectVoucher(atm(t, e), bad())
	wantCode(t, "wrong PIN after the lock", err, codes.PermissionDenied, wrongCredentials)
	if row := readVoucher(t, e, v.transfer.GetId()); row.attempts != 1 || row.lockedUntil != nil {
		t.Fatalf("after the lock passed and one wrong PIN: %+v", row)
	}
	res, err := e.Client.CollectVoucher(atm(t, e), v.request())
	if err != nil || res.GetAmountCents() != 50_000 {
		t.Fatalf("right PIN after the lock: %v, %v", res, err)
	}
}

// The sender is told of a lock, once: the transfer answers when it ends, and one voucher event
// (for the sender's open pages) carries it. A resend gives a voucher without it.
func TestCollectVoucherLockIsToldToTheSender(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	id := v.transfer.GetId()
	if got := getTransfer(t, e, v.user, id).GetVoucher().GetLockedUntil(); got != nil {
		t.Fatalf("a new voucher is locked until %v", got.AsTime())
	}
	before := len(e.VoucherEvents(t, id))
	start := e.Clock.Now()
	for range domain.MaxCollectAttempts + 1 { // the last one refused as locked, changing nothing
		r := v.request()
		r.Pin = wrong(v.pin)
		if _, err := e.Client.CollectVoucher(atm(t, e), r); err == nil {
			t.Fatal("a wrong PIN was accepted")
		}
	}
	until := start.Add(domain.CollectLockout)
	if got := getTransfer(t, e, v.user, id).GetVoucher().GetLockedUntil(); got == nil || !got.AsTime().Equal(until) {
		t.Fatalf("the sender sees the voucher locked until %v, want %v", got.AsTime(), until)
	}
	evs := e.VoucherEvents(t, id)[before:]
	if len(evs) != 1 || !evs[0].GetVoucher().GetLockedUntil().AsTime().Equal(until) ||
		evs[0].GetVoucher().GetCollectionStatus() != transfersv1.CollectionStatus_COLLECTION_STATUS_AWAITING_COLLECTION {
		t.Fatalf("voucher events after the lock: %v, want one carrying the lock", evs)
	}
	// And by e-mail, once: the sixth attempt, refused as locked, asks for nothing more.
	mails := e.NotificationsOf(t, id, notificationsv1.Template_TEMPLATE_VOUCHER_LOCKED)
	if len(mails) != 1 || mails[0].Request.GetRecipient() != testkit.SenderEmail ||
		mails[0].Request.GetParams()["until"] != until.UTC().Format(time.RFC3339) {
		t.Fatalf("voucher locked e-mails %v, want one to the sender saying until %v", mails, until)
	}

	if _, err := e.Client.ResendVoucher(e.Ctx(t, v.user), &transfersv1.ResendVoucherRequest{TransferId: id}); err != nil {
		t.Fatal(err)
	}
	if got := getTransfer(t, e, v.user, id).GetVoucher().GetLockedUntil(); got != nil {
		t.Fatalf("after a resend the voucher is locked until %v", got.AsTime())
	}
}

// The count is taken under the row's lock: concurrent wrong PINs never get more than five
// tries.
func TestCollectVoucherConcurrentWrongPINsStopAtTheLimit(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	const n = 12
	codesSeen := make(chan codes.Code, n)
	var wg sync.WaitGroup
	ctx := atm(t, e)
	for range n {
		wg.Go(func() {
			bad := v.request()
			bad.Pin = wrong(v.pin)
			_, err := e.Client.CollectVoucher(ctx, bad)
			codesSeen <- status.Code(err)
		})
	}
	wg.Wait()
	close(codesSeen)
	count := map[codes.Code]int{}
	for c := range codesSeen {
		count[c]++
	}
	// Four wrong PINs answered as such, the fifth with the lock it set, the rest with the lock.
	if count[codes.PermissionDenied] != domain.MaxCollectAttempts-1 || count[codes.ResourceExhausted] != n-domain.MaxCollectAttempts+1 {
		t.Fatalf("answers = %v, want %d PermissionDenied and the rest ResourceExhausted", count, domain.MaxCollectAttempts-1)
	}
	if row := readVoucher(t, e, v.transfer.GetId()); row.attempts != domain.MaxCollectAttempts || row.lockedUntil == nil {
		t.Fatalf("voucher = %+v", row)
	}
}

func TestCollectVoucherAtAnotherBanksATM(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	req := v.request()
	req.Bank = feesv1.Bank_BANK_FNB
	_, err := e.Client.CollectVoucher(atm(t, e), req)
	wantCode(t, "FNB ATM", err, codes.FailedPrecondition, "This voucher can only be withdrawn at a Capitec ATM.")
	if row := readVoucher(t, e, v.transfer.GetId()); row.attempts != 0 || row.status != "awaiting_collection" {
		t.Fatalf("wrong bank changed the voucher: %+v", row)
	}
	// Its bank's ATM pays out.
	if _, err := e.Client.CollectVoucher(atm(t, e), v.request()); err != nil {
		t.Fatal(err)
	}
}

func TestCollectVoucherExpired(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	marked := issue(t, e)
	e.Clock.Advance(domain.DefaultVoucherTTL)
	// Past its expiry, before the worker marks it expired.
	_, err := e.Client.CollectVoucher(atm(t, e), v.request())
	wantCode(t, "past expiry", err, codes.FailedPrecondition, "This voucher has expired and can no longer be collected.")
	// Marked expired by the worker's expiry.
	if n, err := e.Repo.ExpireDue(context.Background(), e.Clock.Now(), 10, nil); err != nil || n != 2 {
		t.Fatalf("ExpireDue = %d, %v", n, err)
	}
	_, err = e.Client.CollectVoucher(atm(t, e), marked.request())
	wantCode(t, "expired", err, codes.FailedPrecondition, "This voucher has expired and can no longer be collected.")
	if row := readVoucher(t, e, marked.transfer.GetId()); row.status != "expired" || row.collectedAt != nil {
		t.Fatalf("expired voucher = %+v", row)
	}
}

func TestCollectVoucherCancelled(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	if _, err := e.Client.CancelTransfer(e.Ctx(t, v.user), &transfersv1.CancelTransferRequest{TransferId: v.transfer.GetId()}); err != nil {
		t.Fatal(err)
	}
	_, err := e.Client.CollectVoucher(atm(t, e), v.request())
	wantCode(t, "cancelled", err, codes.FailedPrecondition, "This voucher was cancelled by the sender and can no longer be collected.")
	if row := readVoucher(t, e, v.transfer.GetId()); row.status != "cancelled" || row.collectedAt != nil || row.atmID != nil {
		t.Fatalf("cancelled voucher = %+v", row)
	}
}

// Two ATMs submit the right credentials at once: the cash comes out once.
func TestCollectVoucherTwiceAtOnceDispensesOnce(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	const n = 2
	errs := make(chan error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	ctx := atm(t, e)
	for range n {
		wg.Go(func() {
			<-start
			_, err := e.Client.CollectVoucher(ctx, v.request())
			errs <- err
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	var ok, collected int
	for err := range errs {
		switch {
		case err == nil:
			ok++
		case status.Code(err) == codes.FailedPrecondition && strings.Contains(status.Convert(err).Message(), "already been collected"):
			collected++
		default:
			t.Errorf("unexpected answer: %v", err)
		}
	}
	if ok != 1 || collected != 1 {
		t.Fatalf("%d collected, %d refused as already collected; want 1 and 1", ok, collected)
	}
	var events int
	for _, ev := range e.VoucherEvents(t, v.transfer.GetId()) {
		if ev.GetVoucher().GetCollectionStatus() == transfersv1.CollectionStatus_COLLECTION_STATUS_COLLECTED {
			events++
		}
	}
	if events != 1 {
		t.Fatalf("%d collected events, want 1", events)
	}
	if n := len(e.NotificationsOf(t, v.transfer.GetId(), notificationsv1.Template_TEMPLATE_CASH_COLLECTED)); n != 1 {
		t.Fatalf("%d cash collected requests, want 1", n)
	}
}

func TestCollectVoucherOnlyForTheATMGateway(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	for name, ctx := range map[string]context.Context{
		"the sender's user token":     e.Ctx(t, v.user),
		"another user's token":        e.Ctx(t, uuid.NewString()),
		"another service's token":     e.ServiceCtx(t, "transfers"),
		"a service named like a user": e.ServiceCtx(t, v.user),
	} {
		_, err := e.Client.CollectVoucher(ctx, v.request())
		wantCode(t, name, err, codes.PermissionDenied, "caller not allowed")
	}
	_, err := e.Client.CollectVoucher(context.Background(), v.request())
	wantCode(t, "no token", err, codes.Unauthenticated, "")
	if row := readVoucher(t, e, v.transfer.GetId()); row.status != "awaiting_collection" || row.attempts != 0 {
		t.Fatalf("refused callers touched the voucher: %+v", row)
	}
	if _, err := e.Client.CollectVoucher(atm(t, e), v.request()); err != nil {
		t.Fatalf("the ATM gateway: %v", err)
	}
}

// The gateway's own mistakes are InvalidArgument, before any voucher is looked at.
func TestCollectVoucherRefusesBadRequests(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	for name, mutate := range map[string]func(*transfersv1.CollectVoucherRequest){
		"no bank":         func(r *transfersv1.CollectVoucherRequest) { r.Bank = feesv1.Bank_BANK_UNSPECIFIED },
		"no ATM id":       func(r *transfersv1.CollectVoucherRequest) { r.AtmId = "  " },
		"ATM id too long": func(r *transfersv1.CollectVoucherRequest) { r.AtmId = strings.Repeat("A", 65) },
		"control chars":   func(r *transfersv1.CollectVoucherRequest) { r.AtmId = "ATM\n1" },
	} {
		req := v.request()
		mutate(req)
		_, err := e.Client.CollectVoucher(atm(t, e), req)
		wantCode(t, name, err, codes.InvalidArgument, "")
	}
	if row := readVoucher(t, e, v.transfer.GetId()); row.status != "awaiting_collection" || row.attempts != 0 {
		t.Fatalf("bad requests touched the voucher: %+v", row)
	}
}
