package app

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/platform/personname"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// ScheduleRepository stores the recurring sends. Every change writes SchedulesChanged to the
// outbox in its own transaction.
type ScheduleRepository interface {
	// FindScheduleByKey returns the user's schedule created with the idempotency key, or
	// domain.ErrScheduleNotFound.
	FindScheduleByKey(ctx context.Context, userID uuid.UUID, key string) (*domain.Schedule, error)
	// CreateSchedule inserts s, unless the user already has a schedule with its key: that one
	// is returned with replayed=true.
	CreateSchedule(ctx context.Context, s *domain.Schedule) (out *domain.Schedule, replayed bool, err error)
	// ListSchedules returns the user's schedules, active first, then paused, then ended, newest
	// first within each, each with its latest occurrences (at most RecentOccurrences).
	ListSchedules(ctx context.Context, userID uuid.UUID) ([]*domain.Schedule, error)
	// UpdateSchedule locks the user's schedule, runs fn and stores the result; an error from fn
	// rolls back. domain.ErrScheduleNotFound for another user's or an unknown id.
	UpdateSchedule(ctx context.Context, userID, id uuid.UUID, at time.Time, fn func(*domain.Schedule) error) (*domain.Schedule, error)
	// DeleteSchedule deletes the user's schedule and its occurrences' records (the transfers it
	// made stay), or answers domain.ErrScheduleNotFound.
	DeleteSchedule(ctx context.Context, userID, id uuid.UUID, at time.Time) error
	// RunDueSchedule claims one active schedule due by today (next_date <= today) that no one
	// else holds (FOR UPDATE SKIP LOCKED) and whose id is not in skip, and runs run on it inside
	// that claim. The occurrences run returns are recorded once each (ON CONFLICT DO NOTHING),
	// with the SCHEDULED_SEND_FAILED e-mail of each newly recorded refusal, and the schedule as
	// run left it is stored, with SchedulesChanged, all in one transaction. found is false when
	// no schedule is due; id names the schedule claimed (also when run failed: nothing of it is
	// recorded then, and the transfers run made are found again by their keys).
	RunDueSchedule(ctx context.Context, today domain.Date, at time.Time, skip []uuid.UUID,
		run func(ctx context.Context, s *domain.Schedule) ([]domain.Occurrence, error)) (id uuid.UUID, found bool, err error)
	// RenameScheduleSender gives the user's schedules that have not ended, and were made before
	// changedAt, the sender's names of a profile change at changedAt, unless a change as new was
	// applied to them already. It returns how many it renamed.
	RenameScheduleSender(ctx context.Context, userID uuid.UUID, firstName, lastName string, changedAt time.Time) (int64, error)
}

// RecentOccurrences is how many of a schedule's latest occurrences a list shows.
const RecentOccurrences = 5

// Today is the Johannesburg calendar day by the service's clock: the day schedules are read
// against.
func (s *Service) Today() domain.Date { return domain.DateOf(s.now()) }

// CreateSchedule sets up a recurring send for the caller. It is checked as CreateTransfer
// checks a transfer, because it is the sender's consent to every occurrence: the recipient,
// amount (minimum, notes, per-transfer limit) and card, then the first-payment question and the
// step-up on the sender's history with the phone. The occurrences ask neither again. The card
// (with its vault token) and the fee quoted now are kept on the schedule: the scheduler has no
// access token with which to ask paymentmethods or fees. The same key with the same request
// returns the first schedule; with another, domain.ErrIdempotencyConflict.
func (s *Service) CreateSchedule(ctx context.Context, c Caller, in domain.ScheduleInput) (*domain.Schedule, error) {
	userID, err := self(c)
	if err != nil {
		return nil, err
	}
	req, err := domain.NewScheduleRequest(in, s.Today())
	if err != nil {
		return nil, err
	}
	hash := req.Hash()
	if sch, err := s.repo.FindScheduleByKey(ctx, userID, req.Transfer.IdempotencyKey()); err == nil {
		return replaySchedule(sch, hash)
	} else if !errors.Is(err, domain.ErrScheduleNotFound) {
		return nil, err
	}
	if err := s.limits.Check(req.Transfer.Amount(), domain.Usage{}); err != nil {
		return nil, err
	}
	ref, quote, err := s.cardAndQuote(ctx, userID, req.Transfer)
	if err != nil {
		return nil, err
	}
	paid, err := s.repo.PaidPhone(ctx, userID, req.Transfer.RecipientPhone())
	if err != nil {
		return nil, err
	}
	if err := domain.CheckRecipientKnown(paid, req.Transfer.RecipientKnownConfirmed()); err != nil {
		return nil, err
	}
	if err := domain.CheckStepUp(req.Transfer.Amount(), paid, c.SteppedUpAt, s.wall()); err != nil {
		return nil, err
	}
	sch := domain.NewSchedule(s.newID(), userID, req, ref, quote, c.sender(), c.FamilyName, s.now())
	out, replayed, err := s.repo.CreateSchedule(ctx, sch)
	if err != nil {
		return nil, err
	}
	if replayed {
		return replaySchedule(out, hash)
	}
	s.logger.InfoContext(ctx, "schedule created", "schedule_id", out.ID().String(), "frequency", string(req.Frequency),
		"start_date", req.Start.String())
	return out, nil
}

