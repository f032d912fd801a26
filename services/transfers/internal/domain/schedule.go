package domain

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// Recurring sends ("Send R500 to Thandi every Friday"). A schedule is the sender's standing
// order: the recipient, the amount, the card and the fee quoted when it was made, and the dates
// on which the scheduler makes one ordinary transfer each. Dates are calendar days in
// Africa/Johannesburg, the days the sender lives by.

// Date is a calendar day (no time, no zone): YYYY-MM-DD. The zero Date is "none".
type Date struct {
	y int
	m time.Month
	d int
}

// DateOf is the Johannesburg calendar day of the instant t.
func DateOf(t time.Time) Date {
	y, m, d := t.In(Johannesburg).Date()
	return Date{y, m, d}
}

// NewDate is the day y-m-d, normalised as time.Date does (month 13 is next January).
func NewDate(y int, m time.Month, d int) Date {
	return dateOfUTC(time.Date(y, m, d, 0, 0, 0, 0, time.UTC))
}

func dateOfUTC(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

// ParseDate reads YYYY-MM-DD; false for anything else, an impossible day included.
func ParseDate(s string) (Date, bool) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Date{}, false
	}
	return dateOfUTC(t), true
}

// IsZero reports whether d is no date.
func (d Date) IsZero() bool { return d == Date{} }

// String is YYYY-MM-DD ("" for the zero Date).
func (d Date) String() string {
	if d.IsZero() {
		return ""
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.y, d.m, d.d)
}

// Time is midnight UTC of d, as the database's date type carries it.
func (d Date) Time() time.Time { return time.Date(d.y, d.m, d.d, 0, 0, 0, 0, time.UTC) }

// DateFromTime is the calendar day a database date was read as (midnight, any zone).
func DateFromTime(t time.Time) Date { return Date{t.Year(), t.Month(), t.Day()} }

// AddDays is d moved by n days.
func (d Date) AddDays(n int) Date { return NewDate(d.y, d.m, d.d+n) }

// Compare is -1, 0 or +1 as d is before, equal to or after e.
func (d Date) Compare(e Date) int { return d.Time().Compare(e.Time()) }

// Before reports whether d is before e.
func (d Date) Before(e Date) bool { return d.Compare(e) < 0 }

// After reports whether d is after e.
func (d Date) After(e Date) bool { return d.Compare(e) > 0 }

// Day is d's day of the month.
func (d Date) Day() int { return d.d }

// daysIn is the number of days of month m of year y.
func daysIn(y int, m time.Month) int { return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day() }

// Frequency is how often a schedule sends.
type Frequency string

// The two frequencies.
const (
	// Weekly: every 7 days from the start date.
	Weekly Frequency = "weekly"
	// Monthly: the start date's day of every month, or the month's last day when it is shorter
	// (a schedule started on the 31st sends on 30 April and on 28 or 29 February).
	Monthly Frequency = "monthly"
)

// Known reports whether f is one of the two frequencies.
func (f Frequency) Known() bool { return f == Weekly || f == Monthly }

// ScheduleState is a schedule's life: active, paused by the sender, or ended (its end date
// passed). A deleted schedule is gone.
type ScheduleState string

// The schedule states.
const (
	ScheduleActive ScheduleState = "active"
	SchedulePaused ScheduleState = "paused"
	ScheduleEnded  ScheduleState = "ended"
)

// Errors of the schedules; the ports map each once.
var (
	// ErrScheduleNotFound: no such schedule for this user (another user's is not found either).
	ErrScheduleNotFound = errors.New("schedule not found")
	// ErrScheduleEnded: an ended schedule cannot be paused or resumed.
	ErrScheduleEnded = errors.New("schedule has ended")
)

// MsgScheduleEnded is what the sender reads on pausing or resuming an ended schedule.
const MsgScheduleEnded = "This scheduled send has ended. Set up a new one to keep sending."

// latestStart is the last day a schedule made on today may start on: the same day a year on.
func latestStart(today Date) Date { return NewDate(today.y+1, today.m, today.d) }

// ScheduleInput is a create-schedule request as received.
type ScheduleInput struct {
	IdempotencyKey          string
	RecipientName           string
	RecipientPhone          string
	Bank                    Bank
	AmountCents             int64
	PaymentMethodID         string
	Frequency               Frequency
	StartDate               string
	EndDate                 string
	RecipientKnownConfirmed bool
}

