// Package app holds the fees use cases: listing the banks' fee schedules and quoting a
// transfer.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/thumela/thumela/services/fees/internal/domain"
)

// ErrBankNotFound is returned by a BankFees repository for a bank without a row.
var ErrBankNotFound = errors.New("bank not found")

// BankFees reads the banks' fee schedules (the bank_fees table).
type BankFees interface {
	List(ctx context.Context) ([]domain.BankFee, error)
	// Get returns ErrBankNotFound when the bank has no schedule.
	Get(ctx context.Context, bank domain.Bank) (domain.BankFee, error)
}

// TransferHistory tells whether a user has made a transfer before, for the first-transfer
// waiver (DECISIONS.md: the sender's first transfer carries no fee). It is a projection of the
// transfers service's status events (thumela.transfers.*.status): a user has transferred when
// any of their transfers has a status other than failed.
//
// Events arrive a moment after the transfer commits, so a quote can still say "waived" just
// after a first transfer; the transfers service decides the waiver for certain when it stores
// a transfer, and this projection only has to be right for the quote shown in the wizard.
type TransferHistory interface {
	HasTransferred(ctx context.Context, userID string) (bool, error)
	// Record stores a transfer's status. It is idempotent, and a status earlier in the state
	// machine than the one stored (a redelivered older event) changes nothing.
	Record(ctx context.Context, transferID, userID string, status domain.TransferStatus) error
}

// ErrInvalidEvent is returned by RecordTransfer for an event that can never be recorded.
var ErrInvalidEvent = errors.New("invalid transfer event")

// Service implements the use cases.
type Service struct {
	fees    BankFees
	history TransferHistory // nil: the waiver is not applied yet
	logger  *slog.Logger
}

// New returns the service; history may be nil (no waiver, nothing recorded).
func New(fees BankFees, history TransferHistory, logger *slog.Logger) *Service {
	return &Service{fees: fees, history: history, logger: logger}
}

// ListBanks returns every bank's schedule in the product's order.
func (s *Service) ListBanks(ctx context.Context) ([]domain.BankFee, error) {
	banks, err := s.fees.List(ctx)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(banks, func(a, b domain.BankFee) int { return a.Bank.Rank() - b.Bank.Rank() })
	return banks, nil
}

// Quote prices a transfer of amount to bank for userID. An unknown or unspecified bank, or a
// schedule that cannot be read, gets the fallback schedule (R10.00 + 0.3 %) and a quote
// marked fallback: a transfer is never blocked because a fee row is missing.
func (s *Service) Quote(ctx context.Context, userID string, bank domain.Bank, amount domain.Money) (domain.Quote, error) {
	// Refuse a bad amount before touching the database.
	if _, err := domain.NewQuote(amount, domain.Fallback, true); err != nil {
		return domain.Quote{}, err
	}
	schedule, fallback := domain.Fallback, true
	if bank.Known() {
		fee, err := s.fees.Get(ctx, bank)
		switch {
		case err == nil:
			schedule, fallback = fee, false
		case errors.Is(err, ErrBankNotFound):
			s.logger.WarnContext(ctx, "no fee schedule for bank, applying the fallback", "bank", string(bank))
		default:
			s.logger.WarnContext(ctx, "reading the bank fee failed, applying the fallback",
				"bank", string(bank), "error", err)
		}
	}
	q, err := domain.NewQuote(amount, schedule, fallback)
	if err != nil {
		return domain.Quote{}, err
	}
	if s.history != nil {
		before, err := s.history.HasTransferred(ctx, userID)
		if err != nil {
			// Not knowing must not charge a first-time sender who was promised a free
			// transfer, nor give every transfer away: fail the quote.
			return domain.Quote{}, err
		}
		if !before {
			q.Waive()
		}
	}
	return q, nil
}

// RecordTransfer records a transfer's status from the transfers service's events.
func (s *Service) RecordTransfer(ctx context.Context, transferID, userID string, status domain.TransferStatus) error {
	if transferID == "" || userID == "" || status.Rank() == 0 {
		return fmt.Errorf("%w: transfer %q of user %q with status %q", ErrInvalidEvent, transferID, userID, status)
	}
	if s.history == nil {
		return nil
	}
	return s.history.Record(ctx, transferID, userID, status)
}
