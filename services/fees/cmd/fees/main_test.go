package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/natstest"
	"github.com/thumela/thumela/services/platform/pgtest"
	"github.com/thumela/thumela/services/platform/service"
)

// The binary's wiring, run in-process: it migrates its schema on a fresh database, serves
// health and its API behind token checks, and stops cleanly on SIGTERM.
func TestServesAndStopsOnSIGTERM(t *testing.T) {
	// Not parallel: it sets the environment and signals the process.
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	_ = lis.Close()
	dbURL := pgtest.NewDatabase(t)
	t.Setenv("DATABASE_URL", dbURL)
	t.Setenv("NATS_URL", natstest.Run(t))
	t.Setenv("FEES_GRPC_ADDR", addr)
	t.Setenv("LOG_LEVEL", "warn")

	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer := auth.Signer{KeyID: "test-key", Key: key}
	done := make(chan error, 1)
	go func() { done <- service.Run(context.Background(), spec(auth.StaticKeys{signer.PublicKey()})) }()

	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	health := healthpb.NewHealthClient(conn)
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := health.Check(t.Context(), &healthpb.HealthCheckRequest{})
		if err == nil && res.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("health never SERVING: %v", err)
		}
		select {
		case err := <-done:
			t.Fatalf("service stopped early: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
	}

	db, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	var applied int
	if err := db.QueryRow(t.Context(), `SELECT count(*) FROM fees.schema_migrations WHERE set_name IN ('fees', 'outbox')`).Scan(&applied); err != nil {
		t.Fatalf("schema not migrated: %v", err)
	}
	if applied < 2 {
		t.Fatalf("%d migrations applied, want the outbox's and the service's", applied)
	}

	token, err := signer.Sign(auth.Claims{
		Subject: "0190f6a4-3c2e-7d41-9b7e-2f4f1f6c8a01", Kind: auth.KindUser, GivenName: "Thandi", FamilyName: "Nkosi",
		Issuer: service.TokenIssuer, ExpiresAt: time.Now().Add(time.Minute),
	})
	if err != nil {
		t.Fatal(err)
	}
	client := feesv1.NewFeesServiceClient(conn)
	if _, err := client.ListBanks(t.Context(), &feesv1.ListBanksRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("call without a token: %v, want Unauthenticated", err)
	}
	checkAPI(t, auth.WithBearer(t.Context(), token), client)

	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("stop after SIGTERM: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("service did not stop after SIGTERM")
	}
}

func checkAPI(t *testing.T, ctx context.Context, client feesv1.FeesServiceClient) {
	t.Helper()
	res, err := client.ListBanks(ctx, &feesv1.ListBanksRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.GetBanks()) != 5 {
		t.Fatalf("banks = %v, want the five seeded", res.GetBanks())
	}
}