// ScheduleRequest is a validated create-schedule request. Its transfer fields are validated by
// the same rules as a transfer's (NewRequest), so an occurrence can never be refused for a
// field the schedule was accepted with.
type ScheduleRequest struct {
	Transfer  Request
	Frequency Frequency
	Start     Date
	End       Date // zero: no end
}

// NewScheduleRequest validates in against today (Johannesburg): the recipient, amount and card
// as a transfer's, a known frequency, a start from today to a year ahead, an end (optional) on
// or after the start. Every invalid field is reported at once.
func NewScheduleRequest(in ScheduleInput, today Date) (ScheduleRequest, error) {
	var verr ValidationError
	req, err := NewRequest(RequestInput{
		IdempotencyKey: in.IdempotencyKey, RecipientName: in.RecipientName, RecipientPhone: in.RecipientPhone,
		Bank: in.Bank, AmountCents: in.AmountCents, PaymentMethodID: in.PaymentMethodID,
		RecipientKnownConfirmed: in.RecipientKnownConfirmed,
	})
	var rerr *ValidationError
	if errors.As(err, &rerr) {
		verr.Violations = append(verr.Violations, rerr.Violations...)
	} else if err != nil {
		return ScheduleRequest{}, err
	}
	if !in.Frequency.Known() {
		verr.add("frequency", "Please choose how often to send: weekly or monthly.")
	}
	start, ok := ParseDate(in.StartDate)
	switch {
	case !ok:
		verr.add("start_date", "Please choose a start date.")
	case start.Before(today):
		verr.add("start_date", "The start date cannot be in the past.")
	case start.After(latestStart(today)):
		verr.add("start_date", "The start date must be within a year from today.")
	}
	var end Date
	if in.EndDate != "" {
		e, ok := ParseDate(in.EndDate)
		switch {
		case !ok:
			verr.add("end_date", "Please choose a valid end date, or leave it empty.")
		case start != Date{} && e.Before(start):
			verr.add("end_date", "The end date cannot be before the start date.")
		default:
			end = e
		}
	}
	if err := verr.orNil(); err != nil {
		return ScheduleRequest{}, err
	}
	return ScheduleRequest{Transfer: req, Frequency: in.Frequency, Start: start, End: end}, nil
}

// Hash is the SHA-256 of the request's canonical form without its key: a retry of the same
// form hashes alike, the same key for another schedule does not.
func (r ScheduleRequest) Hash() []byte {
	h := sha256.New()
	var n [8]byte
	t := r.Transfer
	for _, f := range []string{
		"thumela.transfers.schedule.v1",
		t.RecipientName(), t.RecipientPhone().E164(), string(t.Bank()), strconv.FormatInt(t.Amount().Cents(), 10),
		t.PaymentMethodID(), string(r.Frequency), r.Start.String(), r.End.String(),
	} {
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		h.Write(n[:])
		h.Write([]byte(f))
	}
	return h.Sum(nil)
}

// Occurrence is one date of a schedule as it went: the transfer made for it, or why none could
// be made (in words the sender reads).
type Occurrence struct {
	Date          Date
	TransferID    uuid.UUID // uuid.Nil when none was made
	FailureReason string    // why no transfer was made; empty when one was
	CreatedAt     time.Time
	// The made transfer's status and, once it failed (a declined card), its reason, as the
	// schedules are listed: what the sender must read beside the date.
	TransferStatus  Status
	TransferFailure string
}