// replaySchedule answers a create whose key was used before.
func replaySchedule(sch *domain.Schedule, hash []byte) (*domain.Schedule, error) {
	if !bytes.Equal(sch.RequestHash(), hash) {
		return nil, domain.ErrIdempotencyConflict
	}
	return sch, nil
}

// ListSchedules returns the caller's schedules with their latest occurrences.
func (s *Service) ListSchedules(ctx context.Context, c Caller) ([]*domain.Schedule, error) {
	userID, err := self(c)
	if err != nil {
		return nil, err
	}
	return s.repo.ListSchedules(ctx, userID)
}

// PauseSchedule stops the caller's schedule: no occurrence is made until it is resumed, and the
// dates that pass meanwhile are skipped.
func (s *Service) PauseSchedule(ctx context.Context, c Caller, id string) (*domain.Schedule, error) {
	return s.changeSchedule(ctx, c, id, func(sch *domain.Schedule, _ domain.Date, now time.Time) error {
		return sch.Pause(now)
	})
}

// ResumeSchedule continues the caller's paused schedule from its first date on or after today.
func (s *Service) ResumeSchedule(ctx context.Context, c Caller, id string) (*domain.Schedule, error) {
	return s.changeSchedule(ctx, c, id, func(sch *domain.Schedule, today domain.Date, now time.Time) error {
		return sch.Resume(today, now)
	})
}

func (s *Service) changeSchedule(ctx context.Context, c Caller, id string,
	fn func(*domain.Schedule, domain.Date, time.Time) error) (*domain.Schedule, error) {
	userID, sid, err := scheduleOf(c, id)
	if err != nil {
		return nil, err
	}
	now := s.now()
	return s.repo.UpdateSchedule(ctx, userID, sid, now, func(sch *domain.Schedule) error {
		return fn(sch, domain.DateOf(now), now)
	})
}

// DeleteSchedule deletes the caller's schedule; the transfers it made stay in their history.
func (s *Service) DeleteSchedule(ctx context.Context, c Caller, id string) error {
	userID, sid, err := scheduleOf(c, id)
	if err != nil {
		return err
	}
	return s.repo.DeleteSchedule(ctx, userID, sid, s.now())
}

// scheduleOf is the caller's id and the schedule id; an id that is not a UUID is
// domain.ErrScheduleNotFound, exactly as a schedule that does not exist or is another user's.
func scheduleOf(c Caller, id string) (uuid.UUID, uuid.UUID, error) {
	userID, err := self(c)
	if err != nil {
		return uuid.Nil, uuid.Nil, domain.ErrScheduleNotFound
	}
	sid, err := uuid.Parse(id)
	if err != nil {
		return uuid.Nil, uuid.Nil, domain.ErrScheduleNotFound
	}
	return userID, sid, nil
}

// RenameSender gives the user's scheduled sends the names their profile now has (identity's
// UserRenamed, for a profile change at changedAt). A transfer takes the sender's names from the
// token, but a schedule's occurrences run without one, on the names stored when the schedule
// was made: without this, a sender who corrected their name went on reaching the recipients of
// their scheduled sends under the old one. Idempotent, and an older change applies nothing.
func (s *Service) RenameSender(ctx context.Context, userID, firstName, lastName string, changedAt time.Time) error {
	uid, err := uuid.Parse(userID)
	if err != nil || changedAt.IsZero() {
		return ErrInvalidEvent
	}
	firstName, lastName = personname.Clean(firstName), personname.Clean(lastName)
	if firstName == "" {
		return ErrInvalidEvent
	}
	n, err := s.repo.RenameScheduleSender(ctx, uid, firstName, lastName, changedAt)
	if err != nil {
		return err
	}
	if n > 0 {
		s.logger.InfoContext(ctx, "scheduled sends renamed with their sender", "user_id", uid.String(), "schedules", n)
	}
	return nil
}
