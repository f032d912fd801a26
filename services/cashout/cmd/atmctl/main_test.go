package main

import (
	"context"
	"testing"
	"time"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/cashout/atmnet"
	"github.com/thumela/thumela/services/cashout/cashouttest"
)

// On-call's reversal by hand makes a collected voucher collectable again, once.
func TestReverseByHand(t *testing.T) {
	t.Parallel()
	env := cashouttest.NewEnv(t, cashouttest.Options{})
	v := env.Transfers.Issue(t, feesv1.Bank_BANK_FNB, 50000)
	stan, rrn := atmnet.NewReferences(time.Now())
	req, err := atmnet.NewWithdrawal(atmnet.Withdrawal{
		VoucherNumber: v.Number, PIN: v.PIN, Phone: v.Phone, AmountCents: v.AmountCents,
		AcquirerID: atmnet.AcquirerFNB, TerminalID: "FNB00042", STAN: stan, RRN: rrn,
	}, env.Gateway.Keys.Current())
	if err != nil {
		t.Fatal(err)
	}
	res, err := env.Gateway.Dial(t).Do(context.Background(), req)
	if err != nil || res.ResponseCode != "00" {
		t.Fatalf("withdrawal: %+v, %v", res, err)
	}

	addr := "-addr=" + env.Gateway.ISOAddr
	if err := run([]string{addr, "echo"}); err != nil {
		t.Errorf("echo: %v", err)
	}
	args := []string{addr, "reverse", "-acquirer", atmnet.AcquirerFNB, "-rrn", rrn, "-stan", stan, "-terminal", "FNB00042", "-amount", "50000", "-voucher", v.Number}
	for range 2 { // the second is a repeat: acknowledged, nothing changes
		if err := run(args); err != nil {
			t.Fatalf("reverse: %v", err)
		}
		if got := env.Transfers.State(v.Number); got != cashouttest.Awaiting {
			t.Fatalf("voucher %s after the reversal", got)
		}
	}
	if err := run([]string{addr, "reverse", "-rrn", rrn}); err == nil {
		t.Error("a reversal without the bank and STAN was sent")
	}
	if err := run([]string{addr, "reverse", "-acquirer", atmnet.AcquirerFNB, "-rrn", rrn, "-stan", stan}); err == nil {
		t.Error("a reversal without the ATM, amount and voucher number was sent")
	}
}
