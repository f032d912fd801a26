// Package testkit is the transfers service's test harness: hand-written fakes of the other
// services (at the app layer's interfaces), a settable clock, and an environment with a fresh
// migrated PostgreSQL database and the real gRPC API on loopback behind the production token
// checks. Only tests import it.
package testkit

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// Clock is a settable clock.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock starts at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// Advance moves the clock by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// Card tokens with scripted outcomes, like the sandbox processor's test cards.
const (
	TokenApprove      = "tok_approve"
	TokenDecline      = "tok_decline"
	TokenInsufficient = "tok_insufficient"
	TokenRejected     = "tok_rejected" // paymentmethods refuses the request (NotFound)
)

// FakePayments is paymentmethods and its processor: cards per user, and a ledger of charges
// and refunds kept once per idempotency key, as the real one promises.
type FakePayments struct {
	mu      sync.Mutex
	methods map[string]app.PaymentMethod
	// charges and refunds made, by idempotency key: the money that moved.
	charges map[string]chargeRecord
	refunds map[string]refundRecord
	// calls, by idempotency key: how often the worker asked.
	chargeCalls map[string]int
	// processorCharges, by idempotency key: charges actually made (not answered from the
	// ledger), as a processor would count them.
	processorCharges map[string]int
	refundCalls      map[string]int
	// getCalls counts GetPaymentMethod calls (the ownership check of a create).
	getCalls int
	// failNext makes the next n charge calls fail as if paymentmethods were down;
	// failNextRefunds the next n refund calls.
	failNext        int
	failNextRefunds int
	// onCharge, when set, runs at the start of every charge call (to block or count).
	onCharge func(app.ChargeRequest)
	// planted are processor records that replace the ledger's (PutProcessorRecord);
	// failRecords makes ListProcessorRecords fail.
	planted     map[string]app.ProcessorRecord
	failRecords bool
}

type chargeRecord struct {
	req    app.ChargeRequest
	result app.ChargeResult
}

type refundRecord struct {
	req app.RefundRequest
	id  string
}

// NewFakePayments returns an empty fake.
func NewFakePayments() *FakePayments {
	return &FakePayments{
		methods: map[string]app.PaymentMethod{}, charges: map[string]chargeRecord{}, refunds: map[string]refundRecord{},
		chargeCalls: map[string]int{}, refundCalls: map[string]int{}, processorCharges: map[string]int{},
	}
}

// AddCard gives userID a card with id and token.
func (f *FakePayments) AddCard(userID, id, name, lastFour, token string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.methods[id] = app.PaymentMethod{ID: id, UserID: userID, Name: name, LastFour: lastFour, Card: true, Token: token}
}

// AddBankAccount gives userID a method that cannot pay yet.
func (f *FakePayments) AddBankAccount(userID, id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.methods[id] = app.PaymentMethod{ID: id, UserID: userID, Name: "Cheque account", Token: "tok_bank"}
}

// FailNextCharges makes the next n charge calls fail with app.ErrUnavailable.
func (f *FakePayments) FailNextCharges(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failNext = n
}

// FailNextRefunds makes the next n refund calls fail with app.ErrUnavailable.
func (f *FakePayments) FailNextRefunds(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failNextRefunds = n
}

// OnCharge sets a hook run at the start of every charge call.
func (f *FakePayments) OnCharge(fn func(app.ChargeRequest)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.onCharge = fn
}

// GetPaymentMethod implements app.PaymentMethods: another user's method is not found.
func (f *FakePayments) GetPaymentMethod(_ context.Context, userID, id string) (app.PaymentMethod, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.getCalls++
	pm, ok := f.methods[id]
	if !ok || pm.UserID != userID {
		return app.PaymentMethod{}, app.ErrPaymentMethodNotFound
	}
	return pm, nil
}

// GetCalls is how many GetPaymentMethod calls were made.
func (f *FakePayments) GetCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.getCalls
}

// DeleteMethod removes a method, as a user deleting their card would.
func (f *FakePayments) DeleteMethod(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.methods, id)
}

// Charge implements app.PaymentMethods, once per idempotency key.
func (f *FakePayments) Charge(_ context.Context, req app.ChargeRequest) (app.ChargeResult, error) {
	f.mu.Lock()
	hook := f.onCharge
	f.mu.Unlock()
	if hook != nil {
		hook(req)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.chargeCalls[req.IdempotencyKey]++
	if f.failNext > 0 {
		f.failNext--
		return app.ChargeResult{}, fmt.Errorf("%w: fake paymentmethods down", app.ErrUnavailable)
	}
	if rec, ok := f.charges[req.IdempotencyKey]; ok {
		return rec.result, nil
	}
	var res app.ChargeResult
	switch req.Token {
	case TokenDecline:
		res = app.ChargeResult{ChargeID: "ch_declined_" + req.IdempotencyKey, DeclineCode: "card_declined", DeclineMessage: "Your card was declined."}
	case TokenInsufficient:
		res = app.ChargeResult{ChargeID: "ch_declined_" + req.IdempotencyKey, DeclineCode: "insufficient_funds", DeclineMessage: "Your card has insufficient funds."}
	case TokenRejected:
		return app.ChargeResult{}, fmt.Errorf("%w: payment method not found", app.ErrChargeRejected)
	default:
		res = app.ChargeResult{ChargeID: fmt.Sprintf("ch_%d", len(f.charges)+1), Approved: true}
	}
	f.charges[req.IdempotencyKey] = chargeRecord{req: req, result: res}
	f.processorCharges[req.IdempotencyKey]++
	return res, nil
}

// Refund implements app.PaymentMethods, once per idempotency key.
func (f *FakePayments) Refund(_ context.Context, req app.RefundRequest) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refundCalls[req.IdempotencyKey]++
	if f.failNextRefunds > 0 {
		f.failNextRefunds--
		return "", fmt.Errorf("%w: fake paymentmethods down", app.ErrUnavailable)
	}
	if rec, ok := f.refunds[req.IdempotencyKey]; ok {
		return rec.id, nil
	}
	id := fmt.Sprintf("re_%d", len(f.refunds)+1)
	f.refunds[req.IdempotencyKey] = refundRecord{req: req, id: id}
	return id, nil
}

