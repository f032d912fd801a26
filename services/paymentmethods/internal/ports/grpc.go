// Package ports is the payment methods service's gRPC API: proto ↔ domain mapping, the access
// policy, and the one place where errors become status codes.
package ports

import (
	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	"github.com/thumela/thumela/services/platform/auth"
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
}

// Server implements paymentmethodsv1.PaymentMethodsServiceServer. Not implemented yet: every
// RPC answers Unimplemented through the embedded generated server.
type Server struct {
	paymentmethodsv1.UnimplementedPaymentMethodsServiceServer
}

// NewServer returns the gRPC API.
func NewServer() *Server { return &Server{} }
