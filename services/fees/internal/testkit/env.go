// Package testkit starts the fees service for its own integration tests: a fresh migrated (and
// seeded) database and the real gRPC API on loopback behind the production token checks. The
// gRPC tests and the consumed-events tests both judge the service by its quotes.
package testkit

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/fees/internal/adapters/postgres"
	"github.com/thumela/thumela/services/fees/internal/app"
	grpcport "github.com/thumela/thumela/services/fees/internal/ports/grpc"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/platform/grpcserver/grpctest"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/pgtest"
	"github.com/thumela/thumela/services/platform/service"
)

// Env is one test's service, with a user's token ready in Ctx.
type Env struct {
	Pool   *pgxpool.Pool
	Client feesv1.FeesServiceClient
	Ctx    context.Context
	UserID string
}

// DiscardLogger drops what the service logs.
var DiscardLogger = slog.New(slog.NewTextHandler(io.Discard, nil))

// NewPool returns a fresh database with the fees schema migrated and seeded.
func NewPool(t *testing.T) *pgxpool.Pool {
	t.Helper()
	return pgtest.NewPool(t, "fees", outbox.Migrations, postgres.Migrations)
}

// Start runs the service for t.
func Start(t *testing.T) Env {
	t.Helper()
	pool := NewPool(t)
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer := auth.Signer{KeyID: "test-key", Key: key}
	verifier := auth.NewVerifier(auth.StaticKeys{signer.PublicKey()}, service.TokenIssuer)
	if err := grpcport.Policy.Check(&feesv1.FeesService_ServiceDesc); err != nil {
		t.Fatal(err)
	}

	srv := grpcserver.New(DiscardLogger,
		grpcserver.WithUnaryInterceptors(auth.UnaryServerInterceptor(verifier, grpcport.Policy)))
	feesv1.RegisterFeesServiceServer(srv, grpcport.NewServer(app.New(postgres.NewBankFees(pool), DiscardLogger), DiscardLogger))
	conn := grpctest.Serve(t, srv)

	userID := "0190f6a4-3c2e-7d41-9b7e-2f4f1f6c8a01"
	token, err := signer.Sign(auth.Claims{
		Subject: userID, Kind: auth.KindUser,
		Issuer: service.TokenIssuer, ExpiresAt: time.Now().Add(5 * time.Minute),
	})
	if err != nil {
		t.Fatal(err)
	}
	return Env{Pool: pool, Client: feesv1.NewFeesServiceClient(conn), Ctx: auth.WithBearer(t.Context(), token), UserID: userID}
}
