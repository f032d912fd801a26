package domain_test

import (
	"errors"
	"testing"
	"time"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

func TestCheckStepUp(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, time.March, 18, 12, 0, 0, 0, domain.Johannesburg)
	tests := []struct {
		name       string
		amount     int64
		paidBefore bool
		at         time.Time
		required   bool
	}{
		{"new phone, small, no step-up", 50_000, false, time.Time{}, true},
		{"known phone, small, no step-up", 50_000, true, time.Time{}, false},
		{"known phone, R1,000.00 exactly", 100_000, true, time.Time{}, false},
		{"known phone, R1,000.01", 100_001, true, time.Time{}, true},
		{"known phone, R1,010", 101_000, true, time.Time{}, true},
		{"new phone, fresh step-up", 50_000, false, now.Add(-time.Minute), false},
		{"known phone, R1,500, fresh step-up", 150_000, true, now.Add(-time.Minute), false},
		{"step-up exactly 5 minutes old", 150_000, true, now.Add(-domain.StepUpWindow), false},
		{"stale step-up (6 minutes)", 150_000, true, now.Add(-6 * time.Minute), true},
		{"stale step-up, new phone", 50_000, false, now.Add(-6 * time.Minute), true},
		{"step-up a little in the future (clock skew)", 50_000, false, now.Add(30 * time.Second), false},
		{"step-up far in the future", 50_000, false, now.Add(2 * time.Minute), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := domain.CheckStepUp(domain.Cents(tt.amount), tt.paidBefore, tt.at, now)
			if got := errors.Is(err, domain.ErrStepUpRequired); got != tt.required || (!tt.required && err != nil) {
				t.Fatalf("CheckStepUp = %v, want required %v", err, tt.required)
			}
		})
	}
}
