package grpcport_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// requestRow is an ATM request as recorded.
type requestRow struct {
	outcome, reason string
	attemptsLeft    int
	transferID      *string
	location        string
	reversed        bool
}

func readRequest(t *testing.T, e *testkit.Env, bank, rrn string) (requestRow, bool) {
	t.Helper()
	var r requestRow
	err := e.Pool.QueryRow(context.Background(), `SELECT outcome, reason, attempts_left, transfer_id::text, atm_location,
		reversed_at IS NOT NULL FROM collection_requests WHERE bank = $1 AND retrieval_reference = $2`, bank, rrn).
		Scan(&r.outcome, &r.reason, &r.attemptsLeft, &r.transferID, &r.location, &r.reversed)
	if err != nil {
		return requestRow{}, false
	}
	return r, true
}

func countRequests(t *testing.T, e *testkit.Env) int {
	t.Helper()
	var n int
	if err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM collection_requests`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// collectedEvents counts the VoucherChanged events of transferID that say collected.
func collectedEvents(t *testing.T, e *testkit.Env, transferID string) int {
	t.Helper()
	n := 0
	for _, ev := range e.VoucherEvents(t, transferID) {
		if ev.GetVoucher().GetCollectionStatus() == transfersv1.CollectionStatus_COLLECTION_STATUS_COLLECTED {
			n++
		}
	}
	return n
}

// sameAnswer fails unless a and b are the same answer: code, message and details.
func sameAnswer(t *testing.T, what string, a, b error) {
	t.Helper()
	sa, sb := status.Convert(a), status.Convert(b)
	if !proto.Equal(sa.Proto(), sb.Proto()) {
		t.Fatalf("%s: %v and %v differ", what, a, b)
	}
}

// A repeated request (the switch's retry: the same bank and RRN, the same message) answers as
// the first did and changes nothing: no second attempt counted, no second collection or event.
func TestCollectVoucherIsIdempotentByRetrievalReference(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	ctx := atm(t, e)

	bad := v.request()
	bad.Pin = wrong(v.pin)
	_, first := e.Client.CollectVoucher(ctx, bad)
	if refused(t, first).GetAttemptsLeft() != 4 {
		t.Fatalf("first wrong PIN: %v", first)
	}
	for range 3 {
		_, again := e.Client.CollectVoucher(ctx, bad)
		sameAnswer(t, "repeated wrong PIN", first, again)
	}
	// A retry carrying another PIN is still the same message to the switch: the same answer.
	retry := proto.CloneOf(bad)
	retry.Pin = v.pin
	_, again := e.Client.CollectVoucher(ctx, retry)
	sameAnswer(t, "retry with another PIN", first, again)
	if row := readVoucher(t, e, v.transfer.GetId()); row.attempts != 1 {
		t.Fatalf("repeats counted: %+v", row)
	}

	// The same RRN at another bank is another request.
	otherBank := proto.CloneOf(bad)
	otherBank.Bank = feesv1.Bank_BANK_FNB
	if _, err := e.Client.CollectVoucher(ctx, otherBank); refused(t, err).GetAttemptsLeft() != 3 {
		t.Fatalf("same RRN at another bank: %v", err)
	}

	good := v.request()
	e.Clock.Advance(time.Minute)
	res, err := e.Client.CollectVoucher(ctx, good)
	if err != nil {
		t.Fatal(err)
	}
	e.Clock.Advance(time.Minute)
	for range 3 {
		res2, err := e.Client.CollectVoucher(ctx, good)
		if err != nil || !proto.Equal(res, res2) {
			t.Fatalf("repeated approval: %v, %v; first %v", res2, err, res)
		}
	}
	if n := collectedEvents(t, e, v.transfer.GetId()); n != 1 {
		t.Fatalf("%d collected events, want 1", n)
	}
	if n := len(e.NotificationsOf(t, v.transfer.GetId(), notificationsv1.Template_TEMPLATE_CASH_COLLECTED)); n != 1 {
		t.Fatalf("%d cash collected requests, want 1", n)
	}
	if n := countRequests(t, e); n != 3 {
		t.Fatalf("%d requests recorded, want 3", n)
	}

	// The same reference for another request (another STAN, amount, number or ATM) is the
	// gateway's mistake, not a repeat: AlreadyExists, and nothing is recorded.
	for name, edit := range map[string]func(*transfersv1.CollectVoucherRequest){
		"STAN":   func(r *transfersv1.CollectVoucherRequest) { r.SystemTraceAuditNumber = "999999" },
		"amount": func(r *transfersv1.CollectVoucherRequest) { r.AmountCents = 60_000 },
		"number": func(r *transfersv1.CollectVoucherRequest) { r.VoucherNumber = "0000000000" },
		"ATM":    func(r *transfersv1.CollectVoucherRequest) { r.AtmId = "CPT-ATM-0043" },
	} {
		other := proto.CloneOf(good)
		edit(other)
		_, err := e.Client.CollectVoucher(ctx, other)
		wantCode(t, "another "+name+" under the same RRN", err, codes.AlreadyExists, "")
	}
	if n := countRequests(t, e); n != 3 {
		t.Fatalf("%d requests recorded after conflicts, want 3", n)
	}
}

// Every refusal carries its CollectionRefused reason, with the codes the contract always had.
func TestCollectVoucherRefusalsCarryTheirReason(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	ctx := atm(t, e)
	check := func(what string, req *transfersv1.CollectVoucherRequest, code codes.Code, reason transfersv1.CollectionRefused_Reason, msg string) {
		t.Helper()
		_, err := e.Client.CollectVoucher(ctx, req)
		wantCode(t, what, err, code, msg)
		if got := refused(t, err).GetReason(); got != reason {
			t.Fatalf("%s: reason %v, want %v", what, got, reason)
		}
	}

	v := issue(t, e)
	r := v.request()
	r.Pin = wrong(v.pin)
	check("wrong PIN", r, codes.PermissionDenied, transfersv1.CollectionRefused_REASON_WRONG_CREDENTIALS, wrongCredentials)
	r = v.request()
	r.VoucherNumber = "12345"
	check("malformed number", r, codes.PermissionDenied, transfersv1.CollectionRefused_REASON_INVALID_VOUCHER, "not a voucher number")
	r = v.request()
	r.Bank = feesv1.Bank_BANK_ABSA
	check("another bank", r, codes.FailedPrecondition, transfersv1.CollectionRefused_REASON_WRONG_BANK, "only be withdrawn at a Capitec ATM")
	r = v.request()
	r.AmountCents = 40_000
	check("wrong amount", r, codes.FailedPrecondition, transfersv1.CollectionRefused_REASON_WRONG_AMOUNT, "please withdraw R500,00")
	for range 4 {
		r = v.request()
		r.Pin = wrong(v.pin)
		_, _ = e.Client.CollectVoucher(ctx, r)
	}
	check("locked", v.request(), codes.ResourceExhausted, transfersv1.CollectionRefused_REASON_LOCKED, "locked until")

	collected := issue(t, e)
	if _, err := e.Client.CollectVoucher(ctx, collected.request()); err != nil {
		t.Fatal(err)
	}
	check("collected", collected.request(), codes.FailedPrecondition, transfersv1.CollectionRefused_REASON_ALREADY_COLLECTED, msgCollected)

	cancelled := issue(t, e)
	if _, err := e.Client.CancelTransfer(e.Ctx(t, cancelled.user), &transfersv1.CancelTransferRequest{TransferId: cancelled.transfer.GetId()}); err != nil {
		t.Fatal(err)
	}
	check("cancelled", cancelled.request(), codes.FailedPrecondition, transfersv1.CollectionRefused_REASON_CANCELLED, "cancelled")

	expired := issue(t, e)
	e.Clock.Advance(domain.DefaultVoucherTTL)
	check("expired", expired.request(), codes.FailedPrecondition, transfersv1.CollectionRefused_REASON_EXPIRED, "expired")
}

const msgCollected = "This voucher has already been collected."

// The amount typed must be the voucher's; it is judged only once the credentials are right,
// and a wrong amount counts as no attempt.
func TestCollectVoucherWrongAmount(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	ctx := atm(t, e)
	// Wrong credentials and a wrong amount: only "incorrect" (a guesser learns no amount).
	r := v.request()
	r.Pin, r.AmountCents = wrong(v.pin), 10_000
	_, err := e.Client.CollectVoucher(ctx, r)
	if refused(t, err).GetReason() != transfersv1.CollectionRefused_REASON_WRONG_CREDENTIALS {
		t.Fatalf("wrong PIN and amount: %v", err)
	}
	for _, cents := range []int64{49_000, 50_010, 51_000, 100_000} {
		r := v.request()
		r.AmountCents = cents
		_, err := e.Client.CollectVoucher(ctx, r)
		if refused(t, err).GetReason() != transfersv1.CollectionRefused_REASON_WRONG_AMOUNT {
			t.Fatalf("%d c: %v", cents, err)
		}
	}
	if row := readVoucher(t, e, v.transfer.GetId()); row.attempts != 1 || row.status != "awaiting_collection" {
		t.Fatalf("after wrong amounts: %+v", row)
	}
	if res, err := e.Client.CollectVoucher(ctx, v.request()); err != nil || res.GetAmountCents() != 50_000 {
		t.Fatalf("the whole amount: %v, %v", res, err)
	}
}

// A well-formed number that no voucher has answers exactly as a voucher does to wrong PINs:
// the same attempts left, the same lock at the fifth, the same lock's end.
func TestCollectVoucherUnknownNumberAnswersLikeAVoucher(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	ctx := atm(t, e)
	unknown := "0000000000"
	if v.number == unknown {
		unknown = "0000000001"
	}
	for i := range domain.MaxCollectAttempts + 2 {
		genuine := v.request()
		genuine.Pin = wrong(v.pin)
		fake := v.request()
		fake.VoucherNumber = unknown
		_, a := e.Client.CollectVoucher(ctx, genuine)
		_, b := e.Client.CollectVoucher(ctx, fake)
		sameAnswer(t, "attempt "+string(rune('1'+i)), a, b)
		e.Clock.Advance(time.Minute)
	}
	// Both locks pass at the same time; then both count afresh.
	e.Clock.Advance(domain.CollectLockout - 3*time.Minute) // the fifth attempt, at minute 4, locked it
	genuine := v.request()
	genuine.Pin = wrong(v.pin)
	fake := v.request()
	fake.VoucherNumber = unknown
	_, a := e.Client.CollectVoucher(ctx, genuine)
	_, b := e.Client.CollectVoucher(ctx, fake)
	sameAnswer(t, "after the lock", a, b)
	if refused(t, a).GetAttemptsLeft() != 4 {
		t.Fatalf("after the lock: %v", a)
	}
	// Nothing of the unknown number is kept in clear.
	var n int
	if err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM unknown_voucher_numbers
		WHERE failed_attempts = 1 AND number_digest <> convert_to($1, 'UTF8')`, unknown).Scan(&n); err != nil || n != 1 {
		t.Fatalf("unknown numbers counted: %d, %v", n, err)
	}
}

