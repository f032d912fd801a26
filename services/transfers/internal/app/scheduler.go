package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// DefaultSchedulerInterval is how often the scheduler looks for due schedules
// (TRANSFERS_SCHEDULER_INTERVAL).
const DefaultSchedulerInterval = time.Minute

// SchedulerConfig tunes the scheduler.
type SchedulerConfig struct {
	// Interval is the time between ticks (DefaultSchedulerInterval when zero).
	Interval time.Duration
	// AfterCreate, when set, runs after each occurrence's transfer is created (or found) and
	// before the occurrence is recorded and the schedule advanced; an error it returns aborts
	// the schedule's run as a crash there would (nothing of it is recorded). Test-only.
	AfterCreate func(scheduleID uuid.UUID, date domain.Date) error
}

// Scheduler makes the transfers of the recurring sends. Every tick it claims, one at a time,
// the active schedules whose next date has come (FOR UPDATE SKIP LOCKED, so any number of
// schedulers in any number of replicas share the work and never run one schedule at once), and
// for every due date up to today (missed runs are caught up, never skipped) makes an ordinary
// transfer through the same create path as CreateTransfer, as the schedule's sender, with the
// idempotency key "schedule:<id>:<date>". It then records each occurrence and advances the
// schedule in the claim's transaction. A crash between a create and that commit leaves the
// schedule due: the next run finds the transfer by its key instead of making another, and
// records it then. The transfer's own unique key is what makes an occurrence happen once.
type Scheduler struct {
	svc    *Service
	cfg    SchedulerConfig
	logger *slog.Logger
}

// NewScheduler returns the scheduler of svc's schedules.
func NewScheduler(svc *Service, cfg SchedulerConfig, logger *slog.Logger) *Scheduler {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultSchedulerInterval
	}
	return &Scheduler{svc: svc, cfg: cfg, logger: logger.With("component", "transfers.scheduler")}
}

// Run ticks until ctx ends, then returns nil. The first tick is at once: schedules may have
// fallen due while the service was down.
func (sc *Scheduler) Run(ctx context.Context) error {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		}
		if _, err := sc.Tick(ctx); err != nil && ctx.Err() == nil {
			sc.logger.ErrorContext(ctx, "scheduler tick failed", "error", err)
		}
		timer.Reset(sc.cfg.Interval)
	}
}

// Tick runs every schedule due by today, and returns how many it ran. A schedule whose run
// fails (a database error, another service down) is left due, skipped for the rest of this
// tick, and tried again at the next; the others still run.
func (sc *Scheduler) Tick(ctx context.Context) (int, error) {
	var (
		skip []uuid.UUID
		ran  int
		errs []error
	)
	for ctx.Err() == nil {
		now := sc.svc.now()
		today := domain.DateOf(now)
		id, found, err := sc.svc.repo.RunDueSchedule(ctx, today, now, skip, func(ctx context.Context, sch *domain.Schedule) ([]domain.Occurrence, error) {
			return sc.run(ctx, sch, today, now)
		})
		if !found {
			if err != nil {
				errs = append(errs, err)
			}
			break
		}
		if err != nil {
			sc.logger.WarnContext(ctx, "schedule run failed; it stays due", "schedule_id", id.String(), "error", err)
			errs = append(errs, err)
			skip = append(skip, id)
			continue
		}
		ran++
	}
	return ran, errors.Join(errs...)
}

// run makes the transfers of sch's due dates and advances it. A refusal that is the sender's
// to know about (a limit) is an occurrence with its reason; any other error fails the run.
func (sc *Scheduler) run(ctx context.Context, sch *domain.Schedule, today domain.Date, now time.Time) ([]domain.Occurrence, error) {
	var out []domain.Occurrence
	for _, d := range sch.Due(today) {
		occ, err := sc.occurrence(ctx, sch, d, now)
		if err != nil {
			return nil, err
		}
		if err := sc.afterCreate(sch.ID(), d); err != nil {
			return nil, err
		}
		out = append(out, occ)
	}
	sch.Advance(today, now)
	return out, nil
}

func (sc *Scheduler) afterCreate(id uuid.UUID, d domain.Date) error {
	if sc.cfg.AfterCreate == nil {
		return nil
	}
	return sc.cfg.AfterCreate(id, d)
}

// occurrence makes (or finds, by its key) the transfer of sch's date d.
func (sc *Scheduler) occurrence(ctx context.Context, sch *domain.Schedule, d domain.Date, now time.Time) (domain.Occurrence, error) {
	data := sch.Data()
	occ := domain.Occurrence{Date: d, CreatedAt: now}
	req, err := domain.NewRequest(sch.OccurrenceInput(d))
	if err != nil {
		// The schedule was validated by the same rules when it was made; were a rule to
		// tighten since, the sender is told rather than the schedule stuck for ever.
		sc.logger.ErrorContext(ctx, "a schedule's occurrence is not a valid transfer", "schedule_id", data.ID.String(),
			"date", d.String(), "error", err)
		occ.FailureReason = domain.MsgOccurrenceFailed
		return occ, nil
	}
	sender := Caller{GivenName: data.SenderFirstName, FamilyName: data.SenderLastName, Email: data.SenderEmail}.sender()
	t, replayed, err := sc.svc.create(ctx, data.UserID, req, data.PaymentMethod, data.Quote, sender,
		&occurrenceOf{scheduleID: data.ID, date: d}, nil)
	var limit *domain.LimitError
	switch {
	case errors.As(err, &limit):
		sc.logger.InfoContext(ctx, "scheduled send refused by a limit", "schedule_id", data.ID.String(), "date", d.String(),
			"limit", string(limit.Kind))
		occ.FailureReason = limit.Error()
		return occ, nil
	case err != nil:
		return domain.Occurrence{}, fmt.Errorf("schedule %s, %s: %w", data.ID, d, err)
	}
	sc.logger.InfoContext(ctx, "scheduled send created", "schedule_id", data.ID.String(), "date", d.String(),
		"transfer_id", t.ID().String(), "replayed", replayed)
	occ.TransferID = t.ID()
	return occ, nil
}
