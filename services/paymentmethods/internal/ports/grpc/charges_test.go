package grpcport_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	"github.com/thumela/thumela/services/paymentmethods/internal/adapters/sandbox"
	grpcport "github.com/thumela/thumela/services/paymentmethods/internal/ports/grpc"
)

// The sandbox's test cards, charged through the service by token.
func TestChargeTestCards(t *testing.T) {
	t.Parallel()
	e := start(t, options{slowDelay: time.Second}) // well above a loaded machine's ordinary charge
	u := newUser()
	transfers := e.asService(t, "transfers")
	tests := []struct {
		name, number string
		approved     bool
		code, msg    string
		slow         bool
	}{
		{"visa", sandbox.CardVisa, true, "", "", false},
		{"mastercard", sandbox.CardMastercard, true, "", "", false},
		{"insufficient funds", sandbox.CardInsufficientFunds, false, sandbox.CodeInsufficientFunds, sandbox.MsgInsufficientFunds, false},
		{"declined", sandbox.CardDeclined, false, sandbox.CodeCardDeclined, sandbox.MsgCardDeclined, false},
		{"declined on charge", sandbox.CardDeclinedOnCharge, false, sandbox.CodeCardDeclined, sandbox.MsgCardDeclined, false},
		{"slow", sandbox.CardSlow, true, "", "", true},
		{"any other", cardNumber(t, "4"), true, "", "", false},
	}
	for _, tt := range tests {
		m := e.addCard(t, u, tt.name, tt.number, false)
		began := time.Now()
		res, err := e.client.Charge(transfers, &paymentmethodsv1.ChargeRequest{
			UserId: u.id, Token: m.GetToken(), AmountCents: 12_345, IdempotencyKey: uuid.NewString(), Description: "Transfer to Sipho",
		})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		wantStatus := paymentmethodsv1.ChargeStatus_CHARGE_STATUS_DECLINED
		if tt.approved {
			wantStatus = paymentmethodsv1.ChargeStatus_CHARGE_STATUS_APPROVED
		}
		if res.GetStatus() != wantStatus || res.GetDeclineCode() != tt.code || res.GetDeclineMessage() != tt.msg || uuid.Validate(res.GetChargeId()) != nil {
			t.Errorf("%s: %v", tt.name, res)
		}
		if took := time.Since(began); tt.slow != (took >= time.Second) {
			t.Errorf("%s took %s", tt.name, took)
		}
	}
	if n := e.count(t, "SELECT count(*) FROM charges WHERE status = 'pending'"); n != 0 {
		t.Fatalf("%d charges left pending", n)
	}
}

// A repeated charge with the same key returns the first result and calls the processor once,
// also when ten requests arrive together; the same key for another charge is refused.
func TestChargeIsIdempotent(t *testing.T) {
	t.Parallel()
	e := start(t, options{sandboxDelay: 200 * time.Millisecond})
	u := newUser()
	m := e.addCard(t, u, "Card", cardNumber(t, "4"), false)
	transfers := e.asService(t, "transfers")
	req := &paymentmethodsv1.ChargeRequest{UserId: u.id, Token: m.GetToken(), AmountCents: 50_000, IdempotencyKey: uuid.NewString()}

	first, err := e.client.Charge(transfers, req)
	if err != nil {
		t.Fatal(err)
	}
	again, err := e.client.Charge(transfers, req)
	if err != nil || again.GetChargeId() != first.GetChargeId() || again.GetStatus() != first.GetStatus() {
		t.Fatalf("repeat = %v %v, first %v", again, err, first)
	}
	if n := e.processor.charges.Load(); n != 1 {
		t.Fatalf("processor charged %d times, want 1", n)
	}

	// Ten at once, with a new key.
	req.IdempotencyKey = uuid.NewString()
	var (
		wg      sync.WaitGroup
		gate    = make(chan struct{})
		results [10]*paymentmethodsv1.ChargeResponse
		errs    [10]error
	)
	for i := range results {
		wg.Go(func() {
			<-gate
			results[i], errs[i] = e.client.Charge(transfers, req)
		})
	}
	close(gate)
	wg.Wait()
	for i := range results {
		if errs[i] != nil {
			t.Fatalf("call %d: %v", i, errs[i])
		}
		if results[i].GetChargeId() != results[0].GetChargeId() || results[i].GetStatus() != paymentmethodsv1.ChargeStatus_CHARGE_STATUS_APPROVED {
			t.Fatalf("call %d = %v, call 0 = %v", i, results[i], results[0])
		}
	}
	if n := e.processor.charges.Load(); n != 2 {
		t.Fatalf("processor charged %d times for two keys, want 2", n)
	}
	if n := e.count(t, "SELECT count(*) FROM charges"); n != 2 {
		t.Fatalf("%d charge rows, want 2", n)
	}

	// The same key with another amount, token or user is refused.
	other := e.addCard(t, u, "Other", cardNumber(t, "4"), false)
	for _, bad := range []*paymentmethodsv1.ChargeRequest{
		{UserId: u.id, Token: m.GetToken(), AmountCents: 50_001, IdempotencyKey: req.GetIdempotencyKey()},
		{UserId: u.id, Token: other.GetToken(), AmountCents: 50_000, IdempotencyKey: req.GetIdempotencyKey()},
	} {
		_, err := e.client.Charge(transfers, bad)
		wantStatus(t, err, codes.AlreadyExists, grpcport.MsgIdempotency)
	}
	if n := e.processor.charges.Load(); n != 2 {
		t.Fatalf("processor charged %d times, want 2", n)
	}
}

