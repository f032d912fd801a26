package app

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// CreditRepository stores the credit ledger and the referrals (docs/credit.md). The spend, the
// return and the referrer's reward are not here: the repository makes them inside the
// transactions that create, fail, cancel, expire and complete transfers, so none of them can
// commit without the other.
type CreditRepository interface {
	// Credit returns the user's credit and referral figures, storing their referral code the
	// first time.
	Credit(ctx context.Context, userID uuid.UUID, at time.Time) (domain.Credit, error)
	// ReferrerOf returns the owner of a referral code, or domain.ErrNotFound.
	ReferrerOf(ctx context.Context, code string) (uuid.UUID, error)
	// Welcome records that friend joined with referrer's code and gives friend amount of
	// credit, once: welcomed is false when friend was welcomed before.
	Welcome(ctx context.Context, friend, referrer uuid.UUID, code string, amount domain.Money, at time.Time) (welcomed bool, err error)
}

// ErrInvalidEvent: an event that can never be processed (malformed ids); the consumer drops it.
var ErrInvalidEvent = errors.New("invalid event")

// GetCredit returns the caller's credit, their referral code and what it earned them.
func (s *Service) GetCredit(ctx context.Context, c Caller) (domain.Credit, error) {
	userID, err := self(c)
	if err != nil {
		return domain.Credit{}, err
	}
	return s.repo.Credit(ctx, userID, s.now())
}

// ReferralWelcome handles a verified user (identity's UserVerified) who signed up with code: a
// code that belongs to another user makes them a referred friend with the welcome credit,
// once however often the event comes. No code, a code nobody has, or the user's own code pays
// nothing (logged, without the code's owner).
func (s *Service) ReferralWelcome(ctx context.Context, friendID, code string, at time.Time) error {
	friend, err := uuid.Parse(friendID)
	if err != nil {
		return ErrInvalidEvent
	}
	if code == "" {
		return nil
	}
	if at.IsZero() {
		at = s.now()
	}
	referrer, err := s.repo.ReferrerOf(ctx, code)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		s.logger.InfoContext(ctx, "referral code unknown; no credit", "user_id", friend.String(), "code", code)
		return nil
	case err != nil:
		return err
	case referrer == friend:
		s.logger.InfoContext(ctx, "own referral code; no credit", "user_id", friend.String())
		return nil
	}
	welcomed, err := s.repo.Welcome(ctx, friend, referrer, code, s.welcome, at)
	if err != nil {
		return err
	}
	s.logger.InfoContext(ctx, "referred friend verified", "user_id", friend.String(), "welcomed", welcomed)
	return nil
}
