// Package ports is the transfers service's gRPC API: proto ↔ domain mapping, the access
// policy, and the one place where errors become status codes.
package ports

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/events"
)

// ATMGatewayService is the service-token subject of the ATM network's gateway, the only caller
// of CollectVoucher. Identity issues it tokens when IDENTITY_SERVICE_SECRETS lists it.
const ATMGatewayService = "atm-gateway"

// Policy: every method but CollectVoucher and ReverseCollection acts on the calling user's own
// transfers; those two are for the ATM gateway alone (no user may collect, not even the
// sender). ReverseCollection is in the contract but not served yet (Unimplemented): its rule is
// here so that the policy covers every method of the service, as the server requires.
var Policy = auth.Policy{
	transfersv1.TransfersService_CreateTransfer_FullMethodName:    auth.User,
	transfersv1.TransfersService_GetTransfer_FullMethodName:       auth.User,
	transfersv1.TransfersService_ListTransfers_FullMethodName:     auth.User,
	transfersv1.TransfersService_CancelTransfer_FullMethodName:    auth.User,
	transfersv1.TransfersService_GetLimits_FullMethodName:         auth.User,
	transfersv1.TransfersService_CollectVoucher_FullMethodName:    auth.Services(ATMGatewayService),
	transfersv1.TransfersService_ReverseCollection_FullMethodName: auth.Services(ATMGatewayService),
}

// Server implements transfersv1.TransfersServiceServer.
type Server struct {
	transfersv1.UnimplementedTransfersServiceServer
	app    *app.Service
	logger *slog.Logger
}

// NewServer returns the gRPC API over svc.
func NewServer(svc *app.Service, logger *slog.Logger) *Server {
	return &Server{app: svc, logger: logger}
}

// caller is the user the call is made for (Unauthenticated without a user token).
func caller(ctx context.Context) (app.Caller, error) {
	c, err := auth.RequireUser(ctx)
	if err != nil {
		return app.Caller{}, err
	}
	return app.Caller{UserID: c.Subject, GivenName: c.GivenName, FamilyName: c.FamilyName, Email: c.Email}, nil
}

// CreateTransfer accepts a transfer, pending.
func (s *Server) CreateTransfer(ctx context.Context, req *transfersv1.CreateTransferRequest) (*transfersv1.CreateTransferResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.app.CreateTransfer(ctx, c, req.GetUserId(), domain.RequestInput{
		IdempotencyKey:  req.GetIdempotencyKey(),
		RecipientName:   req.GetRecipientName(),
		RecipientPhone:  req.GetRecipientPhone(),
		Bank:            events.BankFromProto(req.GetBank()),
		AmountCents:     req.GetAmountCents(),
		PaymentMethodID: req.GetPaymentMethodId(),
		Location: domain.Location{
			Name: req.GetWithdrawalLocation().GetName(),
			Type: req.GetWithdrawalLocation().GetType(),
		},
	})
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &transfersv1.CreateTransferResponse{Transfer: events.Transfer(t)}, nil
}

// GetTransfer returns one of the caller's transfers.
func (s *Server) GetTransfer(ctx context.Context, req *transfersv1.GetTransferRequest) (*transfersv1.GetTransferResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.app.GetTransfer(ctx, c, req.GetUserId(), req.GetTransferId())
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &transfersv1.GetTransferResponse{Transfer: events.Transfer(t)}, nil
}

// ListTransfers pages through the caller's transfers.
func (s *Server) ListTransfers(ctx context.Context, req *transfersv1.ListTransfersRequest) (*transfersv1.ListTransfersResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	st := events.StatusFromProto(req.GetStatus())
	if st == "" && req.GetStatus() != transfersv1.TransferStatus_TRANSFER_STATUS_UNSPECIFIED {
		return nil, grpcserver.BadRequestOrdered("Unknown status.", grpcserver.FieldViolation{Field: "status", Description: "Unknown status."})
	}
	page, err := s.app.ListTransfers(ctx, c, req.GetUserId(), req.GetQuery(), st, int(req.GetPage()), int(req.GetPageSize()))
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	res := &transfersv1.ListTransfersResponse{TotalCount: int32(page.Total)}
	for _, t := range page.Transfers {
		res.Transfers = append(res.Transfers, events.Transfer(t))
	}
	return res, nil
}

// CancelTransfer cancels the caller's voucher awaiting collection; the refund follows.
func (s *Server) CancelTransfer(ctx context.Context, req *transfersv1.CancelTransferRequest) (*transfersv1.CancelTransferResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.app.CancelTransfer(ctx, c, req.GetUserId(), req.GetTransferId())
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &transfersv1.CancelTransferResponse{Transfer: events.Transfer(t)}, nil
}

var limitKinds = map[domain.LimitKind]transfersv1.LimitKind{
	domain.LimitPerTransfer: transfersv1.LimitKind_LIMIT_KIND_PER_TRANSFER,
	domain.LimitDaily:       transfersv1.LimitKind_LIMIT_KIND_DAILY,
	domain.LimitMonthly:     transfersv1.LimitKind_LIMIT_KIND_MONTHLY,
	domain.LimitYearly:      transfersv1.LimitKind_LIMIT_KIND_YEARLY,
	domain.LimitMinimum:     transfersv1.LimitKind_LIMIT_KIND_MINIMUM,
}

