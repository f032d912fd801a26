package domain_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

var t0 = time.Date(2026, time.March, 18, 12, 0, 0, 0, domain.Johannesburg)

func TestStatusNeverGoesBackwards(t *testing.T) {
	t.Parallel()
	allowed := map[[2]domain.Status]bool{
		{domain.StatusPending, domain.StatusProcessing}:   true,
		{domain.StatusProcessing, domain.StatusCompleted}: true,
		{domain.StatusProcessing, domain.StatusFailed}:    true,
	}
	for _, from := range append([]domain.Status{""}, domain.Statuses...) {
		for _, to := range append([]domain.Status{""}, domain.Statuses...) {
			want := allowed[[2]domain.Status{from, to}]
			if got := from.CanBecome(to); got != want {
				t.Errorf("%q → %q allowed = %v, want %v", from, to, got, want)
			}
		}
	}
}

func TestCollectionStatusTransitions(t *testing.T) {
	t.Parallel()
	all := []domain.CollectionStatus{"", domain.CollectionAwaiting, domain.CollectionCollected, domain.CollectionCancelled, domain.CollectionExpired}
	allowed := map[[2]domain.CollectionStatus]bool{
		{"", domain.CollectionAwaiting}:                         true,
		{domain.CollectionAwaiting, domain.CollectionCollected}: true,
		{domain.CollectionAwaiting, domain.CollectionCancelled}: true,
		{domain.CollectionAwaiting, domain.CollectionExpired}:   true,
		// The one way back: a reversal of the ATM request that collected it.
		{domain.CollectionCollected, domain.CollectionAwaiting}: true,
	}
	for _, from := range all {
		for _, to := range all {
			if got, want := from.CanBecome(to), allowed[[2]domain.CollectionStatus{from, to}]; got != want {
				t.Errorf("%q → %q allowed = %v, want %v", from, to, got, want)
			}
		}
	}
}

func newTransfer(t *testing.T) *domain.Transfer {
	t.Helper()
	req, err := domain.NewRequest(domain.RequestInput{
		IdempotencyKey: "k1", RecipientName: "Sipho Dlamini", RecipientPhone: "0821234567",
		Bank: domain.Capitec, AmountCents: 50_000, PaymentMethodID: "pm1",
	})
	if err != nil {
		t.Fatal(err)
	}
	fee := domain.Fee{BankFee: domain.Cents(1000), PlatformFee: domain.Cents(150)}
	return domain.NewTransfer(uuid.New(), uuid.New(), req, domain.PaymentMethodRef{ID: "pm1", Token: "tok"}, fee,
		domain.Sender{DisplayName: "Thandi N.", FirstName: "Thandi", Email: "thandi@example.com"}, t0)
}

// testPINs MACs PINs in the domain tests.
var testPINs = func() *domain.PINHasher {
	k, err := domain.NewPINKey([]byte("domain-test-pin-key-0123456789ab"))
	if err != nil {
		panic(err)
	}
	return domain.NewPINHasher(k)
}()

