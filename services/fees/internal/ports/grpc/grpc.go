// Package grpcport is the fees service's gRPC API: its access policy, proto ↔ domain mapping
// and the one place where errors become status codes.
package grpcport

import (
	"context"
	"errors"
	"log/slog"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/fees/internal/app"
	"github.com/thumela/thumela/services/fees/internal/domain"
	"github.com/thumela/thumela/services/platform/feeschedule"
	"github.com/thumela/thumela/services/platform/grpcserver"
)

// Server implements feesv1.FeesServiceServer.
type Server struct {
	feesv1.UnimplementedFeesServiceServer
	app    *app.Service
	logger *slog.Logger
}

// NewServer returns the gRPC API over svc.
func NewServer(svc *app.Service, logger *slog.Logger) *Server {
	return &Server{app: svc, logger: logger}
}

// bankFromProto maps the contract's bank to the table's key by the shared mapping
// (feeschedule), the one the published schedule uses: "" for unspecified or a value this build
// does not know, which gets the fallback.
func bankFromProto(b feesv1.Bank) domain.Bank { return domain.Bank(feeschedule.BankFromProto(b)) }

// ListBanks returns the banks' fee schedules.
func (s *Server) ListBanks(ctx context.Context, _ *feesv1.ListBanksRequest) (*feesv1.ListBanksResponse, error) {
	banks, err := s.app.ListBanks(ctx)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	res := &feesv1.ListBanksResponse{}
	for _, b := range banks {
		pb, ok := feeschedule.BankFeeToProto(b.Shared())
		if !ok {
			continue // a row for a bank the contract does not have yet
		}
		res.Banks = append(res.Banks, pb)
	}
	return res, nil
}

// Quote prices a transfer at the list price (the waiver is the transfers service's).
func (s *Server) Quote(ctx context.Context, req *feesv1.QuoteRequest) (*feesv1.QuoteResponse, error) {
	q, err := s.app.Quote(ctx, bankFromProto(req.GetBank()), domain.Cents(req.GetAmountCents()))
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &feesv1.QuoteResponse{Quote: &feesv1.Quote{
		AmountCents:      q.Amount.Cents(),
		BankFeeCents:     q.BankFee.Cents(),
		PlatformFeeCents: q.PlatformFee.Cents(),
		TotalFeeCents:    q.Fee().Cents(),
		TotalAmountCents: q.Total().Cents(),
		Fallback:         q.Fallback,
	}}, nil
}

func (s *Server) toStatus(ctx context.Context, err error) error {
	var amount *domain.AmountError
	if errors.As(err, &amount) {
		return grpcserver.BadRequestOrdered(amount.Error(),
			grpcserver.FieldViolation{Field: "amount_cents", Description: amount.Error()})
	}
	return grpcserver.Unexpected(ctx, s.logger, err)
}