// Fifty ATMs present the right credentials of one voucher at once, each its own request:
// exactly one approval; every other is told it is collected; one event, one e-mail.
func TestFiftyConcurrentCollectsApproveOnce(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{MaxConns: 10})
	v := issue(t, e)
	ctx := atm(t, e)
	const n = 50
	reqs := make([]*transfersv1.CollectVoucherRequest, n)
	for i := range reqs {
		reqs[i] = v.request()
	}
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			_, errs[i] = e.Client.CollectVoucher(ctx, reqs[i])
		})
	}
	close(start)
	wg.Wait()
	approved, collected := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			approved++
		case refused(t, err).GetReason() == transfersv1.CollectionRefused_REASON_ALREADY_COLLECTED:
			collected++
		default:
			t.Errorf("unexpected answer %v", err)
		}
	}
	if approved != 1 || collected != n-1 {
		t.Fatalf("%d approved, %d already collected; want 1 and %d", approved, collected, n-1)
	}
	if got := collectedEvents(t, e, v.transfer.GetId()); got != 1 {
		t.Fatalf("%d collected events", got)
	}
	if got := len(e.NotificationsOf(t, v.transfer.GetId(), notificationsv1.Template_TEMPLATE_CASH_COLLECTED)); got != 1 {
		t.Fatalf("%d cash collected requests", got)
	}
	var approvedRows int
	if err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM collection_requests WHERE outcome = 'approved'`).Scan(&approvedRows); err != nil || approvedRows != 1 {
		t.Fatalf("%d approved requests recorded (%v)", approvedRows, err)
	}
}

// The ATM's location is kept with the collection and shown to the sender: in the transfer,
// its live event and the cash collected e-mail.
func TestCollectedAtLocation(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	r := v.request()
	r.AtmLocation = "  Capitec ATM   Sandton City "
	if _, err := e.Client.CollectVoucher(atm(t, e), r); err != nil {
		t.Fatal(err)
	}
	got, err := e.Client.GetTransfer(e.Ctx(t, v.user), &transfersv1.GetTransferRequest{TransferId: v.transfer.GetId()})
	if err != nil {
		t.Fatal(err)
	}
	if loc := got.GetTransfer().GetVoucher().GetCollectedAtLocation(); loc != "Capitec ATM Sandton City" {
		t.Fatalf("collected_at_location %q", loc)
	}
	evs := e.VoucherEvents(t, v.transfer.GetId())
	if loc := evs[len(evs)-1].GetTransfer().GetVoucher().GetCollectedAtLocation(); loc != "Capitec ATM Sandton City" {
		t.Fatalf("event's location %q", loc)
	}
	mail := e.NotificationsOf(t, v.transfer.GetId(), notificationsv1.Template_TEMPLATE_CASH_COLLECTED)
	if len(mail) != 1 || mail[0].Request.GetParams()["location"] != "Capitec ATM Sandton City" {
		t.Fatalf("cash collected requests %v", mail)
	}
	if row, ok := readRequest(t, e, "capitec", r.GetRetrievalReference()); !ok || row.location != "Capitec ATM Sandton City" || row.outcome != "approved" {
		t.Fatalf("request row %+v", row)
	}
	// Awaiting collection: no location.
	other := issue(t, e)
	got, _ = e.Client.GetTransfer(e.Ctx(t, other.user), &transfersv1.GetTransferRequest{TransferId: other.transfer.GetId()})
	if loc := got.GetTransfer().GetVoucher().GetCollectedAtLocation(); loc != "" {
		t.Fatalf("an uncollected voucher's location %q", loc)
	}
}

// The gateway's new fields are checked like the old: InvalidArgument before any voucher is
// looked at, nothing recorded.
func TestCollectVoucherRefusesBadReferences(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	for name, mutate := range map[string]func(*transfersv1.CollectVoucherRequest){
		"no RRN":              func(r *transfersv1.CollectVoucherRequest) { r.RetrievalReference = "" },
		"RRN too long":        func(r *transfersv1.CollectVoucherRequest) { r.RetrievalReference = "1234567890123" },
		"no STAN":             func(r *transfersv1.CollectVoucherRequest) { r.SystemTraceAuditNumber = "" },
		"STAN not digits":     func(r *transfersv1.CollectVoucherRequest) { r.SystemTraceAuditNumber = "12a" },
		"no amount":           func(r *transfersv1.CollectVoucherRequest) { r.AmountCents = 0 },
		"negative amount":     func(r *transfersv1.CollectVoucherRequest) { r.AmountCents = -50_000 },
		"location too long":   func(r *transfersv1.CollectVoucherRequest) { r.AtmLocation = strings.Repeat("L", 65) },
		"location with a tab": func(r *transfersv1.CollectVoucherRequest) { r.AtmLocation = "FNB\u0007ATM" },
	} {
		req := v.request()
		mutate(req)
		_, err := e.Client.CollectVoucher(atm(t, e), req)
		wantCode(t, name, err, codes.InvalidArgument, "")
	}
	if n := countRequests(t, e); n != 0 {
		t.Fatalf("%d requests recorded", n)
	}
	r := v.request()
	r.AtmLocation = strings.Repeat("L", 64)
	if _, err := e.Client.CollectVoucher(atm(t, e), r); err != nil {
		t.Fatalf("a 64-character location: %v", err)
	}
}

// reversalOf is the ATM gateway's reversal of request r: its references, and its ATM, amount
// and voucher number repeated.
func reversalOf(r *transfersv1.CollectVoucherRequest) *transfersv1.ReverseCollectionRequest {
	return &transfersv1.ReverseCollectionRequest{
		Bank: r.GetBank(), RetrievalReference: r.GetRetrievalReference(), SystemTraceAuditNumber: r.GetSystemTraceAuditNumber(),
		AtmId: r.GetAtmId(), AmountCents: r.GetAmountCents(), VoucherNumber: r.GetVoucherNumber(),
	}
}

func reverse(t *testing.T, e *testkit.Env, r *transfersv1.CollectVoucherRequest) *transfersv1.ReverseCollectionResponse {
	t.Helper()
	res, err := e.Client.ReverseCollection(atm(t, e), reversalOf(r))
	if err != nil {
		t.Fatalf("ReverseCollection: %v", err)
	}
	return res
}

// The ATM could not dispense: the reversal of the approved request makes the voucher
// collectable again, once; the sender's screen hears of it; the next collection is told again.
func TestReverseCollection(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	ctx := atm(t, e)
	id := v.transfer.GetId()

	wrongPIN := v.request()
	wrongPIN.Pin = wrong(v.pin)
	_, _ = e.Client.CollectVoucher(ctx, wrongPIN)
	first := v.request()
	first.AtmLocation = "Capitec ATM Sandton City"
	if _, err := e.Client.CollectVoucher(ctx, first); err != nil {
		t.Fatal(err)
	}
	// Requests that collected nothing, unknown ones, or the right one with another STAN: nothing.
	unknown := v.request()
	otherSTAN := proto.CloneOf(first)
	otherSTAN.SystemTraceAuditNumber = "999999"
	otherBank := proto.CloneOf(first)
	otherBank.Bank = feesv1.Bank_BANK_FNB
	for name, r := range map[string]*transfersv1.CollectVoucherRequest{
		"a refused request": wrongPIN, "an unknown request": unknown, "another STAN": otherSTAN, "another bank": otherBank,
	} {
		if res := reverse(t, e, r); res.GetReversed() || (name != "a refused request" && res.GetTransferId() != "") {
			t.Fatalf("reversal of %s: %v", name, res)
		}
	}
	if row := readVoucher(t, e, id); row.status != "collected" {
		t.Fatalf("voucher after reversals of nothing: %+v", row)
	}

	// Reversals that name the approved request but not what it said (forged from its references
	// on a switch link): refused, nothing changed.
	for name, edit := range map[string]func(*transfersv1.ReverseCollectionRequest){
		"another ATM":            func(q *transfersv1.ReverseCollectionRequest) { q.AtmId = "EVIL0001" },
		"another amount":         func(q *transfersv1.ReverseCollectionRequest) { q.AmountCents = 1 },
		"another voucher number": func(q *transfersv1.ReverseCollectionRequest) { q.VoucherNumber = "1111111111" },
	} {
		forged := reversalOf(first)
		edit(forged)
		_, err := e.Client.ReverseCollection(ctx, forged)
		wantCode(t, name, err, codes.FailedPrecondition, "does not match")
	}
	if row := readVoucher(t, e, id); row.status != "collected" {
		t.Fatalf("voucher after forged reversals: %+v", row)
	}
	if req, _ := readRequest(t, e, "capitec", first.GetRetrievalReference()); req.reversed {
		t.Fatalf("a forged reversal marked the request reversed: %+v", req)
	}

	e.Clock.Advance(time.Minute)
	at := e.Clock.Now()
	if res := reverse(t, e, first); !res.GetReversed() || res.GetTransferId() != id {
		t.Fatalf("reversal: %v", res)
	}
	row := readVoucher(t, e, id)
	if row.status != "awaiting_collection" || row.collectedAt != nil || row.atmID != nil || row.attempts != 1 {
		t.Fatalf("reversed voucher %+v", row)
	}
	if req, _ := readRequest(t, e, "capitec", first.GetRetrievalReference()); !req.reversed {
		t.Fatalf("request not marked reversed: %+v", req)
	}
	evs := e.VoucherEvents(t, id)
	last := evs[len(evs)-1]
	if len(evs) != 3 || last.GetVoucher().GetCollectionStatus() != transfersv1.CollectionStatus_COLLECTION_STATUS_AWAITING_COLLECTION ||
		last.GetVoucher().GetCollectedAtLocation() != "" || !last.GetOccurredAt().AsTime().Equal(at) {
		t.Fatalf("voucher events %v", evs)
	}
	// A repeated reversal changes nothing; a repeat of the reversed request is never approved again.
	if res := reverse(t, e, first); res.GetReversed() || res.GetTransferId() != id {
		t.Fatalf("repeated reversal: %v", res)
	}
	_, err := e.Client.CollectVoucher(ctx, first)
	wantCode(t, "repeat of the reversed request", err, codes.FailedPrecondition, "reversed")
	if refused(t, err).GetReason() != transfersv1.CollectionRefused_REASON_REVERSED {
		t.Fatalf("repeat of the reversed request: %v", err)
	}
	if n := len(e.VoucherEvents(t, id)); n != 3 {
		t.Fatalf("%d voucher events after repeats, want 3", n)
	}

	// Collected again by a new request: its own event and e-mail; its reversal works once more,
	// and the first request's reversal still does nothing.
	second := v.request()
	if _, err := e.Client.CollectVoucher(ctx, second); err != nil {
		t.Fatal(err)
	}
	if n := collectedEvents(t, e, id); n != 2 {
		t.Fatalf("%d collected events, want 2", n)
	}
	if n := len(e.NotificationsOf(t, id, notificationsv1.Template_TEMPLATE_CASH_COLLECTED)); n != 2 {
		t.Fatalf("%d cash collected requests, want 2", n)
	}
	if res := reverse(t, e, first); res.GetReversed() {
		t.Fatal("the first request reversed the second's collection")
	}
	if row := readVoucher(t, e, id); row.status != "collected" {
		t.Fatalf("voucher %+v", row)
	}
	if res := reverse(t, e, second); !res.GetReversed() {
		t.Fatal("the second request's reversal")
	}
	// A reversal more than a day after its collection re-opens nothing: the dispute desk's case.
	third := v.request()
	if _, err := e.Client.CollectVoucher(ctx, third); err != nil {
		t.Fatal(err)
	}
	e.Clock.Advance(domain.MaxReversalDelay + time.Minute)
	_, err = e.Client.ReverseCollection(ctx, reversalOf(third))
	wantCode(t, "a reversal a day late", err, codes.FailedPrecondition, "too late")
	if row := readVoucher(t, e, id); row.status != "collected" {
		t.Fatalf("voucher after a late reversal: %+v", row)
	}
	var distinct int
	if err := e.Pool.QueryRow(context.Background(), `SELECT count(DISTINCT id) FROM outbox WHERE subject LIKE '%.voucher'`).Scan(&distinct); err != nil || distinct != 6 {
		t.Fatalf("%d distinct voucher event ids, want 6 (issued, collected, reversed, collected, reversed, collected): %v", distinct, err)
	}
}

// A reversal that overtakes its request (the switch gave up on a withdrawal still on its way and
// reversed it, and was told the reversal stands): the request, when it comes, collects nothing,
// every time it is repeated; no attempt is counted; the voucher is collected by a new request as
// usual.
func TestARequestReversedBeforeItCameCollectsNothing(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	ctx := atm(t, e)
	id := v.transfer.GetId()

	late := v.request()
	if res := reverse(t, e, late); res.GetReversed() || res.GetTransferId() != "" {
		t.Fatalf("reversal of a request not seen yet: %v", res)
	}
	for _, what := range []string{"the late request", "its repeat"} {
		_, err := e.Client.CollectVoucher(ctx, late)
		wantCode(t, what, err, codes.FailedPrecondition, "reversed")
		if refused(t, err).GetReason() != transfersv1.CollectionRefused_REASON_REVERSED {
			t.Fatalf("%s: %v", what, err)
		}
	}
	if row := readVoucher(t, e, id); row.status != "awaiting_collection" || row.attempts != 0 || row.collectedAt != nil {
		t.Fatalf("voucher after the late request: %+v", row)
	}
	if _, found := readRequest(t, e, "capitec", late.GetRetrievalReference()); found {
		t.Fatal("the late request was recorded as an ATM request")
	}
	// A repeated reversal keeps the first; the request under the same reference with another
	// STAN is not the one reversed.
	if res := reverse(t, e, late); res.GetReversed() {
		t.Fatalf("repeated early reversal: %v", res)
	}
	otherSTAN := proto.CloneOf(late)
	otherSTAN.SystemTraceAuditNumber = "999999"
	if _, err := e.Client.CollectVoucher(ctx, otherSTAN); err != nil {
		t.Fatalf("another request under the reversed one's reference: %v", err)
	}
	if row := readVoucher(t, e, id); row.status != "collected" {
		t.Fatalf("voucher %+v", row)
	}
	if n := collectedEvents(t, e, id); n != 1 {
		t.Fatalf("%d collected events, want 1", n)
	}
}

// A reversal forged from guessed references ahead of a request from another ATM (or for another
// amount) does not refuse that request when it comes.
func TestAnEarlyReversalRefusesOnlyTheRequestItRepeats(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	ctx := atm(t, e)
	coming := v.request()
	forged := reversalOf(coming)
	forged.AtmId, forged.AmountCents = "EVIL0001", 1_000
	if res, err := e.Client.ReverseCollection(ctx, forged); err != nil || res.GetReversed() {
		t.Fatalf("a reversal of a request not seen yet: %v, %v", res, err)
	}
	if _, err := e.Client.CollectVoucher(ctx, coming); err != nil {
		t.Fatalf("the request the forged reversal named by its references: %v", err)
	}
	if row := readVoucher(t, e, v.transfer.GetId()); row.status != "collected" {
		t.Fatalf("voucher %+v", row)
	}
}

// Two ATMs' reversals of the same request at once: one reverses.
func TestConcurrentReversalsReverseOnce(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{MaxConns: 8})
	v := issue(t, e)
	r := v.request()
	if _, err := e.Client.CollectVoucher(atm(t, e), r); err != nil {
		t.Fatal(err)
	}
	const n = 10
	results := make([]bool, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { results[i] = reverse(t, e, r).GetReversed() })
	}
	wg.Wait()
	count := 0
	for _, ok := range results {
		if ok {
			count++
		}
	}
	if count != 1 {
		t.Fatalf("%d reversals reversed, want 1", count)
	}
}

// A voucher reversed after its expiry is expired by the worker as usual (and refunded).
func TestReversedPastItsExpiryExpires(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	r := v.request()
	e.Clock.Advance(domain.DefaultVoucherTTL - time.Minute)
	if _, err := e.Client.CollectVoucher(atm(t, e), r); err != nil {
		t.Fatal(err)
	}
	e.Clock.Advance(2 * time.Minute)
	if !reverse(t, e, r).GetReversed() {
		t.Fatal("not reversed")
	}
	e.StartWorker(t, nil, e.WorkerConfig())
	testkit.Eventually(t, 10*time.Second, "the reversed voucher to expire and be refunded", func() bool {
		row := readVoucher(t, e, v.transfer.GetId())
		_, _, refunded := e.Payments.Refunded("refund-" + v.transfer.GetId())
		return row.status == "expired" && refunded
	})
}

func TestReverseCollectionOnlyForTheATMGateway(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e)
	r := v.request()
	if _, err := e.Client.CollectVoucher(atm(t, e), r); err != nil {
		t.Fatal(err)
	}
	req := reversalOf(r)
	for name, ctx := range map[string]context.Context{
		"the sender's user token": e.Ctx(t, v.user), "another service's token": e.ServiceCtx(t, "bff"),
	} {
		_, err := e.Client.ReverseCollection(ctx, req)
		wantCode(t, name, err, codes.PermissionDenied, "")
	}
	for name, bad := range map[string]*transfersv1.ReverseCollectionRequest{
		"no bank": {RetrievalReference: "R1", SystemTraceAuditNumber: "1"},
		"no RRN":  {Bank: feesv1.Bank_BANK_CAPITEC, SystemTraceAuditNumber: "1"},
		"no STAN": {Bank: feesv1.Bank_BANK_CAPITEC, RetrievalReference: "R1"},
		"no ATM, amount or voucher number": {Bank: r.GetBank(), RetrievalReference: r.GetRetrievalReference(),
			SystemTraceAuditNumber: r.GetSystemTraceAuditNumber()},
	} {
		_, err := e.Client.ReverseCollection(atm(t, e), bad)
		wantCode(t, name, err, codes.InvalidArgument, "")
	}
	if row := readVoucher(t, e, v.transfer.GetId()); row.status != "collected" {
		t.Fatalf("refused reversals touched the voucher: %+v", row)
	}
}