// ListProcessorRecords implements app.ProcessorRecords: the charges and refunds made, by key,
// as the processor recorded them (PutProcessorRecord overrides them).
func (f *FakePayments) ListProcessorRecords(_ context.Context, keys []string) ([]app.ProcessorRecord, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failRecords {
		return nil, fmt.Errorf("%w: fake paymentmethods down", app.ErrUnavailable)
	}
	var out []app.ProcessorRecord
	for _, k := range keys {
		if r, ok := f.planted[k]; ok {
			out = append(out, r)
			continue
		}
		if c, ok := f.charges[k]; ok {
			out = append(out, app.ProcessorRecord{IdempotencyKey: k, Approved: c.result.Approved, Amount: c.req.Amount})
		}
		if r, ok := f.refunds[k]; ok {
			out = append(out, app.ProcessorRecord{IdempotencyKey: k, Refund: true, Approved: true, Amount: r.req.Amount})
		}
	}
	return out, nil
}

// PutProcessorRecord makes the processor's record of r.IdempotencyKey r (a processor that
// disagrees).
func (f *FakePayments) PutProcessorRecord(r app.ProcessorRecord) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.planted == nil {
		f.planted = map[string]app.ProcessorRecord{}
	}
	f.planted[r.IdempotencyKey] = r
}

// FailProcessorRecords makes ListProcessorRecords fail as if paymentmethods were down.
func (f *FakePayments) FailProcessorRecords(fail bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failRecords = fail
}

// ChargeCalls is how often a charge with key was asked for.
func (f *FakePayments) ChargeCalls(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.chargeCalls[key]
}

// ProcessorCharges is how many charges were actually made under key (approved or declined),
// not counting the repeats answered from the ledger: 1 for a key charged once.
func (f *FakePayments) ProcessorCharges(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.processorCharges[key]
}

// TotalChargeCalls is how many charge calls were made in all.
func (f *FakePayments) TotalChargeCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.chargeCalls {
		n += c
	}
	return n
}

// Charged returns the approved charge made under key (money taken), if any.
func (f *FakePayments) Charged(key string) (domain.Money, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rec, ok := f.charges[key]
	if !ok || !rec.result.Approved {
		return domain.Money{}, false
	}
	return rec.req.Amount, true
}

// ApprovedCharges counts the approved charges (money taken).
func (f *FakePayments) ApprovedCharges() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, rec := range f.charges {
		if rec.result.Approved {
			n++
		}
	}
	return n
}

// RefundCalls is how often a refund with key was asked for.
func (f *FakePayments) RefundCalls(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.refundCalls[key]
}

// Refunded returns the refund made under key: the charge and the amount.
func (f *FakePayments) Refunded(key string) (chargeID string, amount domain.Money, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rec, ok := f.refunds[key]
	return rec.req.ChargeID, rec.req.Amount, ok
}

// FakeFees prices as DECISIONS.md's seed schedule: the bank's base fee plus 0.3 % rounded
// half-up. Its waiver answer is set by the test (the real one lags behind events).
type FakeFees struct {
	mu     sync.Mutex
	waived bool
	err    error
	calls  int
}

// NewFakeFees returns fees that quote no waiver.
func NewFakeFees() *FakeFees { return &FakeFees{} }

// SetWaived sets what the next quotes say about the waiver.
func (f *FakeFees) SetWaived(w bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waived = w
}

// SetError makes quotes fail with err (nil: succeed).
func (f *FakeFees) SetError(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

// Calls is how many quotes were asked for.
func (f *FakeFees) Calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// BankFees is the seed schedule's base fee per bank, in cents.
var BankFees = map[domain.Bank]int64{
	domain.StandardBank: 1095, domain.ABSA: 850, domain.FNB: 1095, domain.Nedbank: 850, domain.Capitec: 1000,
}

// PlatformFee is 0.3 % of amount, rounded half-up.
func PlatformFee(amount int64) int64 { return (amount*30 + 5000) / 10000 }

// Quote implements app.Fees.
func (f *FakeFees) Quote(_ context.Context, bank domain.Bank, amount domain.Money) (domain.Quote, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.err != nil {
		return domain.Quote{}, f.err
	}
	return domain.Quote{
		BankFee:     domain.Cents(BankFees[bank]),
		PlatformFee: domain.Cents(PlatformFee(amount.Cents())),
		Waived:      f.waived,
	}, nil
}
