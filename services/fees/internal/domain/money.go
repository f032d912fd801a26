// Package domain holds the pricing rules of a transfer: integer-cent money, the recipient
// bank's fee schedule, and the quote built from them.
package domain

import (
	"github.com/thumela/thumela/services/platform/feeschedule"
	"github.com/thumela/thumela/services/platform/randfmt"
)

// Money is an amount of South African rand in integer cents. It is never a float.
type Money struct{ cents int64 }

// Cents makes a Money of c cents.
func Cents(c int64) Money { return Money{cents: c} }

// Cents returns the amount in cents.
func (m Money) Cents() int64 { return m.cents }

// Add returns m + o. Callers keep amounts within MaxAmount, far from int64's range.
func (m Money) Add(o Money) Money { return Money{cents: m.cents + o.cents} }

// IsZero reports whether m is R0.00.
func (m Money) IsZero() bool { return m.cents == 0 }

// String formats m as the product's texts quote amounts, as the web client writes them:
// "R1 234,56" (or "-R1 234,56"), grouped by no-break spaces (platform/randfmt).
func (m Money) String() string { return randfmt.EnZA(m.cents) }

// MaxBasisPoints is 100 %.
const MaxBasisPoints = feeschedule.MaxBasisPoints

// BasisPoints returns bps/10 000 of m, rounded half-up to the cent (half away from zero for a
// negative amount), in integer arithmetic only; bps outside [0, MaxBasisPoints] is clamped. The
// arithmetic is the shared feeschedule's, the one the transfers service prices with too.
func (m Money) BasisPoints(bps int32) Money {
	return Money{cents: feeschedule.BasisPoints(m.cents, bps)}
}
