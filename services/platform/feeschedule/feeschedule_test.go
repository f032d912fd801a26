package feeschedule_test

import (
	"errors"
	"math"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/platform/feeschedule"
)

// The same answers as the fees service's own tests of its Money.BasisPoints (which now
// delegates here).
func TestBasisPointsRoundsHalfUp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cents int64
		bps   int32
		want  int64
	}{
		{1, 30, 0},          // 0.003 c
		{166, 30, 0},        // 0.498 c
		{167, 30, 1},        // 0.501 c
		{333333, 30, 1000},  // 999.999 c
		{100000, 30, 300},   // exactly 300 c
		{50, 100, 1},        // exactly half a cent: up
		{49, 100, 0},        // 0.49 c
		{150, 100, 2},       // 1.5 c: up
		{300000, 30, 900},   // R3,000.00 at 0.3 %
		{1000, 0, 0},        // no percentage
		{1000, 10000, 1000}, // 100 %
		{1000, 20000, 1000}, // clamped to 100 %
		{1000, -5, 0},       // clamped to 0
		{-50, 100, -1},      // half away from zero for negatives
		{-49, 100, 0},       // below half
		{math.MaxInt64, 10000, math.MaxInt64},
		{math.MaxInt64, 30, 27670116110564327}, // 9223372036854775807 * 0.003 = 27670116110564327.42
		{math.MinInt64, 10000, math.MinInt64},
	}
	for _, tt := range tests {
		if got := feeschedule.BasisPoints(tt.cents, tt.bps); got != tt.want {
			t.Errorf("%d c at %d bps = %d c, want %d c", tt.cents, tt.bps, got, tt.want)
		}
	}
}

// The fees service's quote table (Capitec: R10.00 + 0.3 %) and the seed schedule's banks.
func TestSchedulePrice(t *testing.T) {
	t.Parallel()
	s := feeschedule.Schedule{Version: 3, Banks: []feeschedule.BankFee{
		{Bank: "capitec", DisplayName: "Capitec", BaseFeeCents: 1000, PercentageBps: 30},
		{Bank: "absa", DisplayName: "ABSA", BaseFeeCents: 850, PercentageBps: 30},
	}}
	tests := []struct {
		name           string
		bank           string
		amount         int64
		bankFee, plat  int64
		fallback, fail bool
	}{
		{"R100", "capitec", 10000, 1000, 30, false, false},
		{"R1.67", "capitec", 167, 1000, 1, false, false},
		{"R1.66", "capitec", 166, 1000, 0, false, false},
		{"one cent", "capitec", 1, 1000, 0, false, false},
		{"maximum", "capitec", feeschedule.MaxAmountCents, 1000, 300000, false, false},
		{"ABSA R100", "absa", 10000, 850, 30, false, false},
		{"bank without a row", "fnb", 10000, 1000, 30, true, false},
		{"unknown bank", "bogus", 10000, 1000, 30, true, false},
		{"unspecified bank", "", 10000, 1000, 30, true, false},
		{"zero", "capitec", 0, 0, 0, false, true},
		{"negative", "capitec", -100, 0, 0, false, true},
		{"above maximum", "capitec", feeschedule.MaxAmountCents + 1, 0, 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := s.Price(tt.bank, tt.amount)
			if tt.fail {
				if !errors.Is(err, feeschedule.ErrInvalidAmount) {
					t.Fatalf("Price(%d) = %v, want ErrInvalidAmount", tt.amount, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.BankFeeCents != tt.bankFee || p.PlatformFeeCents != tt.plat || p.Fallback != tt.fallback {
				t.Fatalf("Price = %+v, want bank %d platform %d fallback %v", p, tt.bankFee, tt.plat, tt.fallback)
			}
			if p.FeeCents() != tt.bankFee+tt.plat {
				t.Fatalf("FeeCents = %d", p.FeeCents())
			}
		})
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	in := feeschedule.Schedule{Version: 7, PublishedAt: at, Banks: []feeschedule.BankFee{
		{Bank: "standard_bank", DisplayName: "Standard Bank", BaseFeeCents: 1095, PercentageBps: 30},
		{Bank: "mystery", DisplayName: "Not in the contract", BaseFeeCents: 1, PercentageBps: 1},
	}}
	data, err := feeschedule.Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := feeschedule.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if out.Version != 7 || !out.PublishedAt.Equal(at) || len(out.Banks) != 1 || out.Banks[0] != in.Banks[0] {
		t.Fatalf("round trip = %+v", out)
	}
	for name, msg := range map[string]*feesv1.FeeSchedule{
		"no version":       {Banks: []*feesv1.BankFee{{Bank: feesv1.Bank_BANK_ABSA, BaseFeeCents: 850, PercentageFeeBps: 30}}},
		"negative fee":     {Version: 1, Banks: []*feesv1.BankFee{{Bank: feesv1.Bank_BANK_ABSA, BaseFeeCents: -1}}},
		"percentage > 100": {Version: 1, Banks: []*feesv1.BankFee{{Bank: feesv1.Bank_BANK_ABSA, PercentageFeeBps: 10001}}},
	} {
		data, err := proto.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := feeschedule.Decode(data); !errors.Is(err, feeschedule.ErrInvalidSchedule) {
			t.Errorf("%s: Decode = %v, want ErrInvalidSchedule", name, err)
		}
	}
	if _, err := feeschedule.Decode([]byte("not a proto \xff\xff")); !errors.Is(err, feeschedule.ErrInvalidSchedule) {
		t.Errorf("garbage: Decode = %v, want ErrInvalidSchedule", err)
	}
}

func TestBankMapping(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"standard_bank", "absa", "fnb", "nedbank", "capitec"} {
		if got := feeschedule.BankFromProto(feeschedule.BankToProto(key)); got != key {
			t.Errorf("%s maps back to %q", key, got)
		}
	}
	if feeschedule.BankToProto("bogus") != feesv1.Bank_BANK_UNSPECIFIED || feeschedule.BankFromProto(feesv1.Bank_BANK_UNSPECIFIED) != "" {
		t.Error("unknown banks must map to unspecified and back to empty")
	}
}

// The sentences name the real bounds: the ceiling's figure is spelled out in AmountProblem.
func TestAmountProblemAtTheBounds(t *testing.T) {
	for cents, want := range map[int64]string{
		feeschedule.MinAmountCents - 1: "The amount must be greater than zero.",
		-500:                           "The amount must be greater than zero.",
		feeschedule.MinAmountCents:     "",
		feeschedule.MaxAmountCents:     "",
		feeschedule.MaxAmountCents + 1: "The amount must be at most R1\u00a0000\u00a0000,00.",
	} {
		if got := feeschedule.AmountProblem(cents); got != want {
			t.Errorf("AmountProblem(%d) = %q, want %q", cents, got, want)
		}
		if (want == "") != feeschedule.ValidAmount(cents) {
			t.Errorf("AmountProblem(%d) = %q disagrees with ValidAmount", cents, want)
		}
	}
	if feeschedule.MaxAmountCents != 100_000_000 {
		t.Fatal("MaxAmountCents changed: change the figure in AmountProblem's sentence too")
	}
}