// A charge whose processor call failed stays pending; the retry with the same key resumes it
// with the same processor idempotency key (the caller's), and the charge is made once.
func TestChargeResumesAfterProcessorFailure(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser()
	m := e.addCard(t, u, "Card", cardNumber(t, "4"), false)
	transfers := e.asService(t, "transfers")
	req := &paymentmethodsv1.ChargeRequest{UserId: u.id, Token: m.GetToken(), AmountCents: 20_000, IdempotencyKey: uuid.NewString()}

	e.processor.failCharges.Store(1)
	_, err := e.client.Charge(transfers, req)
	wantStatus(t, err, codes.Unavailable, grpcport.MsgUnavailable)
	if n := e.count(t, "SELECT count(*) FROM charges WHERE status = 'pending'"); n != 1 {
		t.Fatalf("%d pending charges, want 1", n)
	}
	res, err := e.client.Charge(transfers, req)
	if err != nil || res.GetStatus() != paymentmethodsv1.ChargeStatus_CHARGE_STATUS_APPROVED {
		t.Fatalf("retry = %v %v", res, err)
	}
	e.processor.mu.Lock()
	keys := append([]string(nil), e.processor.chargeKeys...)
	e.processor.mu.Unlock()
	if len(keys) != 2 || keys[0] != keys[1] || keys[0] != req.GetIdempotencyKey() {
		t.Fatalf("processor keys %v, want the request's idempotency key twice", keys)
	}
	if n := e.count(t, "SELECT attempts FROM charges WHERE id = $1", res.GetChargeId()); n != 2 {
		t.Fatalf("attempts = %d", n)
	}
}

