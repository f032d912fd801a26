package app

import (
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
	// smsPerRecipientPerDay is the Deliverer's SMS budget (DeliverConfig.SMSPerRecipientPerDay).
	smsPerRecipientPerDay int
	now                   func() time.Time
	logger                *slog.Logger
}

// NewService returns the API's use cases; smsPerRecipientPerDay must be the Deliverer's budget.
// now nil means time.Now.
func NewService(repo Repository, support SupportStore, supportEmail string, smsPerRecipientPerDay int, now func() time.Time, logger *slog.Logger) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{repo: repo, support: support, supportEmail: supportEmail, smsPerRecipientPerDay: smsPerRecipientPerDay, now: now, logger: logger}
}
