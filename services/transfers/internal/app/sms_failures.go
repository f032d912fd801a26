package app

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// errNothingToTell rolls back an Update that recorded nothing (VoucherSMSFailed).
var errNothingToTell = errors.New("nothing to tell the sender")

// VoucherSMSFailed handles notifications' report that the voucher SMS of delivery (its request
// id) to phone failed for good, for reason: the sender of transfer transferID, who must be
// userID (the event's user), is e-mailed once per failed SMS, provided the voucher still awaits
// collection at that number (domain.Transfer.VoucherSMSFailed). A transfer that is not the
// user's, or no longer concerned, asks for nothing; malformed ids are ErrInvalidEvent.
func (s *Service) VoucherSMSFailed(ctx context.Context, userID, transferID, phone, delivery, reason string) error {
	user, uerr := uuid.Parse(userID)
	id, terr := uuid.Parse(transferID)
	p, ok := domain.ParsePhone(phone)
	if uerr != nil || terr != nil || !ok || delivery == "" {
		return ErrInvalidEvent
	}
	_, err := s.repo.Update(ctx, user, id, func(t *domain.Transfer) error {
		if !t.VoucherSMSFailed(p, delivery, reason, s.now()) {
			return errNothingToTell
		}
		return nil
	})
	switch {
	case errors.Is(err, errNothingToTell), errors.Is(err, domain.ErrNotFound), errors.Is(err, ErrEventsWritten):
		return nil // nothing to tell, or told already (a redelivered report)
	case err != nil:
		return err
	}
	s.logger.InfoContext(ctx, "voucher SMS failed; the sender is told", "transfer_id", id.String())
	return nil
}
