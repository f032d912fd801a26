package app

import (
	"context"
	"errors"
	"slices"

	"github.com/thumela/thumela/services/fees/internal/domain"
)

// ListBanks returns every bank's schedule in the product's order.
func (s *Service) ListBanks(ctx context.Context) ([]domain.BankFee, error) {
	banks, err := s.fees.List(ctx)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(banks, func(a, b domain.BankFee) int { return a.Bank.Rank() - b.Bank.Rank() })
	return banks, nil
}

// Quote prices a transfer of amount to bank at the list price: never waived, since whether a
// sender's first transfer is free is the transfers service's to decide (it holds their
// transfers). An unknown or unspecified bank, or a schedule that cannot be read, gets the
// fallback schedule (R10.00 + 0.3 %) and a quote marked fallback: a transfer is never blocked
// because a fee row is missing.
func (s *Service) Quote(ctx context.Context, bank domain.Bank, amount domain.Money) (domain.Quote, error) {
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
	return domain.NewQuote(amount, schedule, fallback)
}
