package domain_test

import (
	"math"
	"testing"

	"github.com/thumela/thumela/services/fees/internal/domain"
)

func TestBasisPointsRoundsHalfUp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cents, bps int64
		want       int64
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
		{-50, 100, -1},      // half away from zero for negatives
		{-49, 100, 0},       // below half
		{math.MaxInt64, 10000, math.MaxInt64},
		{math.MaxInt64, 30, 27670116110564327}, // 9223372036854775807 * 0.003 = 27670116110564327.42
	}
	for _, tt := range tests {
		got := domain.Cents(tt.cents).BasisPoints(int32(tt.bps)).Cents()
		if got != tt.want {
			t.Errorf("%d c at %d bps = %d c, want %d c", tt.cents, tt.bps, got, tt.want)
		}
	}
}

func TestMoneyString(t *testing.T) {
	t.Parallel()
	for cents, want := range map[int64]string{0: "R0,00", 5: "R0,05", 99999: "R999,99", 123456: "R1\u00a0234,56", -1095: "-R10,95",
		100_000_000: "R1\u00a0000\u00a0000,00", -123456789: "-R1\u00a0234\u00a0567,89"} {
		if got := domain.Cents(cents).String(); got != want {
			t.Errorf("Cents(%d) = %q, want %q", cents, got, want)
		}
	}
}

func TestNewQuote(t *testing.T) {
	t.Parallel()
	capitec := domain.BankFee{Bank: domain.Capitec, BaseFee: domain.Cents(1000), PercentageBps: 30}
	tests := []struct {
		name                                 string
		amount                               int64
		wantBank, wantPlatform, wantTotalFee int64
		wantTotal                            int64
		wantErr                              bool
	}{
		{"R100", 10000, 1000, 30, 1030, 11030, false},
		{"R1.67", 167, 1000, 1, 1001, 1168, false},
		{"R1.66", 166, 1000, 0, 1000, 1166, false},
		{"one cent", 1, 1000, 0, 1000, 1001, false},
		{"maximum", domain.MaxAmountCents, 1000, 300000, 301000, domain.MaxAmountCents + 301000, false},
		{"zero", 0, 0, 0, 0, 0, true},
		{"negative", -100, 0, 0, 0, 0, true},
		{"above maximum", domain.MaxAmountCents + 1, 0, 0, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q, err := domain.NewQuote(domain.Cents(tt.amount), capitec, false)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("NewQuote(%d) accepted the amount", tt.amount)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := []int64{q.BankFee.Cents(), q.PlatformFee.Cents(), q.Fee().Cents(), q.Total().Cents()}
			want := []int64{tt.wantBank, tt.wantPlatform, tt.wantTotalFee, tt.wantTotal}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("quote (bank, platform, total fee, total) = %v, want %v", got, want)
				}
			}
		})
	}
}
