// Package feeschedule is the arithmetic of a transfer's fee, shared by the fees service (which
// owns the banks' fee schedules and answers quotes) and the transfers service (which prices each
// transfer locally from the schedule fees publishes), so that both compute a fee with the same
// code: the recipient bank's fixed fee plus basis points of the amount, rounded half-up to the
// cent, in integer arithmetic only; the fallback R10.00 + 0.3 % for a bank without a schedule.
//
// It also encodes the published schedule (fees.v1.FeeSchedule, kept in the NATS KV bucket
// bus.BucketFeeSchedule under Key). It holds no business rule beyond the arithmetic: the
// first-transfer waiver stays with whoever decides it.
package feeschedule

import (
	"errors"
	"fmt"
	"math/bits"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/platform/intconv"
	"github.com/thumela/thumela/services/platform/randfmt"
)

// Key is the key of the current schedule in bus.BucketFeeSchedule.
const Key = "current"

// MaxBasisPoints is 100 %.
const MaxBasisPoints = 10_000

// Amount bounds of a quote. The per-transfer limit is the transfers service's to enforce;
// these only refuse amounts no transfer could ever have, so the arithmetic stays far from
// overflow.
const (
	MinAmountCents int64 = 1
	MaxAmountCents int64 = 100_000_000 // R1,000,000.00
)

// BasisPoints returns bps/10 000 of cents, rounded half-up to the cent (half away from zero
// for a negative amount). bps is clamped to [0, MaxBasisPoints]. The product is computed in
// 128 bits, so no int64 amount overflows.
func BasisPoints(cents int64, bps int32) int64 {
	bps = max(0, min(bps, MaxBasisPoints))
	neg := cents < 0
	u := intconv.Abs(cents)
	hi, lo := bits.Mul64(u, uint64(bps))
	// + 5 000 (half of the 10 000 divisor) rounds half-up.
	lo, carry := bits.Add64(lo, MaxBasisPoints/2, 0)
	hi += carry
	// hi < divisor always holds: u*bps/10 000 <= u, so the quotient fits in 64 bits.
	q, _ := bits.Div64(hi, lo, MaxBasisPoints)
	// q <= |cents| <= 2^63, and 2^63 only for a negative cents (math.MinInt64 at 10 000 bps),
	// whose -int64(q) is math.MinInt64 again: the conversions never change the result.
	if neg {
		return -int64(q) //nolint:gosec // G115: see above
	}
	return int64(q) //nolint:gosec // G115: q <= cents <= math.MaxInt64 here
}

// BankFee is one bank's cash-send fee schedule. Bank is the bank's key in the fees service's
// bank_fees table ("standard_bank", "absa", "fnb", "nedbank", "capitec").
type BankFee struct {
	Bank          string
	DisplayName   string
	BaseFeeCents  int64
	PercentageBps int32
}

// Fallback is the schedule applied when the recipient's bank is unknown or has no schedule:
// R10.00 + 0.3 %.
var Fallback = BankFee{BaseFeeCents: 1000, PercentageBps: 30}

// Price is a transfer's fee before any waiver.
type Price struct {
	BankFeeCents     int64
	PlatformFeeCents int64
	// Fallback is true when the fallback schedule was applied.
	Fallback bool
}

// FeeCents is bank fee + platform fee.
func (p Price) FeeCents() int64 { return p.BankFeeCents + p.PlatformFeeCents }

// ErrInvalidAmount is returned for an amount outside [MinAmountCents, MaxAmountCents].
var ErrInvalidAmount = errors.New("invalid amount")

// ValidAmount reports whether cents is within [MinAmountCents, MaxAmountCents].
func ValidAmount(cents int64) bool { return cents >= MinAmountCents && cents <= MaxAmountCents }

// AmountProblem says why cents cannot be priced, in the words the sender reads ("" when it
// can): fees' Quote and transfers' QuoteFee refuse an amount with the same sentence.
func AmountProblem(cents int64) string {
	switch {
	case cents < MinAmountCents:
		return "The amount must be greater than zero."
	case cents > MaxAmountCents:
		return "The amount must be at most " + randfmt.EnZA(MaxAmountCents) + "." // as the web writes money
	}
	return ""
}

// Price prices amountCents with f: the fixed fee plus the percentage rounded half-up.
func (f BankFee) Price(amountCents int64) Price {
	return Price{BankFeeCents: f.BaseFeeCents, PlatformFeeCents: BasisPoints(amountCents, f.PercentageBps)}
}

