// Package domain is the cash-out gateway's vocabulary: a withdrawal at an ATM and its reversal,
// the banks, the recipient's credentials (which never print), and the typed reasons a
// withdrawal fails, which the ISO 8583 port maps to response codes in one place.
package domain

import (
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"
)

// Bank is a bank whose ATMs pay out vouchers.
type Bank int

// The banks (the order of thumela.fees.v1.Bank).
const (
	BankUnspecified Bank = iota
	BankStandardBank
	BankABSA
	BankFNB
	BankNedbank
	BankCapitec
)

var bankSlugs = map[Bank]string{
	BankStandardBank: "standard_bank",
	BankABSA:         "absa",
	BankFNB:          "fnb",
	BankNedbank:      "nedbank",
	BankCapitec:      "capitec",
}

// String is the bank's configuration slug ("fnb").
func (b Bank) String() string {
	if s, ok := bankSlugs[b]; ok {
		return s
	}
	return "unspecified"
}

// ParseBank reads a slug: standard_bank, absa, fnb, nedbank, capitec.
func ParseBank(slug string) (Bank, error) {
	for b, s := range bankSlugs {
		if strings.EqualFold(strings.TrimSpace(slug), s) {
			return b, nil
		}
	}
	return BankUnspecified, fmt.Errorf("unknown bank %q (want one of %s)", slug, strings.Join(slices.Sorted(maps.Values(bankSlugs)), ", "))
}

// BankCodes maps acquiring institution ids (ISO 8583 DE 32) to banks.
type BankCodes map[string]Bank

// ParseBankCodes reads "<acquirer id>=<bank slug>" entries.
func ParseBankCodes(entries []string) (BankCodes, error) {
	codes := BankCodes{}
	for _, e := range entries {
		id, slug, ok := strings.Cut(strings.TrimSpace(e), "=")
		id = strings.TrimSpace(id)
		if !ok || id == "" || strings.Trim(id, "0123456789") != "" || len(id) > 11 {
			return nil, fmt.Errorf("bank code %q: want <acquirer id of up to 11 digits>=<bank>", e)
		}
		b, err := ParseBank(slug)
		if err != nil {
			return nil, fmt.Errorf("bank code %q: %w", e, err)
		}
		if _, dup := codes[id]; dup {
			return nil, fmt.Errorf("bank code %s is listed twice", id)
		}
		codes[id] = b
	}
	if len(codes) == 0 {
		return nil, errors.New("no bank codes")
	}
	return codes, nil
}

// Bank is the bank of acquirer id, or ErrUnknownAcquirer.
func (c BankCodes) Bank(acquirerID string) (Bank, error) {
	if b, ok := c[acquirerID]; ok {
		return b, nil
	}
	return BankUnspecified, ErrUnknownAcquirer
}

// Cents is an amount in ZAR cents.
type Cents int64

// PIN is the recipient's PIN, deciphered from the PIN block. It exists in memory only, for
// the one call that checks it: it never prints, logs or marshals as its digits.
type PIN struct{ digits string }

// NewPIN accepts 4 to 12 digits (what a format 4 PIN block can hold).
func NewPIN(digits string) (PIN, error) {
	if len(digits) < 4 || len(digits) > 12 || strings.Trim(digits, "0123456789") != "" {
		return PIN{}, ErrPINBlock
	}
	return PIN{digits: digits}, nil
}

// Reveal returns the digits, for the transfers call that checks them. Nothing else calls it.
func (p PIN) Reveal() string { return p.digits }

// String hides the PIN.
func (p PIN) String() string { return "[PIN]" }

// GoString hides the PIN from %#v.
func (p PIN) GoString() string { return "[PIN]" }

// LogValue hides the PIN from slog.
func (p PIN) LogValue() slog.Value { return slog.StringValue("[PIN]") }

// VoucherNumber is what the recipient typed as the voucher number (ISO 8583 DE 2): with the PIN
// and the phone number it pays out cash, so it prints as its last 4 digits only.
type VoucherNumber struct{ digits string }

// NewVoucherNumber accepts 1 to 19 digits (DE 2's form); whether it is a voucher number at all
// (10 digits) is for transfers to say.
func NewVoucherNumber(digits string) (VoucherNumber, error) {
	if len(digits) < 1 || len(digits) > 19 || strings.Trim(digits, "0123456789") != "" {
		return VoucherNumber{}, &FormatError{Field: "DE 2 voucher number"}
	}
	return VoucherNumber{digits: digits}, nil
}

// Reveal returns the digits, for the transfers call and the PIN block's PAN field.
func (v VoucherNumber) Reveal() string { return v.digits }

// Last4 is what logs may show.
func (v VoucherNumber) Last4() string {
	if len(v.digits) <= 4 {
		return v.digits
	}
	return v.digits[len(v.digits)-4:]
}

// String shows the last 4 digits only.
func (v VoucherNumber) String() string { return "…" + v.Last4() }

// GoString is String, for %#v.
func (v VoucherNumber) GoString() string { return v.String() }

// LogValue is String, for slog.
func (v VoucherNumber) LogValue() slog.Value { return slog.StringValue(v.String()) }

// Phone is the phone number typed at the ATM, personal data: it never prints.
type Phone struct{ number string }

// NewPhone accepts what was typed, up to 20 characters; transfers normalizes and compares it.
func NewPhone(s string) (Phone, error) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 20 {
		return Phone{}, &FormatError{Field: "DE 48 phone number"}
	}
	return Phone{number: s}, nil
}

// Reveal returns the number, for the transfers call.
func (p Phone) Reveal() string { return p.number }

// String hides the number.
func (p Phone) String() string { return "[phone]" }

// GoString hides the number from %#v.
func (p Phone) GoString() string { return "[phone]" }

// LogValue hides the number from slog.
func (p Phone) LogValue() slog.Value { return slog.StringValue("[phone]") }

// Withdrawal is one cardless withdrawal request from an ATM.
type Withdrawal struct {
	Voucher  VoucherNumber
	PIN      PIN
	Phone    Phone
	Bank     Bank
	ATMID    string // DE 41
	Location string // DE 43
	Amount   Cents  // DE 4
	// STAN and RRN are the switch's references (DE 11, DE 37); (Bank, RRN) names the request.
	STAN string
	RRN  string
}

// Reversal is the reversal that undoes the withdrawal with these references.
func (w Withdrawal) Reversal() Reversal {
	return Reversal{Bank: w.Bank, RRN: w.RRN, STAN: w.STAN, ATMID: w.ATMID, Amount: w.Amount, Voucher: w.Voucher}
}

// Reversal undoes a withdrawal an ATM could not complete, named by (Bank, RRN) and the
// original STAN, and repeating what the withdrawal said: its ATM, amount and voucher number.
// Transfers reverses nothing for a reversal that disagrees with the approved request on any of
// them (ErrReversalMismatch): references alone can be guessed on a switch link.
type Reversal struct {
	Bank    Bank
	RRN     string
	STAN    string
	ATMID   string        // DE 41
	Amount  Cents         // DE 4
	Voucher VoucherNumber // DE 2
}

// Collection is an approved withdrawal.
type Collection struct {
	TransferID  string
	Amount      Cents // what the ATM dispenses
	CollectedAt time.Time
}

// ReversalResult is transfers' answer to a reversal.
type ReversalResult struct {
	// Reversed: this reversal made the voucher collectable again (false for a repeat, or for a
	// request that collected nothing).
	Reversed   bool
	TransferID string // when known
}
