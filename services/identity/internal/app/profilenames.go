package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/identity/internal/domain"
	"github.com/thumela/thumela/services/identity/internal/events"
)

// ErrInvalidProfileEvent is a profile change identity can never apply (no user id, names its
// own rule refuses): the event is dropped, not retried.
var ErrInvalidProfileEvent = errors.New("profile event cannot be applied")

// TakeProfileNames gives the user the first and last names they saved in their profile
// (profiles' ProfileUpdated, changed at changedAt). Access tokens carry the names, and transfers
// puts them on the recipient's SMS and the sender's e-mails: without this, those kept the names
// typed at sign-up however often the profile changed. It is idempotent and never goes back: a
// redelivered or older change applies nothing. When the names really change, UserRenamed goes
// out in the same transaction, so that every BFF drops the user's cached tokens at once and
// transfers renames the sender of the user's scheduled sends.
// An event about a user identity does not know (an account closed since) is ignored.
func (s *Service) TakeProfileNames(ctx context.Context, userID, first, last string, changedAt time.Time) error {
	if _, err := uuid.Parse(userID); err != nil {
		return fmt.Errorf("%w: user id %q", ErrInvalidProfileEvent, userID)
	}
	name, err := domain.ParseName(first, last)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidProfileEvent, err)
	}
	if changedAt.IsZero() {
		changedAt = s.now()
	}
	return s.store.InTx(ctx, func(tx Tx) error {
		renamed, err := tx.RenameUser(ctx, userID, name, changedAt)
		if errors.Is(err, domain.ErrUserNotFound) {
			return nil
		}
		if err != nil || !renamed {
			return err
		}
		msg, err := events.Renamed(userID, name, changedAt, s.now())
		if err != nil {
			return err
		}
		return tx.Publish(ctx, msg)
	})
}
