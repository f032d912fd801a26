package handlers

import "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"

// Recipients implements thumela.bff.v1.RecipientsService: the sender's saved recipients.
type Recipients struct {
	// Unimplemented answers CodeUnimplemented for an RPC not written yet.
	bffv1connect.UnimplementedRecipientsServiceHandler
	*Deps
}

var _ bffv1connect.RecipientsServiceHandler = (*Recipients)(nil)
