package domain

import (
	"errors"

	"github.com/thumela/thumela/services/platform/feeschedule"
)

// Bank identifies a bank at whose ATMs a recipient can withdraw cash. The values are the
// keys of the bank_fees table.
type Bank string

// The five banks of the cash-send network.
const (
	StandardBank Bank = "standard_bank"
	ABSA         Bank = "absa"
	FNB          Bank = "fnb"
	Nedbank      Bank = "nedbank"
	Capitec      Bank = "capitec"
)

// Banks lists the banks in the order the product shows them.
var Banks = []Bank{StandardBank, ABSA, FNB, Nedbank, Capitec}

// Known reports whether b is one of Banks.
func (b Bank) Known() bool {
	for _, k := range Banks {
		if b == k {
			return true
		}
	}
	return false
}

// Rank is b's position in Banks (len(Banks) for an unknown bank), for stable ordering.
func (b Bank) Rank() int {
	for i, k := range Banks {
		if b == k {
			return i
		}
	}
	return len(Banks)
}

// BankFee is one bank's cash-send fee schedule: a fixed fee plus a percentage of the amount.
type BankFee struct {
	Bank        Bank
	DisplayName string
	BaseFee     Money
	// PercentageBps is the platform fee in basis points of the amount (30 = 0.3 %).
	PercentageBps int32
}

// Shared converts f to the shared arithmetic's schedule (services/platform/feeschedule).
func (f BankFee) Shared() feeschedule.BankFee {
	return feeschedule.BankFee{Bank: string(f.Bank), DisplayName: f.DisplayName, BaseFeeCents: f.BaseFee.Cents(), PercentageBps: f.PercentageBps}
}

// Fallback is the schedule applied when the recipient's bank is unknown or its fee cannot be
// read: R10.00 + 0.3 % (feeschedule.Fallback, which the transfers service applies too).
var Fallback = BankFee{BaseFee: Cents(feeschedule.Fallback.BaseFeeCents), PercentageBps: feeschedule.Fallback.PercentageBps}

// Amount limits for a quote. The per-transfer limit (R3,000.00 by default) is the transfers
// service's to enforce, and configurable there; this bound only refuses amounts no transfer
// could ever have, so that the arithmetic stays far from overflow.
const (
	MinAmountCents = feeschedule.MinAmountCents
	MaxAmountCents = feeschedule.MaxAmountCents // R1 000 000,00
)

// ErrInvalidAmount is returned for an amount outside [MinAmountCents, MaxAmountCents].
var ErrInvalidAmount = errors.New("invalid amount")

// AmountError says why an amount was refused; it matches ErrInvalidAmount.
type AmountError struct{ Amount Money }

func (e *AmountError) Error() string { return feeschedule.AmountProblem(e.Amount.Cents()) }

// Is makes errors.Is(err, ErrInvalidAmount) true.
func (e *AmountError) Is(target error) bool { return target == ErrInvalidAmount }

// Quote is the price of one transfer.
type Quote struct {
	Amount      Money
	BankFee     Money
	PlatformFee Money
	// Fallback is true when the fallback schedule was applied.
	Fallback bool
}

// NewQuote prices amount with schedule: the bank's fixed fee plus the percentage of the
// amount rounded half-up to the cent, by the shared arithmetic (feeschedule), so that the
// transfers service, pricing from the published schedule, charges what this quote says.
func NewQuote(amount Money, schedule BankFee, fallback bool) (Quote, error) {
	if !feeschedule.ValidAmount(amount.Cents()) {
		return Quote{}, &AmountError{Amount: amount}
	}
	p := schedule.Shared().Price(amount.Cents())
	return Quote{
		Amount:      amount,
		BankFee:     Cents(p.BankFeeCents),
		PlatformFee: Cents(p.PlatformFeeCents),
		Fallback:    fallback,
	}, nil
}

// Fee is bank fee + platform fee, all charged: fees quotes the list price, and the
// first-transfer waiver is the transfers service's to apply.
func (q Quote) Fee() Money { return q.BankFee.Add(q.PlatformFee) }

// Total is the amount plus the fee.
func (q Quote) Total() Money { return q.Amount.Add(q.Fee()) }
