// Package paymentmethodsgrpc is the app's PaymentMethods over paymentmethods' gRPC API:
// GetPaymentMethod forwards the user's access token; Charge and Refund go out with the
// transfers service's own token, which the connection's per-RPC credentials attach
// (auth.PerRPCCredentials over auth.IdentityServiceTokens).
package paymentmethodsgrpc

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/transfers/internal/app"
)

// Client implements app.PaymentMethods.
type Client struct {
	c paymentmethodsv1.PaymentMethodsServiceClient
}

// New returns the client over conn, which must carry the service's per-RPC credentials.
func New(conn grpc.ClientConnInterface) *Client {
	return &Client{c: paymentmethodsv1.NewPaymentMethodsServiceClient(conn)}
}

var _ app.PaymentMethods = (*Client)(nil)

// ErrNoUserToken: a call made for a user without the user's token in the context.
var ErrNoUserToken = errors.New("paymentmethodsgrpc: no user access token to forward")

// transient reports whether a failure with code may go away on a retry.
func transient(code codes.Code) bool {
	switch code {
	case codes.Unavailable, codes.DeadlineExceeded, codes.ResourceExhausted, codes.Aborted, codes.Canceled:
		return true
	}
	return false
}

func unavailable(op string, err error) error {
	if transient(status.Code(err)) {
		return fmt.Errorf("%w: paymentmethods %s: %w", app.ErrUnavailable, op, err)
	}
	return fmt.Errorf("paymentmethods %s: %w", op, err)
}

// GetPaymentMethod implements app.PaymentMethods with the caller's token, whose subject alone
// names the user: the userID the app passes is that subject, so it does not go on the wire.
func (c *Client) GetPaymentMethod(ctx context.Context, _, id string) (app.PaymentMethod, error) {
	token, ok := auth.TokenFromContext(ctx)
	if !ok {
		return app.PaymentMethod{}, ErrNoUserToken
	}
	res, err := c.c.GetPaymentMethod(auth.WithBearer(ctx, token), &paymentmethodsv1.GetPaymentMethodRequest{PaymentMethodId: id})
	switch status.Code(err) {
	case codes.OK:
	case codes.NotFound, codes.InvalidArgument:
		return app.PaymentMethod{}, app.ErrPaymentMethodNotFound
	default:
		return app.PaymentMethod{}, unavailable("get", err)
	}
	pm := res.GetPaymentMethod()
	return app.PaymentMethod{
		ID:       pm.GetId(),
		UserID:   pm.GetUserId(),
		Name:     pm.GetName(),
		LastFour: pm.GetLastFour(),
		Card:     pm.GetType() == paymentmethodsv1.PaymentMethodType_PAYMENT_METHOD_TYPE_CARD,
		Token:    pm.GetToken(),
	}, nil
}

// serviceContext drops any user token from ctx, so the connection's credentials attach the
// service's own: a charge is never made on a user's say-so.
func serviceContext(ctx context.Context) context.Context {
	if md, ok := metadata.FromOutgoingContext(ctx); ok && len(md.Get("authorization")) > 0 {
		md = md.Copy()
		md.Delete("authorization")
		return metadata.NewOutgoingContext(ctx, md)
	}
	return ctx
}

// rejected reports whether paymentmethods refused the request itself: retrying the same
// request cannot succeed, and nothing was charged.
func rejected(err error) bool {
	switch status.Code(err) {
	case codes.NotFound, codes.InvalidArgument, codes.FailedPrecondition:
		return true
	}
	return false
}

// Charge implements app.PaymentMethods with the service token.
func (c *Client) Charge(ctx context.Context, req app.ChargeRequest) (app.ChargeResult, error) {
	res, err := c.c.Charge(serviceContext(ctx), &paymentmethodsv1.ChargeRequest{
		UserId:         req.UserID,
		Token:          req.Token,
		AmountCents:    req.Amount.Cents(),
		IdempotencyKey: req.IdempotencyKey,
		Description:    req.Description,
	})
	if err != nil {
		if rejected(err) {
			return app.ChargeResult{}, fmt.Errorf("%w: %w", app.ErrChargeRejected, err)
		}
		return app.ChargeResult{}, unavailable("charge", err)
	}
	switch res.GetStatus() {
	case paymentmethodsv1.ChargeStatus_CHARGE_STATUS_APPROVED:
		return app.ChargeResult{ChargeID: res.GetChargeId(), Approved: true}, nil
	case paymentmethodsv1.ChargeStatus_CHARGE_STATUS_DECLINED:
		return app.ChargeResult{
			ChargeID: res.GetChargeId(), DeclineCode: res.GetDeclineCode(), DeclineMessage: res.GetDeclineMessage(),
		}, nil
	default:
		return app.ChargeResult{}, fmt.Errorf("paymentmethods charge: status %v", res.GetStatus())
	}
}

// Refund implements app.PaymentMethods with the service token.
func (c *Client) Refund(ctx context.Context, req app.RefundRequest) (string, error) {
	res, err := c.c.Refund(serviceContext(ctx), &paymentmethodsv1.RefundRequest{
		ChargeId:       req.ChargeID,
		AmountCents:    req.Amount.Cents(),
		IdempotencyKey: req.IdempotencyKey,
		Reason:         req.Reason,
	})
	if err != nil {
		return "", unavailable("refund", err)
	}
	return res.GetRefundId(), nil
}