// ScheduleData is every stored field of a schedule.
type ScheduleData struct {
	ID             uuid.UUID
	UserID         uuid.UUID
	IdempotencyKey string
	RequestHash    []byte
	RecipientName  string
	RecipientPhone Phone
	Bank           Bank
	Amount         Money
	// PaymentMethod is the card as it was at creation, with the vault's token: the scheduler
	// has no access token with which to ask paymentmethods again. A card deleted since is
	// refused at the charge (the transfer fails and the sender is e-mailed).
	PaymentMethod PaymentMethodRef
	// Quote is the fee quoted at creation, with the fee schedule's version that priced it: the
	// price the sender agreed to for every occurrence, whatever the schedule says on the day
	// (each occurrence's transfer records that version). The first-transfer waiver is still
	// decided per occurrence, under the sender's lock.
	Quote     Quote
	Frequency Frequency
	Start     Date
	End       Date // zero: none
	State     ScheduleState
	// Next is the next date to send on (zero once ended). While paused it is where the
	// schedule stopped; Resume moves it to today or later.
	Next Date
	// The sender as the access token named them when they set the schedule up: the scheduler
	// has no token, and the recipient's SMS and the sender's e-mails need them.
	SenderFirstName string
	SenderLastName  string
	SenderEmail     string
	// RecipientKnownConfirmed: the sender's answer to the first-payment question, given once
	// for every occurrence.
	RecipientKnownConfirmed bool
	CreatedAt               time.Time
	UpdatedAt               time.Time
	// Recent are the latest occurrences, most recent first (read for lists only).
	Recent []Occurrence
}

// Schedule is a recurring send.
type Schedule struct{ s ScheduleData }

// NewSchedule is an active schedule made from req, next sending on its start date.
func NewSchedule(id, userID uuid.UUID, req ScheduleRequest, pm PaymentMethodRef, quote Quote, sender Sender, lastName string, now time.Time) *Schedule {
	t := req.Transfer
	sender = sender.normalised()
	return &Schedule{s: ScheduleData{
		ID: id, UserID: userID, IdempotencyKey: t.IdempotencyKey(), RequestHash: req.Hash(),
		RecipientName: t.RecipientName(), RecipientPhone: t.RecipientPhone(), Bank: t.Bank(), Amount: t.Amount(),
		PaymentMethod: pm, Quote: Quote{BankFee: quote.BankFee, PlatformFee: quote.PlatformFee, ScheduleVersion: quote.ScheduleVersion},
		Frequency: req.Frequency, Start: req.Start, End: req.End, State: ScheduleActive, Next: req.Start,
		SenderFirstName: sender.FirstName, SenderLastName: truncateRunes(lastName, MaxSenderName), SenderEmail: sender.Email,
		RecipientKnownConfirmed: t.RecipientKnownConfirmed(), CreatedAt: now, UpdatedAt: now,
	}}
}

// RestoreSchedule rebuilds a stored schedule.
func RestoreSchedule(d ScheduleData) *Schedule { return &Schedule{s: d} }

// Data returns a copy of every field, for storage and mapping.
func (s *Schedule) Data() ScheduleData { return s.s }

// ID is the schedule's id.
func (s *Schedule) ID() uuid.UUID { return s.s.ID }

// UserID is the sender's id.
func (s *Schedule) UserID() uuid.UUID { return s.s.UserID }

// State is the schedule's state.
func (s *Schedule) State() ScheduleState { return s.s.State }

// Next is the next date stored (zero once ended).
func (s *Schedule) Next() Date { return s.s.Next }

// RequestHash is the hash of the request that created the schedule (for idempotency).
func (s *Schedule) RequestHash() []byte { return s.s.RequestHash }

// occurrence is the k-th date of the schedule (k = 0 is the start).
func (s *Schedule) occurrence(k int) Date {
	st := s.s.Start
	if s.s.Frequency == Weekly {
		return st.AddDays(7 * k)
	}
	y, m := st.y, st.m+time.Month(k)
	first := NewDate(y, m, 1) // normalises the month
	return Date{first.y, first.m, min(st.d, daysIn(first.y, first.m))}
}

// OnOrAfter is the schedule's first date on or after d (its end date aside).
func (s *Schedule) OnOrAfter(d Date) Date {
	st := s.s.Start
	if !st.Before(d) {
		return st
	}
	var k int
	if s.s.Frequency == Weekly {
		days := int(d.Time().Sub(st.Time()).Hours() / 24)
		k = (days + 6) / 7
	} else {
		k = (d.y-st.y)*12 + int(d.m-st.m)
		if k < 0 {
			k = 0
		}
	}
	for s.occurrence(k).Before(d) {
		k++
	}
	return s.occurrence(k)
}

// after is the schedule's first date after d.
func (s *Schedule) after(d Date) Date { return s.OnOrAfter(d.AddDays(1)) }

