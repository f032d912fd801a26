package app

import (
	"context"
	"errors"

	"github.com/thumela/thumela/services/fees/internal/domain"
	"github.com/thumela/thumela/services/platform/feeschedule"
)

// ErrBankNotFound is returned by a BankFees repository for a bank without a row.
var ErrBankNotFound = errors.New("bank not found")

// BankFees reads the banks' fee schedules (the bank_fees table).
type BankFees interface {
	List(ctx context.Context) ([]domain.BankFee, error)
	// Get returns ErrBankNotFound when the bank has no schedule.
	Get(ctx context.Context, bank domain.Bank) (domain.BankFee, error)
}

// ScheduleSource is where the fee schedule and its version are read (the bank_fees table and
// the version its trigger bumps).
type ScheduleSource interface {
	// ScheduleVersion is cheap: it is polled.
	ScheduleVersion(ctx context.Context) (int64, error)
	// Schedule returns the banks' fees with the version that names exactly them.
	Schedule(ctx context.Context) (feeschedule.Schedule, error)
}

// ScheduleWriter is where the fee schedule is published for the transfers service (the NATS KV
// bucket it watches).
type ScheduleWriter interface {
	// Write publishes s unless the same version or a newer one is published already (another
	// fees replica was quicker, or this one read an older snapshot), and returns the version
	// now published.
	Write(ctx context.Context, s feeschedule.Schedule) (int64, error)
}
