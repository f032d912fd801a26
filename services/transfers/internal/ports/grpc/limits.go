package grpcport

import (
	"context"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/intconv"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// GetLimits reports the caller's usage against each limit and the money waiting in their
// uncollected vouchers.
func (s *Server) GetLimits(ctx context.Context, _ *transfersv1.GetLimitsRequest) (*transfersv1.GetLimitsResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	rep, err := s.app.GetLimits(ctx, c)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	res := &transfersv1.GetLimitsResponse{
		UncollectedCents:    rep.Uncollected.Cents(),
		UncollectedVouchers: intconv.Int32(rep.UncollectedVouchers),
	}
	for _, l := range rep.Limits {
		res.Limits = append(res.Limits, &transfersv1.LimitUsage{
			Kind:           limitKinds[l.Kind],
			LimitCents:     l.Limit.Cents(),
			UsedCents:      l.Used.Cents(),
			RemainingCents: l.Remaining.Cents(),
		})
	}
	return res, nil
}

// GetLimitPolicy answers the configured limits; the policy lets anyone ask (auth.Public), as
// the figures are the same for every sender and published on the public pages.
func (s *Server) GetLimitPolicy(context.Context, *transfersv1.GetLimitPolicyRequest) (*transfersv1.GetLimitPolicyResponse, error) {
	l := s.app.LimitPolicy()
	return &transfersv1.GetLimitPolicyResponse{
		Limits: []*transfersv1.LimitPolicy{
			{Kind: transfersv1.LimitKind_LIMIT_KIND_MINIMUM, LimitCents: l.Minimum.Cents()},
			{Kind: transfersv1.LimitKind_LIMIT_KIND_PER_TRANSFER, LimitCents: l.PerTransfer.Cents()},
			{Kind: transfersv1.LimitKind_LIMIT_KIND_DAILY, LimitCents: l.Daily.Cents()},
			{Kind: transfersv1.LimitKind_LIMIT_KIND_MONTHLY, LimitCents: l.Monthly.Cents()},
			{Kind: transfersv1.LimitKind_LIMIT_KIND_YEARLY, LimitCents: l.Yearly.Cents()},
		},
		AmountMultipleCents: domain.NoteCents,
	}, nil
}

// QuoteFee prices a transfer for the caller as their create would be charged now.
func (s *Server) QuoteFee(ctx context.Context, req *transfersv1.QuoteFeeRequest) (*transfersv1.QuoteFeeResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	q, err := s.app.QuoteFee(ctx, c, bankFromProto(req.GetBank()), domain.Cents(req.GetAmountCents()))
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &transfersv1.QuoteFeeResponse{Quote: quoteToProto(q)}, nil
}

// quoteToProto is the fees contract's Quote of q: the fee that would apply stays visible when
// it is waived.
func quoteToProto(q app.FeeQuote) *feesv1.Quote {
	charged := q.Fee.Charged()
	out := &feesv1.Quote{
		AmountCents:      q.Amount.Cents(),
		BankFeeCents:     q.Fee.BankFee.Cents(),
		PlatformFeeCents: q.Fee.PlatformFee.Cents(),
		TotalFeeCents:    charged.Cents(),
		TotalAmountCents: q.Amount.Add(charged).Cents(),
		Waived:           q.Fee.Waived,
		Fallback:         q.Fallback,
	}
	if q.Fee.Waived {
		out.WaivedFeeCents = q.Fee.Full().Cents()
	}
	return out
}
