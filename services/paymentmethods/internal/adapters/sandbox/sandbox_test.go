package sandbox

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/thumela/thumela/services/paymentmethods/internal/app"
	"github.com/thumela/thumela/services/paymentmethods/internal/domain"
)

var now = time.Date(2026, 6, 15, 10, 0, 0, 0, domain.SouthAfrica)

func card(number string) app.Card {
	return app.Card{Number: domain.PANFromDigits([]byte(number)), Expiry: domain.Expiry{Month: 12, Year: 2030}, Holder: "Test"}
}

func withCVV(number string) app.Card {
	c := card(number)
	c.CVV = cvv("123")
	return c
}

// cvv builds a CVV through validation, the only way one is made outside the domain package.
func cvv(s string) domain.CVV {
	nc, err := domain.ValidateCard(domain.CardInput{Name: "x", Number: CardVisa, ExpiryMonth: 12, ExpiryYear: 2030, CVV: s}, now)
	if err != nil {
		panic(err)
	}
	return nc.CVV()
}

// The test cards of DECISIONS.md, at tokenization (Verify) and at charge time.
func TestTestCards(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                   string
		number                 string
		verifyCode, chargeCode string // "" = approved
	}{
		{"visa approves", CardVisa, "", ""},
		{"mastercard approves", CardMastercard, "", ""},
		{"declined (can be saved, charges declined)", CardDeclined, "", CodeCardDeclined},
		{"insufficient funds", CardInsufficientFunds, "", CodeInsufficientFunds},
		{"slow approves", CardSlow, "", ""},
		{"declined on charge only", CardDeclinedOnCharge, "", CodeCardDeclined},
		{"any other luhn-valid visa", "4539148803436467", "", ""},
		{"any other luhn-valid mastercard", "2221000000000009", "", ""},
		{"not luhn-valid", "4242424242424241", CodeIncorrectNumber, CodeIncorrectNumber},
	}
	p := New(Options{Now: func() time.Time { return now }})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := p.Verify(t.Context(), "v-"+tt.name, withCVV(tt.number))
			if err != nil {
				t.Fatal(err)
			}
			if v.Approved != (tt.verifyCode == "") || v.DeclineCode != tt.verifyCode {
				t.Fatalf("verify = %+v, want code %q", v, tt.verifyCode)
			}
			c, err := p.Charge(t.Context(), "c-"+tt.name, card(tt.number), domain.Cents(10_000), "")
			if err != nil {
				t.Fatal(err)
			}
			if c.Approved != (tt.chargeCode == "") || c.DeclineCode != tt.chargeCode {
				t.Fatalf("charge = %+v, want code %q", c, tt.chargeCode)
			}
			if c.Approved && c.Reference == "" || !c.Approved && c.DeclineMessage == "" {
				t.Fatalf("charge = %+v: approved without reference or declined without message", c)
			}
		})
	}
}

func TestMessagesAndExpiry(t *testing.T) {
	t.Parallel()
	p := New(Options{Now: func() time.Time { return now }})
	out, _ := p.Charge(t.Context(), "a", card(CardDeclined), domain.Cents(100), "")
	if out.DeclineMessage != MsgCardDeclined {
		t.Fatalf("message %q", out.DeclineMessage)
	}
	out, _ = p.Charge(t.Context(), "b", card(CardInsufficientFunds), domain.Cents(100), "")
	if out.DeclineMessage != MsgInsufficientFunds {
		t.Fatalf("message %q", out.DeclineMessage)
	}
	expired := card(CardVisa)
	expired.Expiry = domain.Expiry{Month: 5, Year: 2026}
	out, _ = p.Charge(t.Context(), "c", expired, domain.Cents(100), "")
	if out.Approved || out.DeclineCode != CodeExpiredCard {
		t.Fatalf("expired card: %+v", out)
	}
	out, _ = p.Verify(t.Context(), "d", card(CardVisa)) // no CVV
	if out.Approved || out.DeclineCode != CodeIncorrectCVC {
		t.Fatalf("verify without CVV: %+v", out)
	}
}

func TestDelays(t *testing.T) {
	t.Parallel()
	p := New(Options{Delay: 20 * time.Millisecond, SlowDelay: 300 * time.Millisecond})
	began := time.Now()
	if _, err := p.Charge(t.Context(), "fast", card(CardVisa), domain.Cents(100), ""); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(began); d < 20*time.Millisecond || d > 250*time.Millisecond {
		t.Fatalf("ordinary charge took %s", d)
	}
	began = time.Now()
	out, err := p.Charge(t.Context(), "slow", card(CardSlow), domain.Cents(100), "")
	if err != nil || !out.Approved {
		t.Fatalf("slow card: %+v %v", out, err)
	}
	if d := time.Since(began); d < 300*time.Millisecond {
		t.Fatalf("slow card took only %s", d)
	}
	if New(Options{}).opts.Delay != 0 || DefaultDelay != time.Second || DefaultSlowDelay != 10*time.Second {
		t.Fatal("defaults changed")
	}
}

