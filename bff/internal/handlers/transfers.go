package handlers

import "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"

// Transfers implements thumela.bff.v1.TransfersService. Until its issue is built every RPC answers
// Unimplemented rather than pretending.
type Transfers struct {
	*Deps
	bffv1connect.UnimplementedTransfersServiceHandler
}

var _ bffv1connect.TransfersServiceHandler = (*Transfers)(nil)
