package app

import (
	"context"
	"log/slog"
	"time"
)

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
	// budget is the Deliverer's SMS budget, asked rather than copied: one rule, one setting.
	budget SMSBudget
	now    func() time.Time
	logger *slog.Logger
}

// SMSBudget is the Deliverer's rule for the SMS one sender may send one number
// (Deliverer.SMSBudgetSpent).
type SMSBudget interface {
	SMSBudgetSpent(ctx context.Context, recipient, userID string, at time.Time) (bool, error)
}

// NewService returns the API's use cases over the Deliverer's SMS budget. now nil means
// time.Now.
func NewService(repo Repository, support SupportStore, budget SMSBudget, supportEmail string, now func() time.Time, logger *slog.Logger) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{repo: repo, support: support, budget: budget, supportEmail: supportEmail, now: now, logger: logger}
}
