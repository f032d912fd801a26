package handlers

import "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"

// PaymentMethods implements thumela.bff.v1.PaymentMethodsService. Until its issue is built every RPC answers
// Unimplemented rather than pretending.
type PaymentMethods struct {
	*Deps
	bffv1connect.UnimplementedPaymentMethodsServiceHandler
}

var _ bffv1connect.PaymentMethodsServiceHandler = (*PaymentMethods)(nil)
