package handlers

import (
	"context"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"

	"github.com/thumela/thumela/bff/internal/rpcerr"
)

// PaymentMethods implements thumela.bff.v1.PaymentMethodsService. The card number and CVV pass
// through in the request to paymentmethods' tokenization and are never logged or kept here.
type PaymentMethods struct {
	*Deps
}

var _ bffv1connect.PaymentMethodsServiceHandler = (*PaymentMethods)(nil)

func (p *PaymentMethods) ListPaymentMethods(ctx context.Context, _ *bffv1.ListPaymentMethodsRequest) (*bffv1.ListPaymentMethodsResponse, error) {
	res, err := forward(ctx, p.Deps, p.Deps.PaymentMethods.ListPaymentMethods, &paymentmethodsv1.ListPaymentMethodsRequest{})
	if err != nil {
		return nil, err
	}
	out := &bffv1.ListPaymentMethodsResponse{}
	for _, m := range res.GetPaymentMethods() {
		out.PaymentMethods = append(out.PaymentMethods, paymentMethodToBFF(m))
	}
	return out, nil
}

func (p *PaymentMethods) AddCard(ctx context.Context, req *bffv1.AddCardRequest) (*bffv1.AddCardResponse, error) {
	res, err := forward(ctx, p.Deps, p.Deps.PaymentMethods.AddCard, &paymentmethodsv1.AddCardRequest{
		Name:        req.GetName(),
		CardNumber:  req.GetCardNumber(),
		ExpiryMonth: req.GetExpiryMonth(),
		ExpiryYear:  req.GetExpiryYear(),
		Cvv:         req.GetCvv(),
		IsDefault:   req.GetIsDefault(),
	})
	if err != nil {
		return nil, err
	}
	return &bffv1.AddCardResponse{PaymentMethod: paymentMethodToBFF(res.GetPaymentMethod())}, nil
}

func (p *PaymentMethods) UpdatePaymentMethod(ctx context.Context, req *bffv1.UpdatePaymentMethodRequest) (*bffv1.UpdatePaymentMethodResponse, error) {
	res, err := forward(ctx, p.Deps, p.Deps.PaymentMethods.UpdatePaymentMethod, &paymentmethodsv1.UpdatePaymentMethodRequest{
		PaymentMethodId: req.GetId(),
		Name:            req.GetName(),
		IsDefault:       req.GetIsDefault(),
	})
	if err != nil {
		return nil, err
	}
	return &bffv1.UpdatePaymentMethodResponse{PaymentMethod: paymentMethodToBFF(res.GetPaymentMethod())}, nil
}

func (p *PaymentMethods) SetDefaultPaymentMethod(ctx context.Context, req *bffv1.SetDefaultPaymentMethodRequest) (*bffv1.SetDefaultPaymentMethodResponse, error) {
	res, err := forward(ctx, p.Deps, p.Deps.PaymentMethods.SetDefaultPaymentMethod, &paymentmethodsv1.SetDefaultPaymentMethodRequest{
		PaymentMethodId: req.GetId(),
	})
	if err != nil {
		return nil, err
	}
	return &bffv1.SetDefaultPaymentMethodResponse{PaymentMethod: paymentMethodToBFF(res.GetPaymentMethod())}, nil
}

func (p *PaymentMethods) DeletePaymentMethod(ctx context.Context, req *bffv1.DeletePaymentMethodRequest) (*bffv1.DeletePaymentMethodResponse, error) {
	ctx, _, err := p.authed(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := p.Deps.PaymentMethods.DeletePaymentMethod(ctx, &paymentmethodsv1.DeletePaymentMethodRequest{
		PaymentMethodId: req.GetId(),
	}); err != nil {
		return nil, rpcerr.FromService(ctx, p.Logger, err)
	}
	return &bffv1.DeletePaymentMethodResponse{}, nil
}
