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

// SMSBudgetSpent's field.
const (
	FieldRecipient  = "recipient"
	MsgBadRecipient = "The recipient must be a mobile number in international form, e.g. +27825550143."
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

// SMSBudgetSpent reports whether an SMS to recipient (E.164) on the caller's behalf would now be
// failed for the sender's budget (ReasonRecipientBudget), so that a sender is told before asking
// for one (a voucher's resend: its new number and PIN would never reach the phone).
func (s *Service) SMSBudgetSpent(ctx context.Context, caller Caller, recipient string) (bool, error) {
	if caller.UserID == "" {
		return false, errors.New("sms budget: no user")
	}
	if !domain.ValidRecipient(domain.ChannelSMS, recipient) {
		return false, &domain.ValidationError{Violations: []domain.FieldViolation{{Field: FieldRecipient, Message: MsgBadRecipient}}}
	}
	spent, err := s.budget.SMSBudgetSpent(ctx, recipient, caller.UserID, s.now())
	if err != nil {
		return false, fmt.Errorf("sms budget: %w", err)
	}
	return spent, nil
}
