package app

import (
	"context"
	"errors"

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
func (s *Service) FreezeVouchers(ctx context.Context, c Caller) ([]*domain.Transfer, error) {
	userID, err := self(c)
	if err != nil {
		return nil, err
	}
	ids, err := s.repo.AwaitingCollection(ctx, userID)
	if err != nil {
		return nil, err
	}
	cancelled := make([]*domain.Transfer, 0, len(ids))
	for _, id := range ids {
		now := s.now()
		t, err := s.repo.Update(ctx, userID, id, func(t *domain.Transfer) error { return t.Cancel(now) })
		switch {
		case errors.Is(err, domain.ErrNotCancellable):
			// Collected, expired or cancelled since the list was read: not ours to cancel.
			continue
		case err != nil:
			return nil, err
		}
		cancelled = append(cancelled, t)
	}
	if len(ids) > 0 {
		s.logger.InfoContext(ctx, "vouchers frozen", "awaiting", len(ids), "cancelled", len(cancelled))
	}
	return cancelled, nil
}
