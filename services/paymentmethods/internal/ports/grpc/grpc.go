// Package grpcport is the payment methods service's gRPC API: proto ↔ domain mapping, the access
// policy, and the one place where errors become status codes. No response, status message or
// log line written here carries a card number or a CVV.
package grpcport

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	"github.com/thumela/thumela/services/paymentmethods/internal/app"
	"github.com/thumela/thumela/services/paymentmethods/internal/domain"
	"github.com/thumela/thumela/services/paymentmethods/internal/events"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"
)

// Policy: a user manages their own cards; only the transfers service charges and refunds.
var Policy = auth.Policy{
	paymentmethodsv1.PaymentMethodsService_ListPaymentMethods_FullMethodName:      auth.User,
	paymentmethodsv1.PaymentMethodsService_GetPaymentMethod_FullMethodName:        auth.User,
	paymentmethodsv1.PaymentMethodsService_AddCard_FullMethodName:                 auth.User,
	paymentmethodsv1.PaymentMethodsService_UpdatePaymentMethod_FullMethodName:     auth.User,
	paymentmethodsv1.PaymentMethodsService_SetDefaultPaymentMethod_FullMethodName: auth.User,
	paymentmethodsv1.PaymentMethodsService_DeletePaymentMethod_FullMethodName:     auth.User,
	paymentmethodsv1.PaymentMethodsService_Charge_FullMethodName:                  auth.Services("transfers"),
	paymentmethodsv1.PaymentMethodsService_Refund_FullMethodName:                  auth.Services("transfers"),
	paymentmethodsv1.PaymentMethodsService_ListProcessorRecords_FullMethodName:    auth.Services("transfers"),
}

// User-facing messages of refusals.
const (
	MsgNotFound         = "Payment method not found."
	MsgChargeNotFound   = "charge not found"
	MsgAlreadySaved     = "This card is already saved."
	MsgInUse            = "This payment method is used in transactions and cannot be deleted."
	MsgTooMany          = "You can save up to 25 payment methods. Delete one to add another."
	MsgDeclinedFallback = "Your card could not be verified. Please check the details or use another card."
	MsgIdempotency      = "This idempotency key was already used for a different request."
	MsgNotRefundable    = "Only an approved charge can be refunded."
	MsgRefundExceeds    = "The refund exceeds what is left of the charge."
	MsgUnavailable      = "The payment processor is not available right now. Retry with the same idempotency key."
	MsgInProgress       = "A request with this idempotency key is still being processed. Retry with the same key."
)

// retryAfter is the wait suggested with Unavailable.
const retryAfter = 2 * time.Second

// Server implements paymentmethodsv1.PaymentMethodsServiceServer.
type Server struct {
	paymentmethodsv1.UnimplementedPaymentMethodsServiceServer
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
	return app.Caller{UserID: c.Subject}, nil
}

// ListPaymentMethods lists the caller's methods, the default first, then newest first.
func (s *Server) ListPaymentMethods(ctx context.Context, _ *paymentmethodsv1.ListPaymentMethodsRequest) (*paymentmethodsv1.ListPaymentMethodsResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	ms, err := s.app.List(ctx, c)
	if err != nil {
		return nil, s.toStatus(ctx, err, MsgNotFound)
	}
	out := make([]*paymentmethodsv1.PaymentMethod, len(ms))
	for i, m := range ms {
		out[i] = events.PaymentMethod(m)
	}
	return &paymentmethodsv1.ListPaymentMethodsResponse{PaymentMethods: out}, nil
}

// GetPaymentMethod returns one of the caller's methods.
func (s *Server) GetPaymentMethod(ctx context.Context, req *paymentmethodsv1.GetPaymentMethodRequest) (*paymentmethodsv1.GetPaymentMethodResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	m, err := s.app.Get(ctx, c, req.GetPaymentMethodId())
	if err != nil {
		return nil, s.toStatus(ctx, err, MsgNotFound)
	}
	return &paymentmethodsv1.GetPaymentMethodResponse{PaymentMethod: events.PaymentMethod(m)}, nil
}

// AddCard validates and tokenizes a card.
func (s *Server) AddCard(ctx context.Context, req *paymentmethodsv1.AddCardRequest) (*paymentmethodsv1.AddCardResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	m, err := s.app.AddCard(ctx, c, domain.CardInput{
		Name:        req.GetName(),
		Number:      req.GetCardNumber(),
		ExpiryMonth: req.GetExpiryMonth(),
		ExpiryYear:  req.GetExpiryYear(),
		CVV:         req.GetCvv(),
		IsDefault:   req.GetIsDefault(),
	})
	if err != nil {
		return nil, s.toStatus(ctx, err, MsgNotFound)
	}
	return &paymentmethodsv1.AddCardResponse{PaymentMethod: events.PaymentMethod(m)}, nil
}

// UpdatePaymentMethod changes the name and the default flag.
func (s *Server) UpdatePaymentMethod(ctx context.Context, req *paymentmethodsv1.UpdatePaymentMethodRequest) (*paymentmethodsv1.UpdatePaymentMethodResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	m, err := s.app.Update(ctx, c, req.GetPaymentMethodId(), req.GetName(), req.GetIsDefault())
	if err != nil {
		return nil, s.toStatus(ctx, err, MsgNotFound)
	}
	return &paymentmethodsv1.UpdatePaymentMethodResponse{PaymentMethod: events.PaymentMethod(m)}, nil
}

