package grpcport_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	grpcport "github.com/thumela/thumela/services/transfers/internal/ports/grpc"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// wantStepUp fails unless err is the documented refusal: FailedPrecondition with an ErrorInfo
// of reason STEP_UP_REQUIRED in the transfers domain.
func wantStepUp(t *testing.T, what string, err error) {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != codes.FailedPrecondition {
		t.Fatalf("%s: %v, want FailedPrecondition STEP_UP_REQUIRED", what, err)
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetReason() == "STEP_UP_REQUIRED" && info.GetDomain() == "transfers.thumela.co.za" {
			return
		}
	}
	t.Fatalf("%s: %v has no STEP_UP_REQUIRED ErrorInfo (details %v)", what, err, st.Details())
}

// Each case of the step-up rule, over gRPC with real tokens: a transfer above R1,000 or to a
// phone the sender has never paid needs a step-up ("sua") at most 5 minutes old; otherwise
// it is refused and nothing is created.
func TestCreateTransferStepUp(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	none := time.Time{}
	stale := time.Now().Add(-6 * time.Minute)
	fresh := time.Now().Add(-time.Minute)

	// v.user has a completed (charged) R500 transfer to 082 123 4567.
	v := issue(t, e)
	pm := v.transfer.GetPaymentMethodId()
	known := func(key string, amount int64) *transfersv1.CreateTransferRequest {
		req := testkit.Request(key, pm) // 082 123 4567, the phone paid before
		req.AmountCents = amount
		return req
	}
	newPhone := func(key string, amount int64) *transfersv1.CreateTransferRequest {
		req := known(key, amount)
		req.RecipientPhone = "083 765 4321"
		return req
	}
	before := rows(t, e, v.user)

	cases := []struct {
		name     string
		req      *transfersv1.CreateTransferRequest
		at       time.Time
		required bool
	}{
		{"new phone, small amount, no step-up", newPhone("new-small", 50_000), none, true},
		{"known phone, small amount, no step-up", known("known-small", 50_000), none, false},
		{"known phone, R1,000.00 exactly, no step-up", known("known-1000", 100_000), none, false},
		{"known phone, R1,010, no step-up", known("known-1010", 101_000), none, true},
		{"known phone, R1,010, stale step-up (6 min)", known("known-1010-stale", 101_000), stale, true},
		{"new phone, stale step-up (6 min)", newPhone("new-stale", 50_000), stale, true},
		{"known phone, R1,010, fresh step-up", known("known-1010-fresh", 101_000), fresh, false},
		{"new phone, fresh step-up", newPhone("new-fresh", 50_000), fresh, false},
	}
	created := 0
	for _, c := range cases {
		res, err := e.Client.CreateTransfer(e.CtxSteppedUpAt(t, v.user, c.at), c.req)
		if c.required {
			wantStepUp(t, c.name, err)
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		created++
		if res.GetTransfer().GetAmountCents() != c.req.GetAmountCents() {
			t.Fatalf("%s: created %v", c.name, res.GetTransfer())
		}
	}
	if got := rows(t, e, v.user); got != before+created {
		t.Fatalf("%d transfers, want %d: a refused create stored something", got, before+created)
	}
}

// A transfer only makes its phone known once it is charged: a pending one to a phone (or one
// of another sender's) does not spare the next transfer to it the step-up.
func TestStepUpKnownPhoneMeansCharged(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	first := testkit.Request("first", pm)
	first.RecipientPhone = "084 555 0101"
	if _, err := e.Client.CreateTransfer(e.Ctx(t, user), first); err != nil { // stepped up: pending
		t.Fatal(err)
	}
	second := testkit.Request("second", pm)
	second.RecipientPhone = "+27845550101"
	_, err := e.Client.CreateTransfer(e.CtxSteppedUpAt(t, user, time.Time{}), second)
	wantStepUp(t, "to a phone whose only transfer is pending", err)

	// Another sender paid 082 123 4567 (completed): this sender never did.
	other := issue(t, e)
	_, err = e.Client.CreateTransfer(e.CtxSteppedUpAt(t, user, time.Time{}), testkit.Request("third", pm))
	wantStepUp(t, "to a phone another sender paid", err)
	if other.transfer.GetRecipientPhone() != "+27821234567" {
		t.Fatalf("fixture: %v", other.transfer.GetRecipientPhone())
	}
}

// A replay of a transfer already created returns it without a new step-up (the step-up was
// checked when it was created, and a retry creates nothing); a new key does need one.
func TestStepUpReplay(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	req := testkit.Request("replayed", pm)
	req.AmountCents = 150_000
	first := create(t, e.CtxSteppedUpAt(t, user, time.Now()), e, req)
	for _, at := range []time.Time{{}, time.Now().Add(-time.Hour)} {
		res, err := e.Client.CreateTransfer(e.CtxSteppedUpAt(t, user, at), req)
		if err != nil {
			t.Fatalf("replay (step-up %v): %v", at, err)
		}
		if res.GetTransfer().GetId() != first.GetId() {
			t.Fatalf("replay made another transfer: %s, want %s", res.GetTransfer().GetId(), first.GetId())
		}
	}
	// The replay is not a way round the check: the same body under a new key needs a step-up.
	req.IdempotencyKey = "k-" + uuid.NewString()
	_, err := e.Client.CreateTransfer(e.CtxSteppedUpAt(t, user, time.Time{}), req)
	wantStepUp(t, "a new key", err)
	if n := rows(t, e, user); n != 1 {
		t.Fatalf("%d transfers, want 1", n)
	}
}

// A transfer the limits refuse anyway says so first, rather than asking for a step-up that
// would not help.
func TestLimitsBeforeStepUp(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	for i, amount := range []int64{300_000, 200_000} { // R5,000 a day: the third is over it
		req := testkit.Request("day-"+string(rune('a'+i)), pm)
		req.AmountCents = amount
		create(t, e.Ctx(t, user), e, req)
	}
	req := testkit.Request("over", pm)
	req.AmountCents = 150_000
	_, err := e.Client.CreateTransfer(e.CtxSteppedUpAt(t, user, time.Time{}), req)
	if le, _ := limitDetail(t, err); le.GetKind() != transfersv1.LimitKind_LIMIT_KIND_DAILY {
		t.Fatalf("over the daily limit without a step-up: %v, want the daily limit's refusal", le)
	}
}

// The exported names are the contract's.
func TestStepUpContract(t *testing.T) {
	t.Parallel()
	if grpcport.ReasonStepUpRequired != "STEP_UP_REQUIRED" || grpcport.ErrorDomain != "transfers.thumela.co.za" {
		t.Fatalf("reason %q, domain %q", grpcport.ReasonStepUpRequired, grpcport.ErrorDomain)
	}
}

// Sending a voucher to another phone moves the money there: a phone the sender never paid
// needs a step-up, as a create would; refused, the voucher stays as it was.
func TestChangeRecipientPhoneStepUp(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	v := issue(t, e) // R500 to 082 123 4567, completed
	id := v.transfer.GetId()
	change := func(at time.Time, phone string) (*transfersv1.Transfer, error) {
		res, err := e.Client.ChangeRecipientPhone(e.CtxSteppedUpAt(t, v.user, at), &transfersv1.ChangeRecipientPhoneRequest{TransferId: id, RecipientPhone: phone})
		return res.GetTransfer(), err
	}
	for _, at := range []time.Time{{}, time.Now().Add(-6 * time.Minute)} {
		_, err := change(at, "083 555 0199")
		wantStepUp(t, "a new phone without a fresh step-up", err)
	}
	if got := getTransfer(t, e, v.user, id); got.GetRecipientPhone() != "+27821234567" || got.GetVoucher().GetNumber() != v.number ||
		got.GetVoucher().GetPhoneChangesLeft() != 3 || len(e.VoucherSMSes(t, id)) != 1 {
		t.Fatalf("a refused change changed the voucher: %v", got)
	}
	// The refusals of the change itself come first: the same number is not a step-up question.
	if _, err := change(time.Time{}, "082 123 4567"); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("the same number: %v, want InvalidArgument", err)
	}
	tr, err := change(time.Now(), "083 555 0199")
	if err != nil || tr.GetRecipientPhone() != "+27835550199" {
		t.Fatalf("with a fresh step-up: %v %v", tr, err)
	}
}
