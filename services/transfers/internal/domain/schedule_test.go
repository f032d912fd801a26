package domain_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

func date(t *testing.T, s string) domain.Date {
	t.Helper()
	d, ok := domain.ParseDate(s)
	if !ok {
		t.Fatalf("bad date %q", s)
	}
	return d
}

func dates(ds []domain.Date) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.String()
	}
	return out
}

// schedule is an active schedule of freq from start (to end, "" for none), made on start.
func schedule(t *testing.T, freq domain.Frequency, start, end string) *domain.Schedule {
	t.Helper()
	today := date(t, start)
	req, err := domain.NewScheduleRequest(domain.ScheduleInput{
		IdempotencyKey: "k", RecipientName: "Sipho Dlamini", RecipientPhone: "082 123 4567", Bank: domain.Capitec,
		AmountCents: 50_000, PaymentMethodID: "pm", Frequency: freq, StartDate: start, EndDate: end,
	}, today)
	if err != nil {
		t.Fatal(err)
	}
	return domain.NewSchedule(uuid.New(), uuid.New(), req, domain.PaymentMethodRef{ID: "pm", Token: "tok"},
		domain.Quote{}, domain.Sender{FirstName: "Thandi"}, "Nkosi", today.Time())
}

// runAll steps through every day from the start to last, running what is due each day as the
// scheduler would, and returns the dates sent.
func runAll(t *testing.T, s *domain.Schedule, from, last string) []string {
	t.Helper()
	var sent []string
	for d := date(t, from); !d.After(date(t, last)); d = d.AddDays(1) {
		sent = append(sent, dates(s.Due(d))...)
		s.Advance(d, d.Time())
	}
	return sent
}

func TestScheduleDates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		freq       domain.Frequency
		start, end string
		last       string
		want       []string
	}{
		{"weekly every 7 days from the start", domain.Weekly, "2026-03-20", "", "2026-04-17",
			[]string{"2026-03-20", "2026-03-27", "2026-04-03", "2026-04-10", "2026-04-17"}},
		{"monthly on the 31st clamps to each month's last day", domain.Monthly, "2026-01-31", "", "2026-06-30",
			[]string{"2026-01-31", "2026-02-28", "2026-03-31", "2026-04-30", "2026-05-31", "2026-06-30"}},
		{"monthly on the 31st in a leap year", domain.Monthly, "2027-12-31", "", "2028-03-31",
			[]string{"2027-12-31", "2028-01-31", "2028-02-29", "2028-03-31"}},
		{"monthly on the 15th", domain.Monthly, "2026-11-15", "", "2027-02-20",
			[]string{"2026-11-15", "2026-12-15", "2027-01-15", "2027-02-15"}},
		{"the end date is the last day sent on", domain.Weekly, "2026-03-20", "2026-04-03", "2026-05-01",
			[]string{"2026-03-20", "2026-03-27", "2026-04-03"}},
		{"an end date between two dates", domain.Monthly, "2026-01-31", "2026-03-15", "2026-06-30",
			[]string{"2026-01-31", "2026-02-28"}},
		{"start and end on the same day", domain.Weekly, "2026-03-20", "2026-03-20", "2026-04-30",
			[]string{"2026-03-20"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := schedule(t, tt.freq, tt.start, tt.end)
			if got := runAll(t, s, tt.start, tt.last); !slices.Equal(got, tt.want) {
				t.Fatalf("sent on %v, want %v", got, tt.want)
			}
			if tt.end != "" && (s.State() != domain.ScheduleEnded || !s.Next().IsZero()) {
				t.Fatalf("after its end date: state %s, next %q; want ended with no next date", s.State(), s.Next())
			}
			if tt.end == "" && s.State() != domain.ScheduleActive {
				t.Fatalf("state %s without an end date", s.State())
			}
		})
	}
}

