package domain_test

import (
	"testing"
	"time"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// TestApplyCredit: a transfer takes min(balance, total) and the card pays the rest; a charge
// id is needed only when the card pays something; the credit returns with a failure, a
// cancel or an expiry, once.
func TestApplyCredit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		balance, applied int64
	}{
		{0, 0}, {-5, 0}, {5000, 5000}, {51_150, 51_150}, {99_999, 51_150},
	} {
		tr := newTransfer(t) // total R511.50
		tr.ApplyCredit(domain.Cents(tc.balance))
		if tr.CreditApplied().Cents() != tc.applied || tr.CardCharge().Cents() != 51_150-tc.applied {
			t.Errorf("balance %d: applied %s, card %s", tc.balance, tr.CreditApplied(), tr.CardCharge())
		}
	}

	paid := newTransfer(t)
	paid.ApplyCredit(domain.Cents(60_000))
	if err := paid.ClaimCharge(t0, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	paid.ApplyCredit(domain.Cents(1)) // too late: only a new transfer takes credit
	if paid.CreditApplied().Cents() != 51_150 {
		t.Fatalf("credit changed after the claim: %s", paid.CreditApplied())
	}
	was := paid.State()
	if err := paid.Complete("", voucher(t, paid), t0); err != nil {
		t.Fatalf("a transfer paid by credit completes without a charge id: %v", err)
	}
	if !paid.Completed(was) || paid.CreditReturnDue(was) {
		t.Fatal("completion misread")
	}
	was = paid.State()
	if err := paid.Cancel(t0); err != nil {
		t.Fatal(err)
	}
	if !paid.CreditReturnDue(was) || paid.Refund().Status != domain.RefundRefunded {
		t.Fatalf("cancel of a credit-paid voucher: return due %v, refund %+v", paid.CreditReturnDue(was), paid.Refund())
	}

	part := newTransfer(t)
	part.ApplyCredit(domain.Cents(5000))
	_ = part.ClaimCharge(t0, t0.Add(time.Minute))
	if err := part.Complete("", voucher(t, part), t0); err == nil {
		t.Fatal("a transfer the card pays part of completed without a charge id")
	}
	was = part.State()
	if err := part.Fail("declined", t0); err != nil {
		t.Fatal(err)
	}
	if !part.CreditReturnDue(was) {
		t.Fatal("a failed transfer's credit is not returned")
	}
	if part.CreditReturnDue(part.State()) {
		t.Fatal("the return is due twice")
	}

	none := newTransfer(t)
	_ = none.ClaimCharge(t0, t0.Add(time.Minute))
	was = none.State()
	_ = none.Fail("declined", t0)
	if none.CreditReturnDue(was) {
		t.Fatal("a transfer without credit returns credit")
	}
}
