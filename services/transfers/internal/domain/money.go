// Package domain holds the rules of a cash-send transfer: integer-cent money, the validated
// request, the sender's limits in Africa/Johannesburg time, the fee decision with the
// first-transfer waiver, the transfer's state machine and its cash voucher.
package domain

import (
	"github.com/thumela/thumela/services/platform/randfmt"
)

// Money is an amount of South African rand in integer cents, never a float.
type Money struct{ cents int64 }

// Cents makes a Money of c cents.
func Cents(c int64) Money { return Money{cents: c} }

// Cents returns the amount in cents.
func (m Money) Cents() int64 { return m.cents }

// Add returns m + o. Amounts stay far below int64's range (a transfer is at most a few
// thousand rand; a year's usage at most the yearly limit).
func (m Money) Add(o Money) Money { return Money{cents: m.cents + o.cents} }

// Sub returns m - o.
func (m Money) Sub(o Money) Money { return Money{cents: m.cents - o.cents} }

// Less reports whether m < o.
func (m Money) Less(o Money) bool { return m.cents < o.cents }

// IsZero reports whether m is R0.00.
func (m Money) IsZero() bool { return m.cents == 0 }

// String formats m as the texts a sender reads quote amounts (a limit's refusal, shown by the
// web and in the scheduled-send e-mail), as the web client writes them: en-ZA with the prefix R,
// "R1 234,56" (or "-R1 234,56"), the thousands grouped by U+00A0 NO-BREAK SPACE and a decimal
// comma (web/src/lib/money.ts, formatMoney). The SMS and the ATM, which must stay ASCII, format
// their amounts from cents where they are written (notifications, cashout).
func (m Money) String() string { return randfmt.EnZA(m.cents) }

// nonNegative returns m, or zero when m is negative.
func (m Money) nonNegative() Money {
	if m.cents < 0 {
		return Money{}
	}
	return m
}