// GetLimits reports the caller's usage against each limit.
func (s *Server) GetLimits(ctx context.Context, req *transfersv1.GetLimitsRequest) (*transfersv1.GetLimitsResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	limits, err := s.app.GetLimits(ctx, c, req.GetUserId())
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	res := &transfersv1.GetLimitsResponse{}
	for _, l := range limits {
		res.Limits = append(res.Limits, &transfersv1.LimitUsage{
			Kind:           limitKinds[l.Kind],
			LimitCents:     l.Limit.Cents(),
			UsedCents:      l.Used.Cents(),
			RemainingCents: l.Remaining.Cents(),
		})
	}
	return res, nil
}

// CollectVoucher is a withdrawal at an ATM, for the ATM gateway.
func (s *Server) CollectVoucher(ctx context.Context, req *transfersv1.CollectVoucherRequest) (*transfersv1.CollectVoucherResponse, error) {
	// The policy admits only the gateway's service token; checked again here so that the
	// handler never runs for anyone else, whatever the policy becomes.
	if c, ok := auth.FromContext(ctx); !ok || !c.IsService(ATMGatewayService) {
		return nil, status.Error(codes.PermissionDenied, "caller not allowed")
	}
	t, err := s.app.CollectVoucher(ctx, domain.CollectInput{
		VoucherNumber:  req.GetVoucherNumber(),
		PIN:            req.GetPin(),
		RecipientPhone: req.GetRecipientPhone(),
		Bank:           events.BankFromProto(req.GetBank()),
		ATMID:          req.GetAtmId(),
	})
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &transfersv1.CollectVoucherResponse{
		TransferId:  t.ID().String(),
		AmountCents: t.Amount().Cents(),
		CollectedAt: timestamppb.New(t.Voucher().CollectedAt),
	}, nil
}

// Collection refusals, as the ATM shows them.
const (
	msgVoucherCredentials = "The voucher number, PIN or phone number is incorrect."
	msgVoucherCollected   = "This voucher has already been collected."
	msgVoucherCancelled   = "This voucher was cancelled by the sender and can no longer be collected."
	msgVoucherExpired     = "This voucher has expired and can no longer be collected."
)

func (s *Server) toStatus(ctx context.Context, err error) error {
	var (
		verr   *domain.ValidationError
		limit  *domain.LimitError
		locked *domain.VoucherLockedError
		bank   *domain.WrongBankError
	)
	switch {
	case errors.As(err, &verr) && len(verr.Violations) > 0:
		violations := make([]grpcserver.FieldViolation, len(verr.Violations))
		for i, v := range verr.Violations {
			violations[i] = grpcserver.FieldViolation{Field: v.Field, Description: v.Message}
		}
		return grpcserver.BadRequestOrdered(verr.Violations[0].Message, violations...)
	case errors.As(err, &limit):
		st := status.New(codes.FailedPrecondition, limit.Error())
		if d, derr := st.WithDetails(&transfersv1.LimitExceeded{
			Kind:           limitKinds[limit.Kind],
			LimitCents:     limit.Limit.Cents(),
			RemainingCents: limit.Remaining.Cents(),
		}); derr == nil {
			st = d
		}
		return st.Err()
	case errors.Is(err, domain.ErrNotFound):
		return status.Error(codes.NotFound, "transfer not found")
	case errors.Is(err, domain.ErrVoucherCredentials):
		return status.Error(codes.PermissionDenied, msgVoucherCredentials)
	case errors.As(err, &locked):
		return status.Error(codes.ResourceExhausted, fmt.Sprintf(
			"Too many incorrect attempts: this voucher is locked until %s. Please try again after that.",
			locked.Until.In(domain.Johannesburg).Format("2 Jan 2006 15:04 SAST")))
	case errors.As(err, &bank):
		return status.Error(codes.FailedPrecondition, fmt.Sprintf(
			"This voucher can only be withdrawn at a %s ATM.", bank.Bank.DisplayName()))
	case errors.Is(err, domain.ErrVoucherCollected):
		return status.Error(codes.FailedPrecondition, msgVoucherCollected)
	case errors.Is(err, domain.ErrVoucherCancelled):
		return status.Error(codes.FailedPrecondition, msgVoucherCancelled)
	case errors.Is(err, domain.ErrVoucherExpired):
		return status.Error(codes.FailedPrecondition, msgVoucherExpired)
	case errors.Is(err, domain.ErrIdempotencyConflict):
		return status.Error(codes.AlreadyExists, "This idempotency key was already used for a different transfer.")
	case errors.Is(err, app.ErrPaymentMethodNotFound):
		return grpcserver.BadRequestOrdered("payment method not found",
			grpcserver.FieldViolation{Field: "payment_method_id", Description: "payment method not found"})
	case errors.Is(err, app.ErrPaymentMethodNotUsable):
		return grpcserver.BadRequestOrdered("This payment method cannot be used for transfers yet. Please choose a card.",
			grpcserver.FieldViolation{Field: "payment_method_id", Description: "This payment method cannot be used for transfers yet. Please choose a card."})
	case errors.Is(err, domain.ErrNotCancellable):
		return status.Error(codes.FailedPrecondition, "Only a voucher that has not been collected, cancelled or expired can be cancelled.")
	case errors.Is(err, app.ErrUnavailable):
		s.logger.WarnContext(ctx, "a dependency is unavailable", "error", err)
		return grpcserver.WithRetryInfo(codes.Unavailable, "The service is temporarily unavailable. Please try again.", time.Second)
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, "request cancelled")
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, "the request took too long")
	default:
		return grpcserver.Internal(ctx, s.logger, err)
	}
}
