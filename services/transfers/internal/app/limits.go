package app

import (
	"context"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// LimitsReport is the sender's usage against each limit and the money waiting in their
// vouchers, as the wizard's meter and the dashboard's card show them.
type LimitsReport struct {
	Limits []domain.LimitUsage
	// Uncollected is the sum of the amounts (fees excluded) of the vouchers awaiting collection.
	Uncollected         domain.Money
	UncollectedVouchers int
}

// GetLimits reports the caller's usage against each limit, in Johannesburg time, from the
// running totals, and the money waiting in their uncollected vouchers.
func (s *Service) GetLimits(ctx context.Context, c Caller) (LimitsReport, error) {
	userID, err := self(c)
	if err != nil {
		return LimitsReport{}, err
	}
	usage, err := s.repo.Usage(ctx, userID, domain.PeriodsAt(s.now()))
	if err != nil {
		return LimitsReport{}, err
	}
	money, n, err := s.repo.Uncollected(ctx, userID)
	if err != nil {
		return LimitsReport{}, err
	}
	return LimitsReport{Limits: s.limits.Report(usage), Uncollected: money, UncollectedVouchers: n}, nil
}

// LimitPolicy is the configured limits, for anyone: the public pages state the figures the
// service enforces, never a copy of them.
func (s *Service) LimitPolicy() domain.Limits { return s.limits }
