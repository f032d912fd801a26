package app

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/thumela/thumela/services/notifications/internal/domain"
)

// Limits of ListDeliveries.
const (
	MaxReferences      = 50
	MaxReferenceLength = 100
	FieldReferences    = "references"
	MsgTooManyRefs     = "At most 50 references."
	MsgBadReference    = "A reference is empty or too long."
)

// ListDeliveries returns the caller's deliveries about references, newest first; another
// user's are never returned.
func (s *Service) ListDeliveries(ctx context.Context, caller Caller, references []string) ([]domain.Delivery, error) {
	if caller.UserID == "" {
		return nil, errors.New("list deliveries: no user")
	}
	if len(references) > MaxReferences {
		return nil, &domain.ValidationError{Violations: []domain.FieldViolation{{Field: FieldReferences, Message: MsgTooManyRefs}}}
	}
	for _, r := range references {
		if r == "" || utf8.RuneCountInString(r) > MaxReferenceLength || !utf8.ValidString(r) {
			return nil, &domain.ValidationError{Violations: []domain.FieldViolation{{Field: FieldReferences, Message: MsgBadReference}}}
		}
	}
	if len(references) == 0 {
		return nil, nil
	}
	out, err := s.repo.List(ctx, caller.UserID, references)
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	return out, nil
}
