package auth

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// authorizationKey is the gRPC metadata key of the bearer token (lower case, as HTTP/2 wants).
const authorizationKey = "authorization"

// WithBearer returns ctx whose outgoing calls carry token as "authorization: Bearer …",
// replacing any token already there, so a forwarded user token is never sent twice.
func WithBearer(ctx context.Context, token string) context.Context {
	md, _ := metadata.FromOutgoingContext(ctx)
	md = md.Copy()
	md.Set(authorizationKey, "Bearer "+token)
	return metadata.NewOutgoingContext(ctx, md)
}

// TokenSource supplies a current service token.
type TokenSource interface {
	Token(ctx context.Context) (string, error)
}

// TokenSourceFunc adapts a function to TokenSource.
type TokenSourceFunc func(ctx context.Context) (string, error)

// Token implements TokenSource.
func (f TokenSourceFunc) Token(ctx context.Context) (string, error) { return f(ctx) }

// PerRPCCredentials attaches a token from ts to every call of a connection:
//
//	conn, err := grpcserver.Dial(addr, grpc.WithPerRPCCredentials(auth.PerRPCCredentials(ts)))
//
// A call whose context already carries a token (WithBearer, acting for a user) keeps it, so one
// connection serves both kinds of call. The credentials allow plaintext transport: inside the
// cluster the mesh encrypts, and the token, not the transport, names the caller.
func PerRPCCredentials(ts TokenSource) credentials.PerRPCCredentials {
	return perRPC{ts: ts}
}

type perRPC struct{ ts TokenSource }

func (p perRPC) GetRequestMetadata(ctx context.Context, _ ...string) (map[string]string, error) {
	if md, ok := metadata.FromOutgoingContext(ctx); ok && len(md.Get(authorizationKey)) > 0 {
		return nil, nil
	}
	token, err := p.ts.Token(ctx)
	if err != nil {
		// Unavailable: the caller may retry once identity answers again.
		return nil, status.Errorf(codes.Unavailable, "auth: cannot obtain a service token: %v", err)
	}
	return map[string]string{authorizationKey: "Bearer " + token}, nil
}

func (perRPC) RequireTransportSecurity() bool { return false }
