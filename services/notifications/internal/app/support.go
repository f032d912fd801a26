package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/thumela/thumela/services/notifications/internal/domain"
)

// SubmitSupportMessage validates and stores a support message, rate-limited per account for a
// signed-in sender and per client address for a visitor, and has it e-mailed to the support inbox; it returns the stored message (with its
// ticket).
func (s *Service) SubmitSupportMessage(ctx context.Context, caller Caller, in domain.SupportInput) (domain.SupportMessage, error) {
	in.UserID, in.UserEmail, in.UserName = caller.UserID, caller.Email, caller.Name
	// A visitor is known by its address only; a signed-in user by their id (and counted by it).
	in.VisitorNeedsAnAddress = caller.UserID == ""
	m, err := domain.NewSupportMessage(in, s.now())
	if err != nil {
		return domain.SupportMessage{}, err
	}
	saved, err := s.support.SubmitSupport(ctx, m, domain.SupportLimits, s.supportEmail)
	if err != nil {
		var rl *domain.RateLimitedError
		if errors.As(err, &rl) {
			return domain.SupportMessage{}, err
		}
		return domain.SupportMessage{}, fmt.Errorf("submit support message: %w", err)
	}
	s.logger.InfoContext(ctx, "support message stored", "ticket", saved.Ticket, "kind", string(saved.Kind))
	return saved, nil
}
