package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
	"unicode/utf8"

	"github.com/thumela/thumela/services/notifications/internal/domain"
)

// ProviderReport is one delivery report from the SMS provider.
type ProviderReport struct {
	domain.Report
	// UserSuppliedID is what the provider echoes of ours ("thm<row id>"); may be empty.
	UserSuppliedID string
}

// ApplyReports applies the provider's delivery reports: each to the delivery it names, never
// backwards, each status change with its event. Reports naming no delivery of ours (forged,
// or another account's) are ignored. An error (the database) means none after it was applied
// and the provider should send them again.
func (d *Deliverer) ApplyReports(ctx context.Context, reports []ProviderReport) (applied, ignored int, err error) {
	for _, r := range reports {
		rowID, _ := ParseUserSuppliedID(r.UserSuppliedID)
		if r.ProviderMessageID == "" && rowID == 0 {
			ignored++
			continue
		}
		now := d.cfg.Now()
		changed := false
		del, err := d.repo.UpdateSMS(ctx, r.ProviderMessageID, rowID, func(x *domain.Delivery) error {
			changed = x.Apply(r.Report, now)
			return nil
		})
		if errors.Is(err, domain.ErrNotFound) {
			ignored++
			continue
		}
		if err != nil {
			return applied, ignored, err
		}
		applied++
		if changed && del.Status == domain.StatusFailed {
			d.tel.failure(ctx, del.Channel, ProviderBulkSMS, "report")
		}
		if changed {
			d.logger.InfoContext(ctx, "delivery report applied", "request_id", del.RequestID.String(), "status", string(del.Status))
		}
	}
	return applied, ignored, nil
}

// Caller is who calls the API: a signed-in user (UserID set, with the token's e-mail and
// name), or a service acting for a visitor (UserID empty).
type Caller struct {
	UserID string
	Email  string
	Name   string
}

// Service implements the API's use cases.
type Service struct {
	repo    Repository
	support SupportStore
	// supportEmail is where support messages are mailed.
	supportEmail string
	now          func() time.Time
	logger       *slog.Logger
}

// NewService returns the API's use cases. now nil means time.Now.
func NewService(repo Repository, support SupportStore, supportEmail string, now func() time.Time, logger *slog.Logger) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{repo: repo, support: support, supportEmail: supportEmail, now: now, logger: logger}
}

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

// SubmitSupportMessage validates and stores a support message, rate-limited per client
// address, and has it e-mailed to the support inbox; it returns the stored message (with its
// ticket).
func (s *Service) SubmitSupportMessage(ctx context.Context, caller Caller, in domain.SupportInput) (domain.SupportMessage, error) {
	in.UserID, in.UserEmail, in.UserName = caller.UserID, caller.Email, caller.Name
	// A visitor is known by its address only; a signed-in user is also known by their id.
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
