package domain_test

import (
	"errors"
	"testing"
	"time"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

func newPhone(t *testing.T, s string) domain.Phone {
	t.Helper()
	p, ok := domain.ParsePhone(s)
	if !ok {
		t.Fatalf("phone %q", s)
	}
	return p
}

// A resend re-issues the voucher: a new number and PIN, the expiry kept, the old attempts and
// lock gone; at most three times.
func TestResendVoucher(t *testing.T) {
	t.Parallel()
	tr, pin := issued(t)
	first := tr.Voucher()
	for range domain.MaxCollectAttempts {
		_ = collectAt(t, tr, otherPIN(pin), "R0", "", t0) // locked
	}
	tr.TakeEvents() // the and the lock's (collect_test.go)
	at := t0.Add(time.Hour)
	for i := 1; i <= domain.MaxVoucherResends; i++ {
		v := voucher(t, tr)
		if err := tr.ResendVoucher(v, at); err != nil {
			t.Fatalf("resend %d: %v", i, err)
		}
		got := tr.Voucher()
		if got.Number != v.Number || got.PINHash != v.PINHash || !got.ExpiresAt.Equal(first.ExpiresAt) || got.Resends != i ||
			got.FailedAttempts != 0 || !got.LockedUntil.IsZero() || got.Status != domain.CollectionAwaiting || got.Reissues() != i {
			t.Fatalf("after resend %d: %+v", i, got)
		}
		if evs := tr.TakeEvents(); len(evs) != 1 || evs[0] != (domain.VoucherReissued{PIN: v.PIN, Reissue: i, At: at, SamePhone: true}) {
			t.Fatalf("resend %d: events %v", i, evs)
		}
	}
	before := tr.Voucher()
	if err := tr.ResendVoucher(voucher(t, tr), at); !errors.Is(err, domain.ErrResendLimit) || tr.Voucher() != before || len(tr.TakeEvents()) != 0 {
		t.Fatalf("fourth resend: %v", err)
	}
	// Phone changes have their own count.
	if err := tr.ChangeRecipientPhone(newPhone(t, "083 555 0101"), voucher(t, tr), at); err != nil {
		t.Fatalf("phone change after three resends: %v", err)
	}
}

func TestChangeRecipientPhone(t *testing.T) {
	t.Parallel()
	tr, _ := issued(t)
	at := t0.Add(time.Hour)
	var verr *domain.ValidationError
	if err := tr.ChangeRecipientPhone(newPhone(t, "+27821234567"), voucher(t, tr), at); !errors.As(err, &verr) ||
		verr.Violations[0].Field != "recipient_phone" {
		t.Fatalf("the same number: %v", err)
	}
	phones := []string{"083 555 0101", "071 222 3333", "060 987 6543"}
	for i, p := range phones {
		v := voucher(t, tr)
		if err := tr.ChangeRecipientPhone(newPhone(t, p), v, at); err != nil {
			t.Fatalf("change %d: %v", i+1, err)
		}
		if s := tr.State(); s.RecipientPhone != newPhone(t, p) || s.Voucher.Number != v.Number || s.Voucher.PhoneChanges != i+1 {
			t.Fatalf("after change %d: %+v", i+1, s)
		}
		if evs := tr.TakeEvents(); len(evs) != 1 || evs[0].(domain.VoucherReissued).Reissue != i+1 {
			t.Fatalf("change %d: events %v", i+1, evs)
		}
	}
	if err := tr.ChangeRecipientPhone(newPhone(t, "082 999 8888"), voucher(t, tr), at); !errors.Is(err, domain.ErrPhoneChangeLimit) {
		t.Fatalf("fourth change: %v", err)
	}
	// The re-issue numbers go on across both kinds.
	if err := tr.ResendVoucher(voucher(t, tr), at); err != nil {
		t.Fatal(err)
	}
	if evs := tr.TakeEvents(); evs[0].(domain.VoucherReissued).Reissue != 4 {
		t.Fatalf("events %v", evs)
	}
}

// Only a voucher awaiting collection, before its expiry, is re-issued.
func TestReissueNeedsAVoucherAwaitingCollection(t *testing.T) {
	t.Parallel()
	pending := newTransfer(t)
	if err := pending.ResendVoucher(voucher(t, pending), t0); !errors.Is(err, domain.ErrVoucherNotAwaiting) {
		t.Fatalf("pending: %v", err)
	}
	for name, end := range map[string]func(*domain.Transfer, string) error{
		"cancelled":       func(tr *domain.Transfer, _ string) error { return tr.Cancel(t0) },
		"expired":         func(tr *domain.Transfer, _ string) error { return tr.Expire(t0.Add(domain.DefaultVoucherTTL)) },
		"collected":       func(tr *domain.Transfer, pin string) error { return collectAt(t, tr, pin, "R1", "", t0) },
		"past its expiry": func(*domain.Transfer, string) error { return nil },
	} {
		tr, pin := issued(t)
		if err := end(tr, pin); err != nil {
			t.Fatal(err)
		}
		at := t0.Add(time.Hour)
		if name == "past its expiry" {
			at = t0.Add(domain.DefaultVoucherTTL)
		}
		if err := tr.ResendVoucher(voucher(t, tr), at); !errors.Is(err, domain.ErrVoucherNotAwaiting) {
			t.Errorf("%s: resend %v", name, err)
		}
		if err := tr.ChangeRecipientPhone(newPhone(t, "083 555 0101"), voucher(t, tr), at); !errors.Is(err, domain.ErrVoucherNotAwaiting) {
			t.Errorf("%s: change phone %v", name, err)
		}
	}
}

// When the sender chose the PIN, a re-issue gives a new number and keeps their PIN.
func TestReissueKeepsTheSendersPIN(t *testing.T) {
	t.Parallel()
	in := validInput()
	in.SenderPIN = "4739"
	req, err := domain.NewRequest(in)
	if err != nil {
		t.Fatal(err)
	}
	tr := domain.NewTransfer(transferID, senderID, req.KeyedBy(testPINs), domain.PaymentMethodRef{ID: "pm", Token: "tok"},
		domain.Fee{}, domain.Sender{}, t0)
	_ = tr.ClaimCharge(t0, t0.Add(time.Minute))
	if err := tr.Complete("ch", voucher(t, tr), t0); err != nil {
		t.Fatal(err)
	}
	tr.TakeEvents()
	v := voucher(t, tr)
	if err := tr.ChangeRecipientPhone(newPhone(t, "083 555 0101"), v, t0); err != nil {
		t.Fatal(err)
	}
	got := tr.Voucher()
	if got.Number != v.Number || !got.PINChosenBySender || !testPINs.Verify(got.PINHash, transferID, "4739") {
		t.Fatalf("re-issued voucher %+v", got)
	}
	if evs := tr.TakeEvents(); evs[0].(domain.VoucherReissued).PIN != "" {
		t.Fatalf("the re-issue event carries a PIN: %v", evs)
	}
}

// The reminder is due once, in the 24 hours before the expiry, for a voucher awaiting
// collection that lived longer than that.
func TestRemindDue(t *testing.T) {
	t.Parallel()
	tr, pin := issued(t)
	expires := tr.Voucher().ExpiresAt
	for _, at := range []time.Time{t0, expires.Add(-domain.ReminderBefore - time.Second), expires, expires.Add(time.Hour)} {
		if tr.RemindDue(at) || tr.Remind(at) == nil {
			t.Fatalf("reminder due at %v", at)
		}
	}
	at := expires.Add(-domain.ReminderBefore)
	if err := tr.Remind(at); err != nil {
		t.Fatal(err)
	}
	if evs := tr.TakeEvents(); len(evs) != 1 || evs[0] != (domain.VoucherReminder{At: at}) || !tr.Voucher().ReminderSentAt.Equal(at) {
		t.Fatalf("events %v", evs)
	}
	if tr.RemindDue(at.Add(time.Hour)) {
		t.Fatal("a second reminder is due")
	}
	// Not once it is collected (nor cancelled or expired: none awaits collection).
	other, pin2 := issued(t)
	if err := collectAt(t, other, pin2, "R1", "", t0); err != nil {
		t.Fatal(err)
	}
	if other.RemindDue(at) {
		t.Fatal("a collected voucher is reminded")
	}
	// A voucher issued for 24 hours or less is not "reminded" at once.
	short := newTransfer(t)
	_ = short.ClaimCharge(t0, t0.Add(time.Minute))
	v, _ := domain.NewVoucher(testPINs, short.ID(), t0, domain.ReminderBefore)
	if err := short.Complete("ch", v, t0); err != nil {
		t.Fatal(err)
	}
	if short.RemindDue(t0.Add(time.Minute)) {
		t.Fatal("a one-day voucher is reminded")
	}
	_ = pin
}

// A voucher SMS that failed is the sender's to hear of while it matters: the voucher awaits
// collection at that number. A failure at a number the sender has changed since, or after the
// voucher was collected, cancelled or expired, records nothing.
func TestVoucherSMSFailed(t *testing.T) {
	t.Parallel()
	at := t0.Add(time.Hour)
	tr, _ := issued(t)
	old := newPhone(t, "+27821234567")
	if !tr.VoucherSMSFailed(old, "req-1", "The number is not reachable.", at) {
		t.Fatal("a failure at the recipient's number recorded nothing")
	}
	if evs := tr.TakeEvents(); len(evs) != 1 || evs[0] != (domain.VoucherSMSFailed{At: at, Delivery: "req-1", Reason: "The number is not reachable."}) {
		t.Fatalf("events %v", evs)
	}
	if err := tr.ChangeRecipientPhone(newPhone(t, "083 555 0101"), voucher(t, tr), at); err != nil {
		t.Fatal(err)
	}
	tr.TakeEvents()
	if tr.VoucherSMSFailed(old, "req-1", "", at) || len(tr.TakeEvents()) != 0 {
		t.Fatal("a failure at the number the sender changed was recorded")
	}
	if err := tr.Cancel(at); err != nil {
		t.Fatal(err)
	}
	tr.TakeEvents()
	if tr.VoucherSMSFailed(newPhone(t, "083 555 0101"), "req-2", "", at) || len(tr.TakeEvents()) != 0 {
		t.Fatal("a failure after the cancellation was recorded")
	}
}