// pastEnd reports whether d is after the schedule's end date.
func (s *Schedule) pastEnd(d Date) bool { return !s.s.End.IsZero() && d.After(s.s.End) }

// Due are the dates to send on by today: every date from Next up to today (missed runs are
// caught up, never skipped) and not past the end date. None unless active.
func (s *Schedule) Due(today Date) []Date {
	if s.s.State != ScheduleActive || s.s.Next.IsZero() {
		return nil
	}
	var out []Date
	for d := s.s.Next; !d.After(today) && !s.pastEnd(d); d = s.after(d) {
		out = append(out, d)
	}
	return out
}

// Advance records that every date up to today was handled: Next moves to the first date after
// today, and a schedule whose next date would pass its end date ends.
func (s *Schedule) Advance(today Date, now time.Time) {
	if s.s.State != ScheduleActive {
		return
	}
	next := s.s.Next
	if !next.After(today) {
		next = s.after(today)
	}
	s.setNext(next, now)
}

func (s *Schedule) setNext(next Date, now time.Time) {
	s.s.Next, s.s.UpdatedAt = next, now
	if s.pastEnd(next) {
		s.s.State, s.s.Next = ScheduleEnded, Date{}
	}
}

// Pause stops new occurrences. Pausing a paused schedule changes nothing; an ended one cannot
// be paused.
func (s *Schedule) Pause(now time.Time) error {
	switch s.s.State {
	case ScheduleEnded:
		return ErrScheduleEnded
	case SchedulePaused:
		return nil
	}
	s.s.State, s.s.UpdatedAt = SchedulePaused, now
	return nil
}

// Resume continues the schedule from its first date on or after today: the dates that passed
// while it was paused are skipped, not made up (the sender paused them). A date it already sent
// on is not its next one: a schedule that sent today and is paused and resumed the same day
// goes on from its next date, not today. A schedule whose end date has passed meanwhile ends.
// Resuming an active schedule changes nothing.
func (s *Schedule) Resume(today Date, now time.Time) error {
	switch s.s.State {
	case ScheduleEnded:
		return ErrScheduleEnded
	case ScheduleActive:
		return nil
	}
	s.s.State = ScheduleActive
	s.setNext(s.resumesOn(today), now)
	return nil
}

// resumesOn is the date a resume on today continues from: the first date on or after today,
// or the stored next date when that is later (the dates before it were sent, as on a pause
// the day the schedule sent).
func (s *Schedule) resumesOn(today Date) Date {
	from := today
	if s.s.Next.After(today) {
		from = s.s.Next
	}
	return s.OnOrAfter(from)
}

// NextShown is the next date as the sender sees it on today: the stored one while active, the
// date a resume today would continue from while paused (a paused schedule's stored date may
// lie in the past), none once ended.
func (s *Schedule) NextShown(today Date) Date {
	switch s.s.State {
	case ScheduleActive:
		return s.s.Next
	case SchedulePaused:
		if d := s.resumesOn(today); !s.pastEnd(d) {
			return d
		}
	}
	return Date{}
}

// OccurrenceKey is the idempotency key of the transfer of the schedule's date d: whoever makes
// it (two schedulers, a retry after a crash) makes the same one, which exists at most once.
func OccurrenceKey(scheduleID uuid.UUID, d Date) string {
	return "schedule:" + scheduleID.String() + ":" + d.String()
}

// OccurrenceInput is the create-transfer input of the schedule's date d.
func (s *Schedule) OccurrenceInput(d Date) RequestInput {
	return RequestInput{
		IdempotencyKey: OccurrenceKey(s.s.ID, d), RecipientName: s.s.RecipientName, RecipientPhone: s.s.RecipientPhone.E164(),
		Bank: s.s.Bank, AmountCents: s.s.Amount.Cents(), PaymentMethodID: s.s.PaymentMethod.ID,
		RecipientKnownConfirmed: s.s.RecipientKnownConfirmed,
	}
}

// MsgOccurrenceFailed is the reason recorded for an occurrence that failed for a reason the
// sender cannot act on (the details are in the log).
const MsgOccurrenceFailed = "This scheduled send could not be made. Please send it yourself from the app."
