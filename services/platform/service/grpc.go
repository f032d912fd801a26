package service

import (
	"errors"
	"strings"

	"google.golang.org/grpc"

	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"
)

// TokenIssuer is the iss of every access token identity signs; verifiers accept no other.
const TokenIssuer = auth.IdentityIssuer

// Serve builds the service's gRPC server behind access-token checks and runs it on
// Base.GRPCAddr until the service stops. policy says who may call each method (a method it
// does not list is refused); keys verify the tokens: nil means identity's public keys, fetched
// from IDENTITY_ADDR. register adds the service's API.
func (rt *Runtime) Serve(policy auth.Policy, keys auth.KeySource, register func(s grpc.ServiceRegistrar)) error {
	if keys == nil {
		if rt.Base.IdentityAddr == "" {
			return errors.New("service: IDENTITY_ADDR is required to verify access tokens")
		}
		conn, err := grpcserver.Dial(rt.Base.IdentityAddr)
		if err != nil {
			return err
		}
		rt.OnClose(func() { _ = conn.Close() })
		keys = auth.IdentityKeySource(conn)
	}
	verifier := auth.NewVerifier(keys, TokenIssuer)
	srv := grpcserver.New(rt.Logger,
		grpcserver.WithUnaryInterceptors(auth.UnaryServerInterceptor(verifier, policy)),
		grpcserver.WithStreamInterceptors(auth.StreamServerInterceptor(verifier, policy)),
	)
	register(srv)
	if err := policy.Check(registeredServices(srv.GRPC())...); err != nil {
		return err
	}
	rt.Add(srv.Component(rt.Base.GRPCAddr))
	return nil
}

// registeredServices lists the service descriptors of the service's own API (not health or
// reflection), so that the policy can be checked to cover every method at start.
func registeredServices(s *grpc.Server) []*grpc.ServiceDesc {
	var out []*grpc.ServiceDesc
	for name, info := range s.GetServiceInfo() {
		if strings.HasPrefix(name, "grpc.") { // health (public), reflection (AnyService): auth's defaults
			continue
		}
		desc := &grpc.ServiceDesc{ServiceName: name}
		for _, m := range info.Methods {
			if m.IsClientStream || m.IsServerStream {
				desc.Streams = append(desc.Streams, grpc.StreamDesc{StreamName: m.Name})
			} else {
				desc.Methods = append(desc.Methods, grpc.MethodDesc{MethodName: m.Name})
			}
		}
		out = append(out, desc)
	}
	return out
}