// SetDefaultPaymentMethod makes one method the default.
func (s *Server) SetDefaultPaymentMethod(ctx context.Context, req *paymentmethodsv1.SetDefaultPaymentMethodRequest) (*paymentmethodsv1.SetDefaultPaymentMethodResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	m, err := s.app.SetDefault(ctx, c, req.GetPaymentMethodId())
	if err != nil {
		return nil, s.toStatus(ctx, err, MsgNotFound)
	}
	return &paymentmethodsv1.SetDefaultPaymentMethodResponse{PaymentMethod: events.PaymentMethod(m)}, nil
}

// DeletePaymentMethod removes a method unless it is used.
func (s *Server) DeletePaymentMethod(ctx context.Context, req *paymentmethodsv1.DeletePaymentMethodRequest) (*paymentmethodsv1.DeletePaymentMethodResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.app.Delete(ctx, c, req.GetPaymentMethodId()); err != nil {
		return nil, s.toStatus(ctx, err, MsgNotFound)
	}
	return &paymentmethodsv1.DeletePaymentMethodResponse{}, nil
}

// Charge charges a tokenized card once per idempotency key (transfers service only).
func (s *Server) Charge(ctx context.Context, req *paymentmethodsv1.ChargeRequest) (*paymentmethodsv1.ChargeResponse, error) {
	ch, err := s.app.Charge(ctx, app.ChargeInput{
		UserID:         req.GetUserId(),
		Token:          req.GetToken(),
		AmountCents:    req.GetAmountCents(),
		IdempotencyKey: req.GetIdempotencyKey(),
		Description:    req.GetDescription(),
	})
	if err != nil {
		return nil, s.toStatus(ctx, err, MsgNotFound)
	}
	res := &paymentmethodsv1.ChargeResponse{ChargeId: ch.ID.String()}
	switch ch.Status {
	case domain.StatusApproved:
		res.Status = paymentmethodsv1.ChargeStatus_CHARGE_STATUS_APPROVED
	case domain.StatusDeclined:
		res.Status = paymentmethodsv1.ChargeStatus_CHARGE_STATUS_DECLINED
		res.DeclineCode, res.DeclineMessage = ch.DeclineCode, ch.DeclineMessage
	}
	return res, nil
}

// Refund returns a charge's money once per idempotency key (transfers service only).
func (s *Server) Refund(ctx context.Context, req *paymentmethodsv1.RefundRequest) (*paymentmethodsv1.RefundResponse, error) {
	r, err := s.app.Refund(ctx, app.RefundInput{
		ChargeID:       req.GetChargeId(),
		AmountCents:    req.GetAmountCents(),
		IdempotencyKey: req.GetIdempotencyKey(),
		Reason:         req.GetReason(),
	})
	if err != nil {
		return nil, s.toStatus(ctx, err, MsgChargeNotFound)
	}
	return &paymentmethodsv1.RefundResponse{RefundId: r.ID.String()}, nil
}

// toStatus maps an error to its status, once; notFound is the message of ErrNotFound for the
// call's kind of resource.
func (s *Server) toStatus(ctx context.Context, err error, notFound string) error {
	var (
		verr     *domain.ValidationError
		declined *domain.DeclinedError
	)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		return status.Error(codes.NotFound, notFound)
	case errors.As(err, &verr) && len(verr.Violations) > 0:
		violations := make([]grpcserver.FieldViolation, len(verr.Violations))
		for i, v := range verr.Violations {
			violations[i] = grpcserver.FieldViolation{Field: v.Field, Description: v.Message}
		}
		// The first problem is the message; the BadRequest detail lists them all per field.
		return grpcserver.BadRequestOrdered(verr.Violations[0].Message, violations...)
	case errors.Is(err, domain.ErrAlreadySaved):
		return status.Error(codes.AlreadyExists, MsgAlreadySaved)
	case errors.Is(err, domain.ErrInUse):
		return status.Error(codes.FailedPrecondition, MsgInUse)
	case errors.Is(err, domain.ErrTooManyMethods):
		return status.Error(codes.FailedPrecondition, MsgTooMany)
	case errors.As(err, &declined):
		msg := declined.Message
		if msg == "" {
			msg = MsgDeclinedFallback
		}
		return status.Error(codes.FailedPrecondition, msg)
	case errors.Is(err, domain.ErrIdempotencyConflict):
		return status.Error(codes.AlreadyExists, MsgIdempotency)
	case errors.Is(err, domain.ErrNotRefundable):
		return status.Error(codes.FailedPrecondition, MsgNotRefundable)
	case errors.Is(err, domain.ErrRefundExceedsCharge):
		return status.Error(codes.FailedPrecondition, MsgRefundExceeds)
	case errors.Is(err, domain.ErrProcessorUnavailable):
		s.logger.WarnContext(ctx, "payment processor unavailable", "error", err)
		return grpcserver.WithRetryInfo(codes.Unavailable, MsgUnavailable, retryAfter)
	case errors.Is(err, domain.ErrInProgress):
		return grpcserver.WithRetryInfo(codes.Unavailable, MsgInProgress, retryAfter)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		if ctx.Err() != nil {
			return status.FromContextError(ctx.Err()).Err()
		}
		return grpcserver.Unexpected(ctx, s.logger, err)
	default:
		return grpcserver.Unexpected(ctx, s.logger, err)
	}
}
