package domain

import (
	"errors"
	"fmt"
	"time"
	_ "time/tzdata" // Africa/Johannesburg even where the system has no zoneinfo (scratch images)
)

// Johannesburg is the time zone in which days, months and years of the limits are counted.
var Johannesburg = mustLoad("Africa/Johannesburg")

func mustLoad(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err) // embedded by time/tzdata
	}
	return loc
}

// LimitKind names one of the sender's limits.
type LimitKind string

// The limits of DECISIONS.md.
const (
	LimitMinimum     LimitKind = "minimum"
	LimitPerTransfer LimitKind = "per_transfer"
	LimitDaily       LimitKind = "daily"
	LimitMonthly     LimitKind = "monthly"
	LimitYearly      LimitKind = "yearly"
)

// Limits bound what a sender may send, on the amount sent (fees do not count).
type Limits struct {
	Minimum     Money
	PerTransfer Money
	Daily       Money
	Monthly     Money
	Yearly      Money
}

// DefaultLimits are DECISIONS.md's: R10.00 minimum, R3,000.00 per transfer, R5,000.00 a day,
// R24,000.00 a calendar month, R100,000.00 a calendar year.
var DefaultLimits = Limits{
	Minimum:     Cents(1_000),
	PerTransfer: Cents(300_000),
	Daily:       Cents(500_000),
	Monthly:     Cents(2_400_000),
	Yearly:      Cents(10_000_000),
}

// Validate checks that the limits make sense together.
func (l Limits) Validate() error {
	if l.Minimum.Cents() <= 0 {
		return errors.New("the minimum must be positive")
	}
	if l.PerTransfer.Less(l.Minimum) || l.Daily.Less(l.PerTransfer) || l.Monthly.Less(l.Daily) || l.Yearly.Less(l.Monthly) {
		return errors.New("limits must grow: minimum <= per transfer <= daily <= monthly <= yearly")
	}
	return nil
}

// Periods are the starts of the current day, month and year in Johannesburg.
type Periods struct {
	DayStart, MonthStart, YearStart time.Time
}

// PeriodsAt returns the periods that contain now. South Africa keeps no daylight saving, so a
// day is always 24 hours; the calendar is still computed, not assumed.
func PeriodsAt(now time.Time) Periods {
	t := now.In(Johannesburg)
	y, m, d := t.Date()
	return Periods{
		DayStart:   time.Date(y, m, d, 0, 0, 0, 0, Johannesburg),
		MonthStart: time.Date(y, m, 1, 0, 0, 0, 0, Johannesburg),
		YearStart:  time.Date(y, time.January, 1, 0, 0, 0, 0, Johannesburg),
	}
}

// Usage is what the sender has sent in the current periods: the amounts of every transfer
// that has not failed and whose voucher was not cancelled or expired (refunded).
type Usage struct {
	Day, Month, Year Money
}

// LimitError refuses a transfer: which limit, and how much room is left. Its Error is the
// message the sender reads.
type LimitError struct {
	Kind      LimitKind
	Limit     Money
	Remaining Money
	minimum   Money
}

func (e *LimitError) Error() string {
	reached := e.Remaining.Less(e.minimum)
	switch e.Kind {
	case LimitMinimum:
		return fmt.Sprintf("The minimum transfer is %s.", e.Limit)
	case LimitPerTransfer:
		return fmt.Sprintf("This transfer exceeds the limit of %s per transfer. You can send up to %s in one transfer.", e.Limit, e.Remaining)
	case LimitDaily:
		if reached {
			return fmt.Sprintf("You have reached your daily limit of %s. You can send again tomorrow.", e.Limit)
		}
		return fmt.Sprintf("This transfer exceeds your daily limit of %s. You can still send %s today.", e.Limit, e.Remaining)
	case LimitMonthly:
		if reached {
			return fmt.Sprintf("You have reached your monthly limit of %s. You can send again next month.", e.Limit)
		}
		return fmt.Sprintf("This transfer exceeds your monthly limit of %s. You can still send %s this month.", e.Limit, e.Remaining)
	default:
		if reached {
			return fmt.Sprintf("You have reached your yearly limit of %s. You can send again next year.", e.Limit)
		}
		return fmt.Sprintf("This transfer exceeds your yearly limit of %s. You can still send %s this year.", e.Limit, e.Remaining)
	}
}

// room is one limit with what is left of it.
type room struct {
	kind      LimitKind
	limit     Money
	remaining Money
}

func (l Limits) rooms(u Usage) []room {
	return []room{
		{LimitPerTransfer, l.PerTransfer, l.PerTransfer},
		{LimitDaily, l.Daily, l.Daily.Sub(u.Day).nonNegative()},
		{LimitMonthly, l.Monthly, l.Monthly.Sub(u.Month).nonNegative()},
		{LimitYearly, l.Yearly, l.Yearly.Sub(u.Year).nonNegative()},
	}
}

// Check refuses amount when it is below the minimum or more than the room left. When several
// limits are exceeded, the one with the least room left is named (the shorter period on a
// tie), so that "you can still send" is always true.
func (l Limits) Check(amount Money, u Usage) error {
	if amount.Less(l.Minimum) {
		return &LimitError{Kind: LimitMinimum, Limit: l.Minimum, minimum: l.Minimum}
	}
	var binding *room
	for _, r := range l.rooms(u) {
		if r.remaining.Less(amount) && (binding == nil || r.remaining.Less(binding.remaining)) {
			binding = &r
		}
	}
	if binding == nil {
		return nil
	}
	return &LimitError{Kind: binding.kind, Limit: binding.limit, Remaining: binding.remaining, minimum: l.Minimum}
}

// LimitUsage is one limit as the sender's limits page shows it.
type LimitUsage struct {
	Kind      LimitKind
	Limit     Money
	Used      Money
	Remaining Money
}

// Report lists every limit with the usage against it. For the per-transfer limit, Remaining
// is the most the next transfer may be (the smallest room of all); the minimum has no usage.
func (l Limits) Report(u Usage) []LimitUsage {
	rs := l.rooms(u)
	most := rs[0].remaining
	for _, r := range rs[1:] {
		if r.remaining.Less(most) {
			most = r.remaining
		}
	}
	return []LimitUsage{
		{Kind: LimitPerTransfer, Limit: l.PerTransfer, Remaining: most},
		{Kind: LimitDaily, Limit: l.Daily, Used: u.Day, Remaining: rs[1].remaining},
		{Kind: LimitMonthly, Limit: l.Monthly, Used: u.Month, Remaining: rs[2].remaining},
		{Kind: LimitYearly, Limit: l.Yearly, Used: u.Year, Remaining: rs[3].remaining},
		{Kind: LimitMinimum, Limit: l.Minimum},
	}
}
