package app

import (
	"time"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// Window bounds a listing on created_at: From inclusive, Before exclusive; a zero bound is
// open. A statement's period (Africa/Johannesburg days) is turned into instants by the BFF.
type Window struct {
	From   time.Time
	Before time.Time
}

// validate refuses an empty or reversed window: it is a caller's mistake, not "no transfers".
func (w Window) validate() error {
	if !w.From.IsZero() && !w.Before.IsZero() && !w.Before.After(w.From) {
		return &domain.ValidationError{Violations: []domain.Violation{{
			Field: "created_before", Message: "The end of the period must be after its start.",
		}}}
	}
	return nil
}
