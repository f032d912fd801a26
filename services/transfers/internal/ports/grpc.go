// Package ports is the transfers service's gRPC API: proto ↔ domain mapping, the access
// policy, and the one place where errors become status codes.
package ports

import (
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/auth"
)

// Policy: every method acts on the calling user's own transfers.
var Policy = auth.Policy{
	transfersv1.TransfersService_CreateTransfer_FullMethodName: auth.User,
	transfersv1.TransfersService_GetTransfer_FullMethodName:    auth.User,
	transfersv1.TransfersService_ListTransfers_FullMethodName:  auth.User,
	transfersv1.TransfersService_CancelTransfer_FullMethodName: auth.User,
	transfersv1.TransfersService_GetLimits_FullMethodName:      auth.User,
}

// Server implements transfersv1.TransfersServiceServer. Not implemented yet: every RPC answers
// Unimplemented through the embedded generated server.
type Server struct {
	transfersv1.UnimplementedTransfersServiceServer
}

// NewServer returns the gRPC API.
func NewServer() *Server { return &Server{} }
