package domain_test

import (
	"errors"
	"testing"
	"time"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// issued is a completed transfer (Capitec, 082 123 4567) awaiting collection, and its PIN.
func issued(t *testing.T) (*domain.Transfer, string) {
	t.Helper()
	tr := newTransfer(t)
	if err := tr.ClaimCharge(t0, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	v := voucher(t, tr)
	if err := tr.Complete("ch_1", v, t0); err != nil {
		t.Fatal(err)
	}
	tr.TakeEvents()
	return tr, v.PIN
}

func collectReq(t *testing.T, pin, phone string, bank domain.Bank) domain.CollectRequest {
	t.Helper()
	r, err := domain.NewCollectRequest(domain.CollectInput{
		VoucherNumber: "0123456789", PIN: pin, RecipientPhone: phone, Bank: bank, ATMID: "ATM-1",
		AmountCents: 50_000, STAN: "000042", RRN: "612300000042",
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The credentials are judged first: a wrong PIN on a voucher at the wrong bank, or already
// collected, says only "incorrect", and counts.
func TestCollectJudgesCredentialsFirst(t *testing.T) {
	t.Parallel()
	tr, pin := issued(t)
	if err := tr.Collect(collectReq(t, otherPIN(pin), "0821234567", domain.FNB), testPINs, t0); !errors.Is(err, domain.ErrVoucherCredentials) {
		t.Fatalf("wrong PIN at the wrong bank: %v", err)
	}
	var bank *domain.WrongBankError
	if err := tr.Collect(collectReq(t, pin, "082 123 4567", domain.FNB), testPINs, t0); !errors.As(err, &bank) || bank.Bank != domain.Capitec {
		t.Fatalf("right PIN at the wrong bank: %v", err)
	}
	if err := tr.Collect(collectReq(t, pin, "+27821234567", domain.Capitec), testPINs, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if v := tr.Voucher(); v.Status != domain.CollectionCollected || !v.CollectedAt.Equal(t0.Add(time.Hour)) || v.CollectedATM != "ATM-1" || v.FailedAttempts != 1 {
		t.Fatalf("voucher = %+v", v)
	}
	if evs := tr.TakeEvents(); len(evs) != 1 || evs[0] != (domain.VoucherCollected{At: t0.Add(time.Hour), RRN: "612300000042"}) {
		t.Fatalf("events = %v", evs)
	}
	if err := tr.Collect(collectReq(t, otherPIN(pin), "0821234567", domain.Capitec), testPINs, t0); !errors.Is(err, domain.ErrVoucherCredentials) {
		t.Fatalf("wrong PIN on a collected voucher: %v", err)
	}
	if err := tr.Collect(collectReq(t, pin, "0821234567", domain.Capitec), testPINs, t0); !errors.Is(err, domain.ErrVoucherCollected) {
		t.Fatalf("right PIN on a collected voucher: %v", err)
	}
}

func TestCollectLocksAndUnlocks(t *testing.T) {
	t.Parallel()
	tr, pin := issued(t)
	tr.TakeEvents()
	bad := collectReq(t, otherPIN(pin), "0821234567", domain.Capitec)
	for i := 1; i < domain.MaxCollectAttempts; i++ {
		if err := tr.Collect(bad, testPINs, t0); !errors.Is(err, domain.ErrVoucherCredentials) {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	until := t0.Add(domain.CollectLockout)
	// The attempt that locks says so: the recipient learns it at the ATM there and then.
	var lockedNow *domain.VoucherLockedError
	if err := tr.Collect(bad, testPINs, t0); !errors.As(err, &lockedNow) || !lockedNow.Until.Equal(until) {
		t.Fatalf("attempt %d: %v, want the lock", domain.MaxCollectAttempts, err)
	}
	if v := tr.Voucher(); v.FailedAttempts != 5 || !v.LockedUntil.Equal(until) || !v.Locked(until.Add(-time.Nanosecond)) || v.Locked(until) {
		t.Fatalf("voucher = %+v", v)
	}
	// Only the attempt that locked it is an event: the sender is told once.
	if evs := tr.TakeEvents(); len(evs) != 1 || evs[0] != (domain.VoucherLocked{At: t0, Until: until}) {
		t.Fatalf("events = %v, want the lock", evs)
	}
	var locked *domain.VoucherLockedError
	if err := tr.Collect(collectReq(t, pin, "0821234567", domain.Capitec), testPINs, until.Add(-time.Second)); !errors.As(err, &locked) || !locked.Until.Equal(until) {
		t.Fatalf("right PIN while locked: %v", err)
	}
	// A wrong phone counts like a wrong PIN, on a fresh count once the lock passed.
	if err := tr.Collect(collectReq(t, pin, "0711112222", domain.Capitec), testPINs, until); !errors.Is(err, domain.ErrVoucherCredentials) {
		t.Fatalf("wrong phone: %v", err)
	}
	if v := tr.Voucher(); v.FailedAttempts != 1 || !v.LockedUntil.IsZero() {
		t.Fatalf("after the lock: %+v", v)
	}
	if evs := tr.TakeEvents(); len(evs) != 0 {
		t.Fatalf("events after the lock = %v, want none", evs)
	}
}

func TestCollectPastExpiry(t *testing.T) {
	t.Parallel()
	tr, pin := issued(t)
	if err := tr.Collect(collectReq(t, pin, "0821234567", domain.Capitec), testPINs, tr.Voucher().ExpiresAt); !errors.Is(err, domain.ErrVoucherExpired) {
		t.Fatalf("at expiry: %v", err)
	}
}

func TestNewCollectRequestChecksTheGatewaysFields(t *testing.T) {
	t.Parallel()
	_, err := domain.NewCollectRequest(domain.CollectInput{VoucherNumber: "x", Bank: "", ATMID: "", AmountCents: 1000, STAN: "1", RRN: "1"})
	var verr *domain.ValidationError
	if !errors.As(err, &verr) || len(verr.Violations) != 2 {
		t.Fatalf("err = %v", err)
	}
	r, err := domain.NewCollectRequest(domain.CollectInput{VoucherNumber: " 12345 ", Bank: domain.ABSA, ATMID: "a", AmountCents: 1000, STAN: "1", RRN: "1"})
	if err != nil || r.ValidNumber() {
		t.Fatalf("short number: %v valid=%v", err, r.ValidNumber())
	}
}
