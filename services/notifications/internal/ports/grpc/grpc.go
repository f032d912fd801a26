// Package grpcport is the notifications service's gRPC API: proto ↔ domain mapping, the
// access policy, and the one place where errors become status codes.
package grpcport

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/notifications/internal/app"
	"github.com/thumela/thumela/services/notifications/internal/domain"
	"github.com/thumela/thumela/services/notifications/internal/events"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"
)

// Policy: ListDeliveries answers a user about their own deliveries, and CheckSMSBudget about
// their own budget; SubmitSupportMessage takes a signed-in sender's message (their token) or a
// visitor's (the BFF's service token).
var Policy = auth.Policy{
	notificationsv1.NotificationsService_ListDeliveries_FullMethodName:       auth.User,
	notificationsv1.NotificationsService_SubmitSupportMessage_FullMethodName: auth.AnyOf(auth.User, auth.Services("bff")),
	notificationsv1.NotificationsService_CheckSMSBudget_FullMethodName:       auth.User,
}

// Server implements notificationsv1.NotificationsServiceServer.
type Server struct {
	notificationsv1.UnimplementedNotificationsServiceServer
	app    *app.Service
	logger *slog.Logger
}

// NewServer returns the API over svc.
func NewServer(svc *app.Service, logger *slog.Logger) *Server {
	return &Server{app: svc, logger: logger}
}

// ListDeliveries returns the caller's deliveries about the given references.
func (s *Server) ListDeliveries(ctx context.Context, req *notificationsv1.ListDeliveriesRequest) (*notificationsv1.ListDeliveriesResponse, error) {
	c, err := auth.RequireUser(ctx)
	if err != nil {
		return nil, err
	}
	list, err := s.app.ListDeliveries(ctx, app.Caller{UserID: c.Subject}, req.GetReferences())
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	out := &notificationsv1.ListDeliveriesResponse{Deliveries: make([]*notificationsv1.Delivery, len(list))}
	for i, d := range list {
		out.Deliveries[i] = events.Delivery(d)
	}
	return out, nil
}

// CheckSMSBudget answers whether the caller's next SMS to the number would be failed for their
// budget.
func (s *Server) CheckSMSBudget(ctx context.Context, req *notificationsv1.CheckSMSBudgetRequest) (*notificationsv1.CheckSMSBudgetResponse, error) {
	c, err := auth.RequireUser(ctx)
	if err != nil {
		return nil, err
	}
	spent, err := s.app.SMSBudgetSpent(ctx, app.Caller{UserID: c.Subject}, req.GetRecipient())
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	if !spent {
		return &notificationsv1.CheckSMSBudgetResponse{}, nil
	}
	return &notificationsv1.CheckSMSBudgetResponse{Spent: true, Reason: domain.ReasonRecipientBudget}, nil
}

// SubmitSupportMessage stores a support message and answers its ticket.
func (s *Server) SubmitSupportMessage(ctx context.Context, req *notificationsv1.SubmitSupportMessageRequest) (*notificationsv1.SubmitSupportMessageResponse, error) {
	claims, ok := auth.FromContext(ctx)
	if !ok {
		return nil, status.Error(codes.Unauthenticated, "authentication required")
	}
	var caller app.Caller
	if claims.IsUser() {
		name := strings.TrimSpace(claims.GivenName + " " + claims.FamilyName)
		caller = app.Caller{UserID: claims.Subject, Email: claims.Email, Name: name}
	}
	m, err := s.app.SubmitSupportMessage(ctx, caller, domain.SupportInput{
		Kind:          kind(req.GetKind()),
		Name:          req.GetName(),
		Email:         req.GetEmail(),
		Subject:       req.GetSubject(),
		Message:       req.GetMessage(),
		Details:       req.GetDetails(),
		ClientAddress: req.GetClientAddress(),
	})
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &notificationsv1.SubmitSupportMessageResponse{Ticket: m.Ticket}, nil
}

func kind(k notificationsv1.SupportMessageKind) domain.SupportKind {
	switch k {
	case notificationsv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_QUESTION:
		return domain.SupportQuestion
	case notificationsv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_ISSUE:
		return domain.SupportIssue
	case notificationsv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_FEEDBACK:
		return domain.SupportFeedback
	case notificationsv1.SupportMessageKind_SUPPORT_MESSAGE_KIND_CONTACT:
		return domain.SupportContact
	}
	return ""
}

func (s *Server) toStatus(ctx context.Context, err error) error {
	var (
		verr *domain.ValidationError
		rl   *domain.RateLimitedError
	)
	switch {
	case errors.As(err, &verr) && len(verr.Violations) > 0:
		violations := make([]grpcserver.FieldViolation, len(verr.Violations))
		for i, v := range verr.Violations {
			violations[i] = grpcserver.FieldViolation{Field: v.Field, Description: v.Message}
		}
		return grpcserver.BadRequestOrdered(verr.Violations[0].Message, violations...)
	case errors.As(err, &rl):
		return grpcserver.WithRetryInfo(codes.ResourceExhausted, rl.Message(), rl.RetryAfter)
	default:
		return grpcserver.Unexpected(ctx, s.logger, err)
	}
}
