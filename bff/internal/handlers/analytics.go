package handlers

import "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"

// Analytics implements thumela.bff.v1.AnalyticsService. Until its issue is built every RPC answers
// Unimplemented rather than pretending.
type Analytics struct {
	*Deps
	bffv1connect.UnimplementedAnalyticsServiceHandler
}

var _ bffv1connect.AnalyticsServiceHandler = (*Analytics)(nil)
