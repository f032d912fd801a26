package handlers

import "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"

// Security implements thumela.bff.v1.SecurityService (Account -> Security): the sessions list,
// passkeys and the step-up before money moves. Its methods live beside their families:
// security_sessions.go and security_passkeys.go.
type Security struct {
	// Unimplemented answers CodeUnimplemented for any RPC not written yet.
	bffv1connect.UnimplementedSecurityServiceHandler
	*Deps
}

var _ bffv1connect.SecurityServiceHandler = (*Security)(nil)