// Schedule is the whole fee schedule at one version.
type Schedule struct {
	// Version increases with every change of the schedule (a trigger on bank_fees bumps it).
	Version     int64
	Banks       []BankFee
	PublishedAt time.Time
}

// Lookup returns bank's schedule.
func (s Schedule) Lookup(bank string) (BankFee, bool) {
	for _, b := range s.Banks {
		if b.Bank == bank {
			return b, true
		}
	}
	return BankFee{}, false
}

// Price prices amountCents to bank; a bank without a schedule (unknown, unspecified, or
// without a row) gets the fallback, marked so. It refuses an amount outside the bounds.
func (s Schedule) Price(bank string, amountCents int64) (Price, error) {
	if !ValidAmount(amountCents) {
		return Price{}, fmt.Errorf("%w: %d cents", ErrInvalidAmount, amountCents)
	}
	if b, ok := s.Lookup(bank); ok && bank != "" {
		return b.Price(amountCents), nil
	}
	p := Fallback.Price(amountCents)
	p.Fallback = true
	return p, nil
}

// The banks of the contract (fees.v1.Bank) and their keys.
var banks = map[string]feesv1.Bank{
	"standard_bank": feesv1.Bank_BANK_STANDARD_BANK,
	"absa":          feesv1.Bank_BANK_ABSA,
	"fnb":           feesv1.Bank_BANK_FNB,
	"nedbank":       feesv1.Bank_BANK_NEDBANK,
	"capitec":       feesv1.Bank_BANK_CAPITEC,
}

// BankToProto maps a bank key to the contract's enum (BANK_UNSPECIFIED when unknown).
func BankToProto(key string) feesv1.Bank { return banks[key] }

// BankFromProto maps the contract's enum to a bank key ("" when unspecified or unknown).
func BankFromProto(b feesv1.Bank) string {
	for k, v := range banks {
		if v == b {
			return k
		}
	}
	return ""
}

// BankFeeToProto maps f to the contract; ok is false for a bank the contract does not have.
func BankFeeToProto(f BankFee) (*feesv1.BankFee, bool) {
	pb, ok := banks[f.Bank]
	if !ok {
		return nil, false
	}
	return &feesv1.BankFee{Bank: pb, DisplayName: f.DisplayName, BaseFeeCents: f.BaseFeeCents, PercentageFeeBps: f.PercentageBps}, true
}

// Encode marshals s as a fees.v1.FeeSchedule. Banks the contract does not have are left out.
func Encode(s Schedule) ([]byte, error) {
	msg := &feesv1.FeeSchedule{Version: s.Version}
	if !s.PublishedAt.IsZero() {
		msg.PublishedAt = timestamppb.New(s.PublishedAt)
	}
	for _, b := range s.Banks {
		if pb, ok := BankFeeToProto(b); ok {
			msg.Banks = append(msg.Banks, pb)
		}
	}
	return proto.Marshal(msg)
}

// ErrInvalidSchedule is returned by Decode for a payload that is not a usable schedule.
var ErrInvalidSchedule = errors.New("invalid fee schedule")

// Decode unmarshals a fees.v1.FeeSchedule. It refuses what no publisher writes (no version,
// a negative fee, a percentage outside [0, 100 %]) rather than pricing transfers with it.
func Decode(data []byte) (Schedule, error) {
	var msg feesv1.FeeSchedule
	if err := proto.Unmarshal(data, &msg); err != nil {
		return Schedule{}, fmt.Errorf("%w: %w", ErrInvalidSchedule, err)
	}
	if msg.GetVersion() <= 0 {
		return Schedule{}, fmt.Errorf("%w: version %d", ErrInvalidSchedule, msg.GetVersion())
	}
	s := Schedule{Version: msg.GetVersion()}
	if msg.GetPublishedAt() != nil {
		s.PublishedAt = msg.GetPublishedAt().AsTime()
	}
	for _, b := range msg.GetBanks() {
		key := BankFromProto(b.GetBank())
		if key == "" {
			continue // a bank this build does not know: its transfers get the fallback
		}
		if b.GetBaseFeeCents() < 0 || b.GetPercentageFeeBps() < 0 || b.GetPercentageFeeBps() > MaxBasisPoints {
			return Schedule{}, fmt.Errorf("%w: bank %s fee %d c + %d bps", ErrInvalidSchedule, key, b.GetBaseFeeCents(), b.GetPercentageFeeBps())
		}
		s.Banks = append(s.Banks, BankFee{Bank: key, DisplayName: b.GetDisplayName(), BaseFeeCents: b.GetBaseFeeCents(), PercentageBps: b.GetPercentageFeeBps()})
	}
	return s, nil
}
