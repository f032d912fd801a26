package domain_test

import (
	"testing"
	"time"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// TestApplyCredit: a transfer's credit pays its fee, never its amount (min(balance, fee
// charged)), and the card pays the rest; a charge id is needed only when the card pays
// something; the credit returns with a failure, a cancel or an expiry, once.
func TestApplyCredit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		balance, applied int64
	}{
		{0, 0}, {-5, 0}, {500, 500}, {1150, 1150}, {5000, 1150}, {99_999, 1150},
	} {
		tr := newTransfer(t) // R500.00 and a fee of R11.50
		tr.ApplyCredit(domain.Cents(tc.balance))
		if tr.CreditApplied().Cents() != tc.applied || tr.CardCharge().Cents() != 51_150-tc.applied {
			t.Errorf("balance %d: applied %s, card %s", tc.balance, tr.CreditApplied(), tr.CardCharge())
		}
	}
	free := newTransfer(t)
	s := free.State()
	s.Fee.Waived = true // the sender's first transfer
	free = domain.Restore(s)
	free.ApplyCredit(domain.Cents(5000))
	if !free.CreditApplied().IsZero() || free.CardCharge().Cents() != 50_000 {
		t.Fatalf("a transfer without a fee took credit: applied %s, card %s", free.CreditApplied(), free.CardCharge())
	}

	charged := newTransfer(t)
	charged.ApplyCredit(domain.Cents(5000))
	if err := charged.ClaimCharge(t0, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	charged.ApplyCredit(domain.Cents(1)) // too late: only a new transfer takes credit
	if charged.CreditApplied().Cents() != 1150 {
		t.Fatalf("credit changed after the claim: %s", charged.CreditApplied())
	}

	// A transfer whose card was charged nothing (a row from before credit paid fees only):
	// it completes without a charge id, and its cancel owes no card refund.
	s = newTransfer(t).State()
	s.CreditApplied = domain.Cents(51_150)
	paid := domain.Restore(s)
	if err := paid.ClaimCharge(t0, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
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
