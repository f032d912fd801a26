// Command atmctl is on-call's switch: it sends the gateway the messages an ATM switch would, for
// the runbook in docs/cashout.md. It carries no PIN and needs no key.
//
//	atmctl -addr 127.0.0.1:8583 echo
//	atmctl -addr 127.0.0.1:8583 reverse -acquirer 250655 -rrn 633513123456 -stan 123456 \
//	  -terminal FNB00042 -amount 50000 -voucher 1234567890
//
// A reversal goes through the gateway to transfers' ReverseCollection, keyed by (bank, RRN), so
// sending one that was already applied changes nothing. It must repeat the withdrawal's ATM,
// amount and voucher number (from the dispute's record), or transfers reverses nothing (25).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/thumela/thumela/services/cashout/atmnet"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "atmctl:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	global := flag.NewFlagSet("atmctl", flag.ContinueOnError)
	addr := global.String("addr", "127.0.0.1:8583", "the gateway's ISO 8583 address (CASHOUT_ISO_ADDR)")
	timeout := global.Duration("timeout", 30*time.Second, "how long to wait for the answer")
	if err := global.Parse(args); err != nil {
		return err
	}
	if global.NArg() == 0 {
		return errors.New("want a command: echo or reverse")
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
	c, err := atmnet.Dial(ctx, *addr)
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
