package main

import (
	"context"
	"strings"
	"testing"
	"time"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/cashout/atmnet"
	"github.com/thumela/thumela/services/cashout/cashouttest"
	"github.com/thumela/thumela/services/platform/config"
)

// On-call's reversal by hand makes a collected voucher collectable again, once.
func TestReverseByHand(t *testing.T) {
	t.Parallel()
	// Two links: one for every bank, one for ABSA's ATMs only.
	macKeys := "all-1:" + strings.Repeat("a1", 32) + ",absa-1:" + strings.Repeat("b2", 16)
	env := cashouttest.NewEnv(t, cashouttest.Options{
		ZonePINKeys: []string{"all-1:" + strings.Repeat("1a", 16) + ":" + cashouttest.AllAcquirers, "absa-1:" + strings.Repeat("2b", 16) + ":" + atmnet.AcquirerABSA},
		ZoneMACKeys: strings.Split(macKeys, ","),
	})
	lookup := config.MapLookup(map[string]string{"CASHOUT_ZONE_MAC_KEYS": macKeys})
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
	if err := run([]string{addr, "echo"}, lookup); err != nil {
		t.Errorf("echo: %v", err)
	}
	if err := run([]string{addr, "-zone", "absa-1", "echo"}, lookup); err != nil {
		t.Errorf("echo on ABSA's link: %v", err)
	}
	// Without the MAC keys nothing is sent; a -zone it does not have either.
	noKeys := config.MapLookup(map[string]string{})
	if err := run([]string{addr, "echo"}, noKeys); err == nil || !strings.Contains(err.Error(), "CASHOUT_ZONE_MAC_KEYS") {
		t.Errorf("echo without CASHOUT_ZONE_MAC_KEYS: %v", err)
	}
	if err := run([]string{addr, "-zone", "nedbank-1", "echo"}, lookup); err == nil || strings.Contains(err.Error(), "a1a1") {
		t.Errorf("echo as unknown zone keys: %v", err)
	}
	reverse := []string{"reverse", "-acquirer", atmnet.AcquirerFNB, "-rrn", rrn, "-stan", stan, "-terminal", "FNB00042", "-amount", "50000", "-voucher", v.Number}
	// ABSA's keys do not speak for FNB's ATMs: refused (63), nothing reversed.
	if err := run(append([]string{addr, "-zone", "absa-1"}, reverse...), lookup); err == nil || !strings.Contains(err.Error(), "63") {
		t.Errorf("a reversal of FNB's under ABSA's keys: %v, want not acknowledged (63)", err)
	}
	if got := env.Transfers.State(v.Number); got != cashouttest.Collected {
		t.Fatalf("voucher %s after a refused reversal", got)
	}
	args := append([]string{addr}, reverse...)
	for range 2 { // the second is a repeat: acknowledged, nothing changes
		if err := run(args, lookup); err != nil {
			t.Fatalf("reverse: %v", err)
		}
		if got := env.Transfers.State(v.Number); got != cashouttest.Awaiting {
			t.Fatalf("voucher %s after the reversal", got)
		}
	}
	if err := run([]string{addr, "reverse", "-rrn", rrn}, lookup); err == nil {
		t.Error("a reversal without the bank and STAN was sent")
	}
	if err := run([]string{addr, "reverse", "-acquirer", atmnet.AcquirerFNB, "-rrn", rrn, "-stan", stan}, lookup); err == nil {
		t.Error("a reversal without the ATM, amount and voucher number was sent")
	}
}
