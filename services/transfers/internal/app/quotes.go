package app

import (
	"context"

	"github.com/thumela/thumela/services/platform/feeschedule"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// FeeQuote is what a transfer would cost its sender now (QuoteFee).
type FeeQuote struct {
	Amount domain.Money
	Fee    domain.Fee
	// Fallback: the fee schedule had no fee for the bank, and the fallback priced it.
	Fallback bool
}

// QuoteFee prices a transfer of amount to bank for the caller as their create would be charged
// now: the price from the fee schedule (held in memory, or the fees service's before one
// arrived) and the first-transfer waiver by the create's own rule on the caller's own transfers
// (domain.DecideFee on HasTransferred). The wizard's summary shows it. Quoting here rather than
// in fees means the summary cannot promise a free transfer that the create then charges for:
// fees learnt of transfers from their events, a moment after each one.
func (s *Service) QuoteFee(ctx context.Context, c Caller, bank domain.Bank, amount domain.Money) (FeeQuote, error) {
	userID, err := self(c)
	if err != nil {
		return FeeQuote{}, err
	}
	// A bank the create would refuse gets no price either (the fees service prices an unknown
	// bank at its fallback): the same words as the create's.
	var violations []domain.Violation
	if !bank.Known() {
		violations = append(violations, domain.Violation{Field: "bank", Message: domain.MsgChooseBank})
	}
	if problem := feeschedule.AmountProblem(amount.Cents()); problem != "" {
		violations = append(violations, domain.Violation{Field: "amount_cents", Message: problem})
	}
	if len(violations) > 0 {
		return FeeQuote{}, &domain.ValidationError{Violations: violations}
	}
	quote, err := s.fees.Quote(ctx, bank, amount)
	if err != nil {
		return FeeQuote{}, err
	}
	used, err := s.repo.HasTransferred(ctx, userID)
	if err != nil {
		return FeeQuote{}, err
	}
	return FeeQuote{Amount: amount, Fee: domain.DecideFee(quote, used), Fallback: quote.Fallback}, nil
}
