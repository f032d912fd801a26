package domain

// Quote is a transfer's price before the first-transfer waiver: the recipient bank's fee and
// the platform fee, from the published schedule or the fees service's Quote.
type Quote struct {
	BankFee     Money
	PlatformFee Money
	// Waived is what the fees service said of the waiver: nothing now (fees quotes the list
	// price), a guess from a replica of an earlier release during a rolling deploy. It is never
	// used: DecideFee decides the waiver from the sender's own transfers.
	Waived bool
	// ScheduleVersion is the version of the published fee schedule the quote was computed from
	// locally; 0 when the fees service's Quote answered it.
	ScheduleVersion int64
	// Fallback: the schedule had no fee for the bank, and the fallback (R10.00 + 0.3 %) priced it.
	Fallback bool
}

// Full is bank fee + platform fee: the quoted price without the first-transfer waiver, which
// is what each send of a schedule charges unless it is the sender's very first transfer.
func (q Quote) Full() Money { return q.BankFee.Add(q.PlatformFee) }

// Fee is the fee stored on a transfer: its components always, and whether it was waived.
type Fee struct {
	BankFee     Money
	PlatformFee Money
	Waived      bool
	// ScheduleVersion is the fee schedule's version that priced it (0: the fees service's
	// Quote did).
	ScheduleVersion int64
}

// Full is bank fee + platform fee: what the fee is without a waiver.
func (f Fee) Full() Money { return f.BankFee.Add(f.PlatformFee) }

// Charged is what the sender pays in fees: zero when waived.
func (f Fee) Charged() Money {
	if f.Waived {
		return Money{}
	}
	return f.Full()
}

// DecideFee applies the first-transfer waiver (DECISIONS.md: the sender's first transfer
// carries no fee at all). The fees service's quote may lag behind, because it learns of
// transfers from events; the transfers service knows for certain, under the sender's lock,
// whether a transfer that has not failed exists, and that decides. The quote supplies the
// components.
func DecideFee(q Quote, hasTransferred bool) Fee {
	return Fee{BankFee: q.BankFee, PlatformFee: q.PlatformFee, Waived: !hasTransferred, ScheduleVersion: q.ScheduleVersion}
}
