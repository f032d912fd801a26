// Command atmctl is on-call's switch: it sends the gateway the messages an ATM switch would, for
// the runbook in docs/cashout.md. It carries no PIN, but every message is MAC'd, as a link's
// are: it reads the zone MAC keys from CASHOUT_ZONE_MAC_KEYS, in the gateway's own format
// (the secret's value as it is), and speaks as the key set -zone names (the first by default).
// The key is never a flag, which would show in the process list and the shell's history.
//
//	export CASHOUT_ZONE_MAC_KEYS=…   # from cashout-secrets
//	atmctl -addr 127.0.0.1:8583 echo
//	atmctl -addr 127.0.0.1:8583 -zone fnb-2026 reverse -acquirer 250655 -rrn 633513123456 \
//	  -stan 123456 -terminal FNB00042 -amount 50000 -voucher 1234567890
//
// A reversal goes through the gateway to transfers' ReverseCollection, keyed by (bank, RRN), so
// sending one that was already applied changes nothing. It must repeat the withdrawal's ATM,
// amount and voucher number (from the dispute's record), or transfers reverses nothing (25), and
// the key set must be one issued to the reversal's acquirer (DE 32), or the gateway answers 63.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/thumela/thumela/services/cashout/atmnet"
)

// macKeysVar holds the zone MAC keys, as the gateway reads them.
const macKeysVar = "CASHOUT_ZONE_MAC_KEYS"

func main() {
	if err := run(os.Args[1:], os.LookupEnv); err != nil {
		fmt.Fprintln(os.Stderr, "atmctl:", err)
		os.Exit(1)
	}
}

// run runs the command in args, reading the environment through lookup.
func run(args []string, lookup func(string) (string, bool)) error {
	global := flag.NewFlagSet("atmctl", flag.ContinueOnError)
	addr := global.String("addr", "127.0.0.1:8583", "the gateway's ISO 8583 address (CASHOUT_ISO_ADDR)")
	timeout := global.Duration("timeout", 30*time.Second, "how long to wait for the answer")
	zone := global.String("zone", "", "the id of the zone keys to speak as (DE 53): one issued to the reversal's acquirer; default the first of "+macKeysVar)
	if err := global.Parse(args); err != nil {
		return err
	}
	if global.NArg() == 0 {
		return errors.New("want a command: echo or reverse")
	}
	key, err := macKey(lookup, *zone)
	if err != nil {
		return err
	}
	var req *atmnet.Message
	stan, _ := atmnet.NewReferences(time.Now())
	switch cmd, rest := global.Arg(0), global.Args()[1:]; cmd {
	case "echo":
		req = atmnet.NewEcho(stan, time.Now())
	case "reverse":
		fs := flag.NewFlagSet("reverse", flag.ContinueOnError)
		acquirer := fs.String("acquirer", "", "DE 32 of the original withdrawal: the ATM's bank code (docs/cashout.md)")
		rrn := fs.String("rrn", "", "DE 37 of the original withdrawal")
		origSTAN := fs.String("stan", "", "DE 11 of the original withdrawal")
		terminal := fs.String("terminal", "", "DE 41 of the original withdrawal (the ATM)")
		amount := fs.Int64("amount", 0, "DE 4 of the original withdrawal, in cents")
		voucher := fs.String("voucher", "", "DE 2 of the original withdrawal: the voucher number")
		if err := fs.Parse(rest); err != nil {
			return err
		}
		if *acquirer == "" || *rrn == "" || *origSTAN == "" || *terminal == "" || *amount <= 0 || *voucher == "" {
			return errors.New("reverse needs -acquirer, -rrn, -stan, -terminal, -amount and -voucher")
		}
		original := &atmnet.Message{
			MTI:            atmnet.MTIAuthorizationRequest,
			VoucherNumber:  *voucher,
			ProcessingCode: atmnet.ProcessingCodeCardlessWithdrawal,
			AmountCents:    *amount,
			STAN:           *origSTAN,
			AcquirerID:     *acquirer,
			RRN:            *rrn,
			TerminalID:     *terminal,
			Currency:       atmnet.CurrencyZAR,
		}
		req = atmnet.NewReversal(original, stan, time.Now())
	default:
		return fmt.Errorf("unknown command %q: want echo or reverse", cmd)
	}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	c, err := atmnet.Dial(ctx, *addr, key)
	if err != nil {
		return err
	}
	defer c.Close() //nolint:errcheck // the command is done with the connection; nothing to do on error
	res, err := c.Do(ctx, req)
	if err != nil {
		return err
	}
	fmt.Printf("%s STAN %s RRN %s: %s %s\n", res.MTI, res.STAN, res.RRN, res.ResponseCode, atmnet.ResponseText(res.ResponseCode))
	if res.ResponseCode != atmnet.RespApproved {
		return fmt.Errorf("not acknowledged (%s)", res.ResponseCode)
	}
	return nil
}

// macKey is the zone MAC key named id (the first when id is empty) from CASHOUT_ZONE_MAC_KEYS.
// Errors name the variable and ids, never a key.
func macKey(lookup func(string) (string, bool), id string) (atmnet.MACKey, error) {
	v, ok := lookup(macKeysVar)
	if !ok || strings.TrimSpace(v) == "" {
		return atmnet.MACKey{}, fmt.Errorf("%s is not set: every message to the gateway is MAC'd under a zone MAC key (docs/cashout.md)", macKeysVar)
	}
	keys, err := atmnet.ParseMACKeys(strings.Split(v, ","))
	if err != nil {
		return atmnet.MACKey{}, fmt.Errorf("%s: %w", macKeysVar, err)
	}
	if id == "" {
		return keys[0], nil
	}
	for _, k := range keys {
		if k.ID() == id {
			return k, nil
		}
	}
	return atmnet.MACKey{}, fmt.Errorf("%s has no key %q", macKeysVar, id)
}
