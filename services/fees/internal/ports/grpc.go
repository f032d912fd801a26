// Package ports is the fees service's gRPC API: proto ↔ domain mapping and the one place
// where errors become status codes.
package ports

import (
	"context"
	"errors"
	"log/slog"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/fees/internal/app"
	"github.com/thumela/thumela/services/fees/internal/domain"
	"github.com/thumela/thumela/services/platform/auth"
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

var banksToProto = map[domain.Bank]feesv1.Bank{
	domain.StandardBank: feesv1.Bank_BANK_STANDARD_BANK,
	domain.ABSA:         feesv1.Bank_BANK_ABSA,
	domain.FNB:          feesv1.Bank_BANK_FNB,
	domain.Nedbank:      feesv1.Bank_BANK_NEDBANK,
	domain.Capitec:      feesv1.Bank_BANK_CAPITEC,
}

func bankFromProto(b feesv1.Bank) domain.Bank {
	for d, p := range banksToProto {
		if p == b {
			return d
		}
	}
	return "" // unspecified or a value this build does not know: the fallback applies
}

// ListBanks returns the banks' fee schedules.
func (s *Server) ListBanks(ctx context.Context, _ *feesv1.ListBanksRequest) (*feesv1.ListBanksResponse, error) {
	banks, err := s.app.ListBanks(ctx)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	res := &feesv1.ListBanksResponse{}
	for _, b := range banks {
		pb, ok := banksToProto[b.Bank]
		if !ok {
			continue // a row for a bank the contract does not have yet
		}
		res.Banks = append(res.Banks, &feesv1.BankFee{
			Bank:             pb,
			DisplayName:      b.DisplayName,
			BaseFeeCents:     b.BaseFee.Cents(),
			PercentageFeeBps: b.PercentageBps,
		})
	}
	return res, nil
}

// Quote prices a transfer for the caller.
func (s *Server) Quote(ctx context.Context, req *feesv1.QuoteRequest) (*feesv1.QuoteResponse, error) {
	claims, ok := auth.FromContext(ctx)
	if !ok {
		return nil, status.Error(codes.Unauthenticated, "authentication required")
	}
	q, err := s.app.Quote(ctx, claims.Subject, bankFromProto(req.GetBank()), domain.Cents(req.GetAmountCents()))
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &feesv1.QuoteResponse{Quote: &feesv1.Quote{
		AmountCents:      q.Amount.Cents(),
		BankFeeCents:     q.BankFee.Cents(),
		PlatformFeeCents: q.PlatformFee.Cents(),
		TotalFeeCents:    q.TotalFee().Cents(),
		TotalAmountCents: q.Total().Cents(),
		Waived:           q.Waived,
		WaivedFeeCents:   q.WaivedFee().Cents(),
		Fallback:         q.Fallback,
	}}, nil
}

func (s *Server) toStatus(ctx context.Context, err error) error {
	var amount *domain.AmountError
	if errors.As(err, &amount) {
		return grpcserver.BadRequestOrdered(amount.Error(),
			grpcserver.FieldViolation{Field: "amount_cents", Description: amount.Error()})
	}
	return grpcserver.Internal(ctx, s.logger, err)
}
