// Package randfmt writes integer cents as rand, in the two forms the product uses: en-ZA as the
// web client writes money (every text a sender reads on a screen or in an e-mail), and plain
// ASCII where the channel needs it (an SMS must stay GSM 7-bit; the ATM's screens).
package randfmt

import (
	"fmt"
	"strconv"

	"github.com/thumela/thumela/services/platform/intconv"
)

// noBreakSpace groups the thousands of EnZA, as en-ZA's Intl.NumberFormat does: a line is never
// broken inside an amount.
const noBreakSpace = "\u00a0"

// EnZA writes cents as the web client, the PDFs and the statements do: "R1 234,56"
// (Intl.NumberFormat('en-ZA') with two decimals and the prefix R, no space after it), the
// thousands grouped by U+00A0 NO-BREAK SPACE and a decimal comma; a negative amount reads
// "-R1 234,56" (web/src/lib/money.ts, formatMoney).
func EnZA(cents int64) string { return format(cents, noBreakSpace, ",") }

// ASCII writes cents as "R1,234.56" (or "-R1,234.56"), in plain ASCII.
func ASCII(cents int64) string { return format(cents, ",", ".") }

// format writes cents as rand: a minus for a negative amount, the prefix R, the whole rand
// grouped in threes by group, then decimal and the two digits of cents.
func format(cents int64, group, decimal string) string {
	sign, u := "", intconv.Abs(cents)
	if cents < 0 {
		sign = "-"
	}
	rands := strconv.FormatUint(u/100, 10)
	for i := len(rands) - 3; i > 0; i -= 3 {
		rands = rands[:i] + group + rands[i:]
	}
	return fmt.Sprintf("%sR%s%s%02d", sign, rands, decimal, u%100)
}