// voucher draws a voucher for tr.
func voucher(t *testing.T, tr *domain.Transfer) domain.IssuedVoucher {
	t.Helper()
	v, err := domain.NewVoucher(testPINs, tr.ID(), t0, domain.DefaultVoucherTTL)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Each state reached by a path of steps, and each step tried from it: only the state
// machine's arrows succeed.
func TestTransferSteps(t *testing.T) {
	t.Parallel()
	lease := t0.Add(time.Minute)
	steps := map[string]func(*testing.T, *domain.Transfer) error{
		"claim":    func(_ *testing.T, tr *domain.Transfer) error { return tr.ClaimCharge(t0, lease) },
		"complete": func(t *testing.T, tr *domain.Transfer) error { return tr.Complete("ch_1", voucher(t, tr), t0) },
		"fail":     func(_ *testing.T, tr *domain.Transfer) error { return tr.Fail("declined", t0) },
		"cancel":   func(_ *testing.T, tr *domain.Transfer) error { return tr.Cancel(t0) },
		"expire":   func(_ *testing.T, tr *domain.Transfer) error { return tr.Expire(t0.Add(8 * 24 * time.Hour)) },
		"collect":  func(_ *testing.T, tr *domain.Transfer) error { return tr.MarkCollected(t0) },
		"refunded": func(_ *testing.T, tr *domain.Transfer) error { return tr.Refunded("re_1", t0) },
	}
	tests := []struct {
		path []string
		ok   []string // steps allowed next
	}{
		{nil, []string{"claim"}},
		{[]string{"claim"}, []string{"complete", "fail"}},
		{[]string{"claim", "fail"}, nil},
		{[]string{"claim", "complete"}, []string{"cancel", "expire", "collect"}},
		{[]string{"claim", "complete", "cancel"}, []string{"refunded"}},
		{[]string{"claim", "complete", "expire"}, []string{"refunded"}},
		{[]string{"claim", "complete", "collect"}, nil},
		{[]string{"claim", "complete", "cancel", "refunded"}, nil},
	}
	for _, tt := range tests {
		for step, do := range steps {
			t.Run(fmt.Sprintf("%v then %s", tt.path, step), func(t *testing.T) {
				t.Parallel()
				tr := newTransfer(t)
				for _, p := range tt.path {
					if err := steps[p](t, tr); err != nil {
						t.Fatalf("path step %s: %v", p, err)
					}
				}
				before := tr.State()
				err := do(t, tr)
				want := false
				for _, ok := range tt.ok {
					want = want || ok == step
				}
				if want && err != nil {
					t.Fatalf("%s refused: %v", step, err)
				}
				if !want {
					if !errors.Is(err, domain.ErrInvalidTransition) && !errors.Is(err, domain.ErrNotCancellable) {
						t.Fatalf("%s = %v, want a refusal", step, err)
					}
					if after := tr.State(); after.Status != before.Status || after.Voucher.Status != before.Voucher.Status {
						t.Fatalf("refused %s changed the transfer: %s/%s → %s/%s", step, before.Status, before.Voucher.Status, after.Status, after.Voucher.Status)
					}
				}
			})
		}
	}
}

func TestTransferEvents(t *testing.T) {
	t.Parallel()
	tr := newTransfer(t)
	if ev := tr.TakeEvents(); len(ev) != 1 || ev[0].(domain.StatusChanged).Previous != "" {
		t.Fatalf("created: events %v", ev)
	}
	if err := tr.ClaimCharge(t0, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if ev := tr.TakeEvents(); len(ev) != 1 || ev[0].(domain.StatusChanged).Previous != domain.StatusPending {
		t.Fatalf("claimed: events %v", ev)
	}
	// A processing transfer whose lease passed is taken over without a new status event.
	if err := tr.ClaimCharge(t0, t0.Add(time.Minute)); !errors.Is(err, domain.ErrInvalidTransition) {
		t.Fatalf("claim under a live lease: %v", err)
	}
	if err := tr.ClaimCharge(t0.Add(time.Minute), t0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if ev := tr.TakeEvents(); len(ev) != 0 || tr.Attempts() != 2 {
		t.Fatalf("take-over: events %v, attempts %d", ev, tr.Attempts())
	}
	v := voucher(t, tr)
	if err := tr.Complete("ch_1", v, t0); err != nil {
		t.Fatal(err)
	}
	ev := tr.TakeEvents()
	if len(ev) != 2 || ev[0].(domain.StatusChanged).Previous != domain.StatusProcessing || ev[1].(domain.VoucherIssued).PIN != v.PIN {
		t.Fatalf("completed: events %v", ev)
	}
	if tr.State().Voucher.PINHash == v.PIN || !testPINs.Verify(tr.State().Voucher.PINHash, tr.ID(), v.PIN) {
		t.Fatal("the stored PIN is not a hash of the PIN")
	}
	if err := tr.Cancel(t0); err != nil {
		t.Fatal(err)
	}
	if ev := tr.TakeEvents(); len(ev) != 1 {
		t.Fatalf("cancelled: events %v", ev)
	}
	if r := tr.Refund(); r.Status != domain.RefundPending || r.Reason != "cancelled" {
		t.Fatalf("refund after cancel = %+v", r)
	}
	// The refund made is an event of its own (the sender's e-mail); it happens once.
	if err := tr.ClaimRefund(t0, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := tr.Refunded("re_1", t0); err != nil {
		t.Fatal(err)
	}
	if ev := tr.TakeEvents(); len(ev) != 1 || ev[0] != (domain.RefundCompleted{At: t0}) {
		t.Fatalf("refunded: events %v", ev)
	}
	if err := tr.Refunded("re_1", t0); !errors.Is(err, domain.ErrInvalidTransition) || len(tr.TakeEvents()) != 0 {
		t.Fatalf("second refund: %v", err)
	}
}

// The sender's details are kept as the token gave them, trimmed; what could not be an address
// or a name is dropped or cut rather than failing the transfer.
func TestTransferKeepsTheSender(t *testing.T) {
	t.Parallel()
	req, err := domain.NewRequest(domain.RequestInput{
		IdempotencyKey: "k1", RecipientName: "Sipho Dlamini", RecipientPhone: "0821234567",
		Bank: domain.Capitec, AmountCents: 50_000, PaymentMethodID: "pm1",
	})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", domain.MaxSenderName+5)
	for _, tt := range []struct {
		in                 domain.Sender
		name, first, email string
	}{
		{domain.Sender{DisplayName: " Thandi N. ", FirstName: " Thandi ", Email: " thandi@example.com "}, "Thandi N.", "Thandi", "thandi@example.com"},
		{domain.Sender{DisplayName: "Thandi N.", FirstName: "Thandi", Email: "not an address"}, "Thandi N.", "Thandi", ""},
		{domain.Sender{FirstName: long, Email: strings.Repeat("a", 250) + "@example.com"}, "", long[:2*domain.MaxSenderName], ""},
	} {
		tr := domain.NewTransfer(uuid.New(), uuid.New(), req, domain.PaymentMethodRef{ID: "pm1", Token: "tok"}, domain.Fee{}, tt.in, t0)
		if s := tr.State(); s.SenderName != tt.name || s.SenderFirstName != tt.first || s.SenderEmail != tt.email {
			t.Errorf("sender %+v kept as %q %q %q", tt.in, s.SenderName, s.SenderFirstName, s.SenderEmail)
		}
		if !bytes.Equal(tr.RequestHash(), req.Hash()) {
			t.Error("the sender changed the request hash")
		}
	}
}

func TestTotals(t *testing.T) {
	t.Parallel()
	tr := newTransfer(t)
	if tr.Total().Cents() != 51_150 || tr.Reference() != tr.ID().String()[:8] {
		t.Fatalf("total %s, reference %s", tr.Total(), tr.Reference())
	}
	waived := domain.DecideFee(domain.Quote{BankFee: domain.Cents(1000), PlatformFee: domain.Cents(150), Waived: false}, false)
	if !waived.Waived || !waived.Charged().IsZero() || waived.Full().Cents() != 1150 {
		t.Fatalf("first transfer fee = %+v", waived)
	}
	charged := domain.DecideFee(domain.Quote{BankFee: domain.Cents(1000), PlatformFee: domain.Cents(150), Waived: true}, true)
	if charged.Waived || charged.Charged().Cents() != 1150 {
		t.Fatalf("later transfer fee = %+v", charged)
	}
}
