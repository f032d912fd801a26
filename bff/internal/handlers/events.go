package handlers

import "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"

// Events implements thumela.bff.v1.EventsService. Until its issue is built every RPC answers
// Unimplemented rather than pretending.
type Events struct {
	*Deps
	bffv1connect.UnimplementedEventsServiceHandler
}

var _ bffv1connect.EventsServiceHandler = (*Events)(nil)