// The same key charges once, also when ten calls arrive together; a key reused for another
// amount is refused; a call cancelled before the processor answered is forgotten.
func TestIdempotentPerKey(t *testing.T) {
	t.Parallel()
	p := New(Options{Delay: 50 * time.Millisecond})
	var (
		wg   sync.WaitGroup
		refs [10]string
	)
	for i := range refs {
		wg.Go(func() {
			out, err := p.Charge(context.Background(), "transfer-1", card(CardVisa), domain.Cents(5_000), "")
			if err != nil || !out.Approved {
				t.Errorf("charge %d: %+v %v", i, out, err)
			}
			refs[i] = out.Reference
		})
	}
	wg.Wait()
	for _, r := range refs {
		if r != refs[0] {
			t.Fatalf("references differ: %v", refs)
		}
	}
	if n := p.executions.Load(); n != 1 {
		t.Fatalf("%d charges executed, want 1", n)
	}
	if _, err := p.Charge(t.Context(), "transfer-1", card(CardVisa), domain.Cents(6_000), ""); !errors.Is(err, ErrIdempotencyMismatch) {
		t.Fatalf("same key, other amount: %v", err)
	}
	if _, err := p.Charge(t.Context(), "transfer-2", card(CardVisa), domain.Cents(5_000), ""); err != nil || p.executions.Load() != 2 {
		t.Fatalf("a new key: %v, executions %d", err, p.executions.Load())
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := p.Charge(ctx, "transfer-3", card(CardVisa), domain.Cents(5_000), ""); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	if out, err := p.Charge(t.Context(), "transfer-3", card(CardVisa), domain.Cents(5_000), ""); err != nil || !out.Approved {
		t.Fatalf("retry after a cancelled call: %+v %v", out, err)
	}

	r1, err := p.Refund(t.Context(), "refund-1", refs[0], domain.Cents(5_000))
	if err != nil || !r1.Approved {
		t.Fatalf("refund: %+v %v", r1, err)
	}
	r2, _ := p.Refund(t.Context(), "refund-1", refs[0], domain.Cents(5_000))
	if r2.Reference != r1.Reference {
		t.Fatal("a repeated refund refunded again")
	}
}

// The sandbox keeps a record of every charge it decided and every refund it made, by key; a
// new sandbox over the same records (a restart) answers a repeated key from them.
func TestRecords(t *testing.T) {
	t.Parallel()
	store := NewMemoryStore()
	p := New(Options{Now: func() time.Time { return now }, Store: store})
	ch, err := p.Charge(t.Context(), "t-1", card(CardVisa), domain.Cents(10_000), "")
	if err != nil || !ch.Approved {
		t.Fatal(ch, err)
	}
	if _, err := p.Charge(t.Context(), "t-2", card(CardInsufficientFunds), domain.Cents(500), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Refund(t.Context(), "refund-t-1", ch.Reference, domain.Cents(10_000)); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Refund(t.Context(), "refund-none", "", domain.Cents(1)); err != nil {
		t.Fatal(err)
	}
	recs, err := p.Records(t.Context(), []string{"t-1", "t-2", "refund-t-1", "refund-none", "unknown"})
	if err != nil || len(recs) != 3 {
		t.Fatalf("records = %v, %v", recs, err)
	}
	by := map[string]app.ProcessorRecord{}
	for _, r := range recs {
		by[r.IdempotencyKey] = r
	}
	if r := by["t-1"]; r.Kind != app.RecordCharge || r.Status != domain.StatusApproved || r.Amount != domain.Cents(10_000) || r.ChargeID != ch.Reference {
		t.Errorf("charge = %+v", r)
	}
	if r := by["t-2"]; r.Status != domain.StatusDeclined || r.Amount != domain.Cents(500) {
		t.Errorf("declined = %+v", r)
	}
	if r := by["refund-t-1"]; r.Kind != app.RecordRefund || r.ChargeID != ch.Reference || r.Amount != domain.Cents(10_000) {
		t.Errorf("refund = %+v", r)
	}

	restarted := New(Options{Now: func() time.Time { return now }, Store: store})
	again, err := restarted.Charge(t.Context(), "t-1", card(CardVisa), domain.Cents(10_000), "")
	if err != nil || again != ch || restarted.executions.Load() != 1 {
		t.Fatalf("after a restart: %v, %v (first %v)", again, err, ch)
	}
	if _, err := restarted.Charge(t.Context(), "t-1", card(CardVisa), domain.Cents(9_999), ""); !errors.Is(err, ErrIdempotencyMismatch) {
		t.Fatalf("another amount under a recorded key: %v", err)
	}
}
