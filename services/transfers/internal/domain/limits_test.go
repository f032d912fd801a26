package domain_test

import (
	"errors"
	"testing"
	"time"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

func TestLimitsCheck(t *testing.T) {
	t.Parallel()
	l := domain.DefaultLimits
	r := func(c int64) domain.Money { return domain.Cents(c) }
	tests := []struct {
		name      string
		amount    int64
		usage     domain.Usage
		kind      domain.LimitKind // "" = allowed
		remaining int64
		msg       string
	}{
		{"minimum exactly", 1000, domain.Usage{}, "", 0, ""},
		{"below minimum", 999, domain.Usage{}, domain.LimitMinimum, 0, "The minimum transfer is R10,00."},
		{"per transfer exactly", 300000, domain.Usage{}, "", 0, ""},
		{"above per transfer", 300001, domain.Usage{}, domain.LimitPerTransfer, 300000,
			"This transfer exceeds the limit of R3\u00a0000,00 per transfer. You can send up to R3\u00a0000,00 in one transfer."},
		{"daily room exactly", 120000, domain.Usage{Day: r(380000), Month: r(380000), Year: r(380000)}, "", 0, ""},
		{"daily exceeded", 120001, domain.Usage{Day: r(380000), Month: r(380000), Year: r(380000)}, domain.LimitDaily, 120000,
			"This transfer exceeds your daily limit of R5\u00a0000,00. You can still send R1\u00a0200,00 today."},
		{"daily reached", 1000, domain.Usage{Day: r(500000), Month: r(500000), Year: r(500000)}, domain.LimitDaily, 0,
			"You have reached your daily limit of R5\u00a0000,00. You can send again tomorrow."},
		{"monthly binds before daily", 100000, domain.Usage{Day: r(400000), Month: r(2350000), Year: r(2350000)}, domain.LimitMonthly, 50000,
			"This transfer exceeds your monthly limit of R24\u00a0000,00. You can still send R500,00 this month."},
		{"yearly", 50000, domain.Usage{Year: r(9990000)}, domain.LimitYearly, 10000,
			"This transfer exceeds your yearly limit of R100\u00a0000,00. You can still send R100,00 this year."},
		{"per transfer binds when it is the least room", 400000, domain.Usage{Day: r(100000), Month: r(100000), Year: r(100000)}, domain.LimitPerTransfer, 300000, ""},
		{"daily binds when it is less than per transfer", 400000, domain.Usage{Day: r(300000), Month: r(300000), Year: r(300000)}, domain.LimitDaily, 200000, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := l.Check(domain.Cents(tt.amount), tt.usage)
			if tt.kind == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var le *domain.LimitError
			if !errors.As(err, &le) {
				t.Fatalf("err = %v, want a LimitError", err)
			}
			if le.Kind != tt.kind || le.Remaining.Cents() != tt.remaining {
				t.Fatalf("refused by %s with %s left, want %s with %d", le.Kind, le.Remaining, tt.kind, tt.remaining)
			}
			if tt.msg != "" && le.Error() != tt.msg {
				t.Fatalf("message %q, want %q", le.Error(), tt.msg)
			}
		})
	}
}

func TestPeriodsAreJohannesburgCalendar(t *testing.T) {
	t.Parallel()
	jhb := domain.Johannesburg
	tests := []struct {
		name                string
		now                 time.Time
		day, month, yearDay time.Time
	}{
		{"last second of March (SAST)", time.Date(2026, 3, 31, 23, 59, 59, 0, jhb),
			time.Date(2026, 3, 31, 0, 0, 0, 0, jhb), time.Date(2026, 3, 1, 0, 0, 0, 0, jhb), time.Date(2026, 1, 1, 0, 0, 0, 0, jhb)},
		{"22:00 UTC on 31 March is April in Johannesburg", time.Date(2026, 3, 31, 22, 0, 0, 0, time.UTC),
			time.Date(2026, 4, 1, 0, 0, 0, 0, jhb), time.Date(2026, 4, 1, 0, 0, 0, 0, jhb), time.Date(2026, 1, 1, 0, 0, 0, 0, jhb)},
		{"21:59 UTC on 31 December is still the old year", time.Date(2026, 12, 31, 21, 59, 0, 0, time.UTC),
			time.Date(2026, 12, 31, 0, 0, 0, 0, jhb), time.Date(2026, 12, 1, 0, 0, 0, 0, jhb), time.Date(2026, 1, 1, 0, 0, 0, 0, jhb)},
		{"22:00 UTC on 31 December is the new year", time.Date(2026, 12, 31, 22, 0, 0, 0, time.UTC),
			time.Date(2027, 1, 1, 0, 0, 0, 0, jhb), time.Date(2027, 1, 1, 0, 0, 0, 0, jhb), time.Date(2027, 1, 1, 0, 0, 0, 0, jhb)},
	}
	for _, tt := range tests {
		p := domain.PeriodsAt(tt.now)
		if !p.DayStart.Equal(tt.day) || !p.MonthStart.Equal(tt.month) || !p.YearStart.Equal(tt.yearDay) {
			t.Errorf("%s: periods %v, want %v %v %v", tt.name, p, tt.day, tt.month, tt.yearDay)
		}
	}
}

func TestLimitsReport(t *testing.T) {
	t.Parallel()
	got := domain.DefaultLimits.Report(domain.Usage{Day: domain.Cents(380000), Month: domain.Cents(1000000), Year: domain.Cents(1000000)})
	want := map[domain.LimitKind][3]int64{
		domain.LimitPerTransfer: {300000, 0, 120000},
		domain.LimitDaily:       {500000, 380000, 120000},
		domain.LimitMonthly:     {2400000, 1000000, 1400000},
		domain.LimitYearly:      {10000000, 1000000, 9000000},
		domain.LimitMinimum:     {1000, 0, 0},
	}
	if len(got) != len(want) {
		t.Fatalf("report %v", got)
	}
	for _, u := range got {
		if w := want[u.Kind]; u.Limit.Cents() != w[0] || u.Used.Cents() != w[1] || u.Remaining.Cents() != w[2] {
			t.Errorf("%s = %+v, want %v", u.Kind, u, w)
		}
	}
}

func TestLimitsValidate(t *testing.T) {
	t.Parallel()
	if err := domain.DefaultLimits.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := domain.DefaultLimits
	bad.Daily = domain.Cents(100)
	if bad.Validate() == nil {
		t.Fatal("a daily limit below the per-transfer limit was accepted")
	}
}