// A request that finds the charge pending under someone else's lease waits for the answer
// rather than calling the processor itself; when the lease runs out (the holder died) it
// takes over.
func TestChargeTakesOverAnExpiredLease(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser()
	m := e.addCard(t, u, "Card", cardNumber(t, "4"), false)
	transfers := e.asService(t, "transfers")
	req := &paymentmethodsv1.ChargeRequest{UserId: u.id, Token: m.GetToken(), AmountCents: 20_000, IdempotencyKey: uuid.NewString()}
	e.processor.failCharges.Store(1)
	_, err := e.client.Charge(transfers, req)
	wantCode(t, err, codes.Unavailable)
	// As if another replica held it, for one more second.
	if _, err := e.pool.Exec(t.Context(), `UPDATE charges SET lease_until = now() + interval '1 second'`); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	res, err := e.client.Charge(transfers, req)
	if err != nil || res.GetStatus() != paymentmethodsv1.ChargeStatus_CHARGE_STATUS_APPROVED {
		t.Fatalf("charge = %v %v", res, err)
	}
	if took := time.Since(began); took < 900*time.Millisecond {
		t.Fatalf("did not wait for the lease (%s)", took)
	}
	if n := e.processor.charges.Load(); n != 2 {
		t.Fatalf("processor calls = %d, want 2 (failed + takeover)", n)
	}
	// A caller that gives up while waiting gets its deadline, and nothing is charged.
	req.IdempotencyKey = uuid.NewString()
	e.processor.failCharges.Store(1)
	_, _ = e.client.Charge(transfers, req)
	if _, err := e.pool.Exec(t.Context(), `UPDATE charges SET lease_until = now() + interval '1 minute' WHERE status = 'pending'`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(transfers, 300*time.Millisecond)
	defer cancel()
	_, err = e.client.Charge(ctx, req)
	wantCode(t, err, codes.DeadlineExceeded)
	if n := e.processor.charges.Load(); n != 3 {
		t.Fatalf("processor calls = %d, want 3", n)
	}
}

func TestChargeValidation(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser()
	m := e.addCard(t, u, "Card", cardNumber(t, "4"), false)
	transfers := e.asService(t, "transfers")
	for _, tt := range []struct {
		req   *paymentmethodsv1.ChargeRequest
		field string
	}{
		{&paymentmethodsv1.ChargeRequest{UserId: u.id, Token: m.GetToken(), AmountCents: 0, IdempotencyKey: "k"}, "amount_cents"},
		{&paymentmethodsv1.ChargeRequest{UserId: u.id, Token: m.GetToken(), AmountCents: -5, IdempotencyKey: "k"}, "amount_cents"},
		{&paymentmethodsv1.ChargeRequest{UserId: u.id, Token: m.GetToken(), AmountCents: 100}, "idempotency_key"},
		{&paymentmethodsv1.ChargeRequest{UserId: u.id, AmountCents: 100, IdempotencyKey: "k"}, "token"},
		{&paymentmethodsv1.ChargeRequest{UserId: u.id, Token: m.GetToken(), AmountCents: 100, IdempotencyKey: "k", Description: "card 4111111111111111"}, "description"},
	} {
		_, err := e.client.Charge(transfers, tt.req)
		if fields, _ := violations(t, err); len(fields) != 1 || fields[0] != tt.field {
			t.Errorf("%v: fields %v, want %s", tt.req, fields, tt.field)
		}
	}
	for _, tt := range []*paymentmethodsv1.ChargeRequest{
		{UserId: u.id, Token: "tok_unknown", AmountCents: 100, IdempotencyKey: "k"},
		{UserId: "not-a-uuid", Token: m.GetToken(), AmountCents: 100, IdempotencyKey: "k"},
		{UserId: uuid.NewString(), Token: m.GetToken(), AmountCents: 100, IdempotencyKey: "k"},
	} {
		_, err := e.client.Charge(transfers, tt)
		wantStatus(t, err, codes.NotFound, grpcport.MsgNotFound)
	}
	if e.processor.charges.Load() != 0 || e.count(t, "SELECT count(*) FROM charges") != 0 {
		t.Fatal("a refused charge reached the processor or the table")
	}
}

// Charge and Refund admit only the transfers service: a user's token is PermissionDenied,
// another service's too, and no token is Unauthenticated.
func TestChargeAndRefundPolicy(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser()
	m := e.addCard(t, u, "Card", cardNumber(t, "4"), false)
	charge := &paymentmethodsv1.ChargeRequest{UserId: u.id, Token: m.GetToken(), AmountCents: 1000, IdempotencyKey: uuid.NewString()}
	refund := &paymentmethodsv1.RefundRequest{ChargeId: uuid.NewString(), AmountCents: 1000, IdempotencyKey: uuid.NewString()}
	for _, tt := range []struct {
		name string
		ctx  context.Context
		code codes.Code
	}{
		{"user token", e.as(t, u.id), codes.PermissionDenied},
		{"bff service token", e.asService(t, "bff"), codes.PermissionDenied},
		{"no token", t.Context(), codes.Unauthenticated},
		{"garbage token", metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer nope"), codes.Unauthenticated},
	} {
		_, err := e.client.Charge(tt.ctx, charge)
		if status.Code(err) != tt.code {
			t.Errorf("Charge with %s: %v, want %s", tt.name, err, tt.code)
		}
		_, err = e.client.Refund(tt.ctx, refund)
		if status.Code(err) != tt.code {
			t.Errorf("Refund with %s: %v, want %s", tt.name, err, tt.code)
		}
	}
	if e.processor.charges.Load() != 0 {
		t.Fatal("a refused caller reached the processor")
	}
	// The user RPCs refuse a service token: they have no user to scope to.
	_, err := e.client.ListPaymentMethods(e.asService(t, "transfers"), &paymentmethodsv1.ListPaymentMethodsRequest{})
	wantCode(t, err, codes.PermissionDenied)
	_, err = e.client.ListPaymentMethods(t.Context(), &paymentmethodsv1.ListPaymentMethodsRequest{})
	wantCode(t, err, codes.Unauthenticated)
	if _, err := e.client.Charge(e.asService(t, "transfers"), charge); err != nil {
		t.Fatalf("transfers' token: %v", err)
	}
}

func TestRefund(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser()
	transfers := e.asService(t, "transfers")
	m := e.addCard(t, u, "Card", cardNumber(t, "4"), false)
	poor := e.addCard(t, u, "Poor", sandbox.CardInsufficientFunds, false)
	ch, err := e.client.Charge(transfers, &paymentmethodsv1.ChargeRequest{UserId: u.id, Token: m.GetToken(), AmountCents: 10_000, IdempotencyKey: uuid.NewString()})
	if err != nil {
		t.Fatal(err)
	}
	declined, err := e.client.Charge(transfers, &paymentmethodsv1.ChargeRequest{UserId: u.id, Token: poor.GetToken(), AmountCents: 10_000, IdempotencyKey: uuid.NewString()})
	if err != nil || declined.GetStatus() != paymentmethodsv1.ChargeStatus_CHARGE_STATUS_DECLINED {
		t.Fatalf("declined charge = %v %v", declined, err)
	}

	r1 := &paymentmethodsv1.RefundRequest{ChargeId: ch.GetChargeId(), AmountCents: 4_000, IdempotencyKey: uuid.NewString(), Reason: "voucher cancelled"}
	first, err := e.client.Refund(transfers, r1)
	if err != nil || uuid.Validate(first.GetRefundId()) != nil {
		t.Fatalf("refund = %v %v", first, err)
	}
	again, err := e.client.Refund(transfers, r1)
	if err != nil || again.GetRefundId() != first.GetRefundId() {
		t.Fatalf("repeat = %v %v", again, err)
	}
	if n := e.processor.refunds.Load(); n != 1 {
		t.Fatalf("processor refunds = %d, want 1", n)
	}
	_, err = e.client.Refund(transfers, &paymentmethodsv1.RefundRequest{ChargeId: ch.GetChargeId(), AmountCents: 5_000, IdempotencyKey: r1.GetIdempotencyKey()})
	wantStatus(t, err, codes.AlreadyExists, grpcport.MsgIdempotency)
	_, err = e.client.Refund(transfers, &paymentmethodsv1.RefundRequest{ChargeId: ch.GetChargeId(), AmountCents: 6_001, IdempotencyKey: uuid.NewString()})
	wantStatus(t, err, codes.FailedPrecondition, grpcport.MsgRefundExceeds)
	_, err = e.client.Refund(transfers, &paymentmethodsv1.RefundRequest{ChargeId: declined.GetChargeId(), AmountCents: 100, IdempotencyKey: uuid.NewString()})
	wantStatus(t, err, codes.FailedPrecondition, grpcport.MsgNotRefundable)
	_, err = e.client.Refund(transfers, &paymentmethodsv1.RefundRequest{ChargeId: uuid.NewString(), AmountCents: 100, IdempotencyKey: uuid.NewString()})
	wantStatus(t, err, codes.NotFound, grpcport.MsgChargeNotFound)

	// Ten refunds of R10.00 at once, each with its own key, on the R60.00 left: six succeed.
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		oks  int
		gate = make(chan struct{})
	)
	for range 10 {
		wg.Go(func() {
			<-gate
			_, err := e.client.Refund(transfers, &paymentmethodsv1.RefundRequest{ChargeId: ch.GetChargeId(), AmountCents: 1_000, IdempotencyKey: uuid.NewString()})
			switch status.Code(err) {
			case codes.OK:
				mu.Lock()
				oks++
				mu.Unlock()
			case codes.FailedPrecondition:
			default:
				t.Errorf("refund: %v", err)
			}
		})
	}
	close(gate)
	wg.Wait()
	if oks != 6 {
		t.Fatalf("%d of the concurrent refunds succeeded, want 6", oks)
	}
	if n := e.count(t, "SELECT sum(amount_cents) FROM refunds WHERE charge_id = $1", ch.GetChargeId()); n != 10_000 {
		t.Fatalf("refunded %d cents of 10000", n)
	}
}

// A card deleted after the transfers service read it (its cached copy lives until the
// DELETED event arrives) cannot be charged: Charge by its token answers NotFound, which the
// transfers worker takes as a rejected charge (the transfer fails, "Nothing was taken"), and
// the processor is never called.
func TestChargeOfADeletedCardIsRefused(t *testing.T) {
	t.Parallel()
	e := start(t)
	u := newUser()
	m := e.addCard(t, u, "Soon gone", cardNumber(t, "4"), false)
	if _, err := e.client.DeletePaymentMethod(e.as(t, u.id), &paymentmethodsv1.DeletePaymentMethodRequest{PaymentMethodId: m.GetId()}); err != nil {
		t.Fatal(err)
	}
	before := e.processor.charges.Load()
	_, err := e.client.Charge(e.asService(t, "transfers"), &paymentmethodsv1.ChargeRequest{
		UserId: u.id, Token: m.GetToken(), AmountCents: 51_150, IdempotencyKey: uuid.NewString(), Description: "Transfer to Sipho",
	})
	wantStatus(t, err, codes.NotFound, grpcport.MsgNotFound)
	if n := e.processor.charges.Load() - before; n != 0 {
		t.Fatalf("the processor was called %d times for a deleted card", n)
	}
	if n := e.count(t, "SELECT count(*) FROM charges"); n != 0 {
		t.Fatalf("%d charges recorded for a deleted card", n)
	}
}
