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
