package handlers

import (
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
)

// The sender's view of a voucher carries its lock, so the web can say why the recipient is
// refused at the ATM (and that a resend gives a voucher without it).
func TestTransferToBFFCarriesTheVouchersLock(t *testing.T) {
	t.Parallel()
	until := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	tr := &transfersv1.Transfer{Id: "t1", Voucher: &transfersv1.Voucher{
		Number: "5930481726", LockedUntil: timestamppb.New(until), ResendsLeft: 3, PhoneChangesLeft: 3,
	}}
	v := transferToBFF(tr).GetVoucher()
	if got := v.GetLockedUntil(); got == nil || !got.AsTime().Equal(until) {
		t.Fatalf("locked_until = %v, want %v", got, until)
	}
	tr.Voucher.LockedUntil = nil
	if got := transferToBFF(tr).GetVoucher().GetLockedUntil(); got != nil {
		t.Fatalf("a voucher never locked: locked_until = %v", got)
	}
}

// A schedule's card shows what each send charges: the BFF passes the fee and the total on.
func TestScheduleToBFFCarriesTheFeePerSend(t *testing.T) {
	t.Parallel()
	s := scheduleToBFF(&transfersv1.Schedule{Id: "s1", AmountCents: 15_000, FeeCents: 1_045, TotalCents: 16_045})
	if s.GetFeeCents() != 1_045 || s.GetTotalCents() != 16_045 {
		t.Fatalf("fee %d total %d, want 1045 and 16045", s.GetFeeCents(), s.GetTotalCents())
	}
}
