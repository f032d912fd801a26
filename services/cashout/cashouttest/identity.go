// Package cashouttest runs the cash-out gateway for tests, as the binary assembles it, over
// real TCP and gRPC: Start points it at any transfers and identity (the fakes here, or the real
// services, by address); FakeTransfers plays transfers by its contract; FakeIdentity issues the
// atm-gateway service tokens.
package cashouttest

import (
	"context"
	"crypto/subtle"
	"log/slog"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/platform/grpcserver/grpctest"
	"github.com/thumela/thumela/services/platform/service"
)

// ServiceTokenTTL is how long FakeIdentity's service tokens live (identity's are as short).
const ServiceTokenTTL = 5 * time.Minute

// FakeIdentity serves identity's two machine-facing methods for the length of the test:
// IssueServiceToken (for each service in secrets, whose secret it checks) signed by signer, and
// GetPublicKeys (signer's key). It returns its address.
func FakeIdentity(t testing.TB, signer auth.Signer, secrets map[string]string) string {
	t.Helper()
	srv := grpcserver.New(slog.New(slog.DiscardHandler))
	identityv1.RegisterIdentityServiceServer(srv, &identity{signer: signer, secrets: secrets})
	return grpctest.Listen(t, srv)
}

type identity struct {
	identityv1.UnimplementedIdentityServiceServer
	signer  auth.Signer
	secrets map[string]string
}

func (i *identity) IssueServiceToken(_ context.Context, req *identityv1.IssueServiceTokenRequest) (*identityv1.IssueServiceTokenResponse, error) {
	want, ok := i.secrets[req.GetService()]
	if !ok || subtle.ConstantTimeCompare([]byte(want), []byte(req.GetSecret())) != 1 {
		return nil, status.Error(codes.PermissionDenied, "unknown service or wrong secret")
	}
	exp := time.Now().Add(ServiceTokenTTL)
	token, err := i.signer.Sign(auth.Claims{Subject: req.GetService(), Kind: auth.KindService, Issuer: service.TokenIssuer, ExpiresAt: exp})
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &identityv1.IssueServiceTokenResponse{AccessToken: token, ExpiresAt: timestamppb.New(exp)}, nil
}

func (i *identity) GetPublicKeys(context.Context, *identityv1.GetPublicKeysRequest) (*identityv1.GetPublicKeysResponse, error) {
	pub := i.signer.PublicKey()
	return &identityv1.GetPublicKeysResponse{Keys: []*identityv1.PublicKey{{KeyId: pub.ID, Ed25519PublicKey: pub.Key}}}, nil
}