// Missed runs are caught up: a scheduler that was down for weeks sends every date it missed.
func TestScheduleCatchesUpMissedRuns(t *testing.T) {
	t.Parallel()
	s := schedule(t, domain.Weekly, "2026-03-04", "")
	due := s.Due(date(t, "2026-03-26"))
	if want := []string{"2026-03-04", "2026-03-11", "2026-03-18", "2026-03-25"}; !slices.Equal(dates(due), want) {
		t.Fatalf("due %v, want %v", dates(due), want)
	}
	s.Advance(date(t, "2026-03-26"), time.Now())
	if s.Next().String() != "2026-04-01" || len(s.Due(date(t, "2026-03-31"))) != 0 {
		t.Fatalf("next %s after catching up", s.Next())
	}
}

// Pause skips the dates that pass while paused; Resume continues from the first date on or
// after today; an end date passed while paused ends the schedule on resume.
func TestSchedulePauseAndResume(t *testing.T) {
	t.Parallel()
	s := schedule(t, domain.Weekly, "2026-03-06", "")
	sent := runAll(t, s, "2026-03-06", "2026-03-10") // 6 March sent
	if err := s.Pause(time.Now()); err != nil {
		t.Fatal(err)
	}
	sent = append(sent, runAll(t, s, "2026-03-11", "2026-03-26")...) // 13 and 20 March pass while paused
	if got := s.NextShown(date(t, "2026-03-26")); got.String() != "2026-03-27" {
		t.Fatalf("a paused schedule shows next %s, want the date a resume would continue from", got)
	}
	if err := s.Resume(date(t, "2026-03-26"), time.Now()); err != nil {
		t.Fatal(err)
	}
	sent = append(sent, runAll(t, s, "2026-03-26", "2026-04-03")...)
	if want := []string{"2026-03-06", "2026-03-27", "2026-04-03"}; !slices.Equal(sent, want) {
		t.Fatalf("sent on %v, want %v (the paused dates skipped)", sent, want)
	}
	// Resuming on an occurrence date sends that day.
	m := schedule(t, domain.Monthly, "2026-01-31", "")
	if err := m.Pause(time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := m.Resume(date(t, "2026-04-30"), time.Now()); err != nil {
		t.Fatal(err)
	}
	if got := dates(m.Due(date(t, "2026-04-30"))); !slices.Equal(got, []string{"2026-04-30"}) {
		t.Fatalf("resumed on 30 April: due %v", got)
	}

	e := schedule(t, domain.Weekly, "2026-03-06", "2026-03-20")
	if err := e.Pause(time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := e.Resume(date(t, "2026-03-21"), time.Now()); err != nil {
		t.Fatal(err)
	}
	if e.State() != domain.ScheduleEnded {
		t.Fatalf("resumed after its end date: %s", e.State())
	}
	if err := e.Pause(time.Now()); !errors.Is(err, domain.ErrScheduleEnded) {
		t.Fatalf("pausing an ended schedule: %v", err)
	}
	if err := e.Resume(date(t, "2026-03-21"), time.Now()); !errors.Is(err, domain.ErrScheduleEnded) {
		t.Fatalf("resuming an ended schedule: %v", err)
	}
}

// A schedule paused and resumed on the day it sent goes on from its next date: the date it
// sent on is not shown as its next one, nor made due again.
func TestScheduleResumedOnTheDayItSentGoesOnFromItsNextDate(t *testing.T) {
	t.Parallel()
	s := schedule(t, domain.Weekly, "2026-03-06", "")
	sent := runAll(t, s, "2026-03-06", "2026-03-06")
	if err := s.Pause(time.Now()); err != nil {
		t.Fatal(err)
	}
	if got := s.NextShown(date(t, "2026-03-06")); got.String() != "2026-03-13" {
		t.Fatalf("paused on the day it sent: shows next %s, want 2026-03-13", got)
	}
	if err := s.Resume(date(t, "2026-03-06"), time.Now()); err != nil {
		t.Fatal(err)
	}
	if s.Next().String() != "2026-03-13" || len(s.Due(date(t, "2026-03-06"))) != 0 {
		t.Fatalf("resumed on the day it sent: next %s, due %v", s.Next(), dates(s.Due(date(t, "2026-03-06"))))
	}
	sent = append(sent, runAll(t, s, "2026-03-07", "2026-03-13")...)
	if want := []string{"2026-03-06", "2026-03-13"}; !slices.Equal(sent, want) {
		t.Fatalf("sent on %v, want %v", sent, want)
	}
}

func TestScheduleRequestValidation(t *testing.T) {
	t.Parallel()
	today := date(t, "2026-03-18")
	valid := domain.ScheduleInput{
		IdempotencyKey: "k", RecipientName: "Sipho Dlamini", RecipientPhone: "082 123 4567", Bank: domain.Capitec,
		AmountCents: 50_000, PaymentMethodID: "pm", Frequency: domain.Weekly, StartDate: "2026-03-18",
	}
	tests := []struct {
		name  string
		edit  func(*domain.ScheduleInput)
		field string
	}{
		{"start in the past", func(in *domain.ScheduleInput) { in.StartDate = "2026-03-17" }, "start_date"},
		{"start more than a year ahead", func(in *domain.ScheduleInput) { in.StartDate = "2027-03-19" }, "start_date"},
		{"no start", func(in *domain.ScheduleInput) { in.StartDate = "" }, "start_date"},
		{"impossible start", func(in *domain.ScheduleInput) { in.StartDate = "2026-02-30" }, "start_date"},
		{"end before start", func(in *domain.ScheduleInput) { in.StartDate, in.EndDate = "2026-04-01", "2026-03-31" }, "end_date"},
		{"malformed end", func(in *domain.ScheduleInput) { in.EndDate = "31/12/2026" }, "end_date"},
		{"no frequency", func(in *domain.ScheduleInput) { in.Frequency = "" }, "frequency"},
		{"amount not in notes", func(in *domain.ScheduleInput) { in.AmountCents = 50_050 }, "amount_cents"},
		{"bad phone", func(in *domain.ScheduleInput) { in.RecipientPhone = "12345" }, "recipient_phone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := valid
			tt.edit(&in)
			_, err := domain.NewScheduleRequest(in, today)
			var verr *domain.ValidationError
			if !errors.As(err, &verr) || len(verr.Violations) != 1 || verr.Violations[0].Field != tt.field {
				t.Fatalf("got %v, want one violation on %s", err, tt.field)
			}
		})
	}
	for _, ok := range []func(*domain.ScheduleInput){
		func(*domain.ScheduleInput) {},
		func(in *domain.ScheduleInput) { in.StartDate = "2027-03-18" },
		func(in *domain.ScheduleInput) { in.EndDate = in.StartDate },
	} {
		in := valid
		ok(&in)
		if _, err := domain.NewScheduleRequest(in, today); err != nil {
			t.Fatalf("%+v refused: %v", in, err)
		}
	}
}

// Dates are Johannesburg's: 23:30 UTC on the 17th is already the 18th there.
func TestDateOfIsJohannesburgs(t *testing.T) {
	t.Parallel()
	if got := domain.DateOf(time.Date(2026, time.March, 17, 23, 30, 0, 0, time.UTC)).String(); got != "2026-03-18" {
		t.Fatalf("DateOf = %s", got)
	}
	key := domain.OccurrenceKey(uuid.MustParse("8a1f0c2e-4b7d-4e59-9a3c-2d6f1e0b7c55"), date(t, "2026-03-18"))
	if key != "schedule:8a1f0c2e-4b7d-4e59-9a3c-2d6f1e0b7c55:2026-03-18" || !strings.HasPrefix(key, "schedule:") {
		t.Fatalf("occurrence key %q", key)
	}
}
