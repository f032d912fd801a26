package app

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// FreezeVouchers is 'Freeze my vouchers', for a sender who fears a scam or lost their phone: it
// cancels every one of the caller's vouchers still awaiting collection and returns the
// transfers it cancelled, oldest first.
//
// Each voucher is cancelled exactly as CancelTransfer cancels one (the same Update, the same
// domain Cancel, so the same row lock, refund owed, events and e-mails), in its own
// transaction. That is what makes it safe against a collection at an ATM at the same moment:
// both lock the voucher's row, and whichever comes second finds the voucher no longer awaiting
// collection (a cancel is then ErrNotCancellable and skipped here; a collection is refused as
// cancelled). One transaction for all of them would instead hold every voucher's lock at once
// and let one unexpected error keep all the others collectable.
//
// Repeating it is safe: a second call finds nothing awaiting collection and cancels nothing.
// When a cancellation fails for another reason the error is returned, the vouchers cancelled
// before it stay cancelled, and a retry cancels the rest. A transfer still being charged has no
// voucher yet and is not touched; the sender can cancel it once its voucher is issued.
//
// The sender's active scheduled sends are paused first, each as PauseSchedule pauses one: a
// sender who fears a scam or lost their phone expects no more money to leave, and a schedule
// due in the meantime would send a new voucher to the same phone. They resume one by one on
// /recipients. paused says how many were paused.
func (s *Service) FreezeVouchers(ctx context.Context, c Caller) (cancelled []*domain.Transfer, paused int, err error) {
	userID, err := self(c)
	if err != nil {
		return nil, 0, err
	}
	if paused, err = s.pauseSchedules(ctx, userID); err != nil {
		return nil, 0, err
	}
	ids, err := s.repo.AwaitingCollection(ctx, userID)
	if err != nil {
		return nil, paused, err
	}
	cancelled = make([]*domain.Transfer, 0, len(ids))
	for _, id := range ids {
		now := s.now()
		t, err := s.repo.Update(ctx, userID, id, func(t *domain.Transfer) error { return t.Cancel(now) })
		switch {
		case errors.Is(err, domain.ErrNotCancellable):
			// Collected, expired or cancelled since the list was read: not ours to cancel.
			continue
		case err != nil:
			return nil, paused, err
		}
		cancelled = append(cancelled, t)
	}
	if len(ids) > 0 || paused > 0 {
		s.logger.InfoContext(ctx, "vouchers frozen", "awaiting", len(ids), "cancelled", len(cancelled), "schedules_paused", paused)
	}
	return cancelled, paused, nil
}

// pauseSchedules pauses the user's active schedules, each in its own transaction under its row
// lock (a run in progress finishes first), and says how many it paused.
func (s *Service) pauseSchedules(ctx context.Context, userID uuid.UUID) (int, error) {
	schedules, err := s.repo.ListSchedules(ctx, userID)
	if err != nil {
		return 0, err
	}
	paused := 0
	for _, sch := range schedules {
		if sch.Data().State != domain.ScheduleActive {
			continue
		}
		now := s.now()
		_, err := s.repo.UpdateSchedule(ctx, userID, sch.Data().ID, now, func(sch *domain.Schedule) error {
			if sch.Data().State != domain.ScheduleActive {
				return errNotActive
			}
			return sch.Pause(now)
		})
		switch {
		case errors.Is(err, errNotActive), errors.Is(err, domain.ErrScheduleNotFound):
			continue // paused, ended or deleted since the list was read
		case err != nil:
			return paused, err
		}
		paused++
	}
	return paused, nil
}

// errNotActive rolls back a pause of a schedule that stopped being active after the list.
var errNotActive = errors.New("schedule not active")
