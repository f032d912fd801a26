// Package servicetest runs a service binary's wiring in-process for its tests: on a fresh
// database and an embedded NATS, with access tokens from a test signer, so a service's
// main_test checks what its main really assembles (migrations, health, policy, API) and that it
// stops cleanly on SIGTERM.
package servicetest

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/natstest"
	"github.com/thumela/thumela/services/platform/pgtest"
	"github.com/thumela/thumela/services/platform/service"
)

// Service is one running service.
type Service struct {
	Name        string
	DatabaseURL string
	Conn        *grpc.ClientConn
	Signer      auth.Signer
	done        chan error
}

// Start sets the environment (so the test must not be parallel), runs spec(keys) with
// service.Run and waits until its health is SERVING. env adds variables (e.g. secrets).
func Start(t *testing.T, name string, spec func(keys auth.KeySource) service.Spec, env map[string]string) *Service {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	_ = lis.Close()
	s := &Service{Name: name, DatabaseURL: pgtest.NewDatabase(t), done: make(chan error, 1)}
	t.Setenv("DATABASE_URL", s.DatabaseURL)
	t.Setenv("NATS_URL", natstest.Run(t))
	t.Setenv(strings.ToUpper(name)+"_GRPC_ADDR", addr)
	t.Setenv("LOG_LEVEL", "warn")
	for k, v := range env {
		t.Setenv(k, v)
	}
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s.Signer = auth.Signer{KeyID: "test-key", Key: key}
	go func() { s.done <- service.Run(context.Background(), spec(auth.StaticKeys{s.Signer.PublicKey()})) }()

	if s.Conn, err = grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials())); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Conn.Close() })
	health := healthpb.NewHealthClient(s.Conn)
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := health.Check(t.Context(), &healthpb.HealthCheckRequest{})
		if err == nil && res.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: health never SERVING: %v", name, err)
		}
		select {
		case err := <-s.done:
			t.Fatalf("%s stopped early: %v", name, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// UserContext returns a context carrying a user access token for subject, with the sign-up
// names Thandi Nkosi.
func (s *Service) UserContext(t *testing.T, subject string) context.Context {
	t.Helper()
	return s.tokenContext(t, auth.Claims{Subject: subject, Kind: auth.KindUser, GivenName: "Thandi", FamilyName: "Nkosi"})
}

// ServiceContext returns a context carrying a service token naming caller.
func (s *Service) ServiceContext(t *testing.T, caller string) context.Context {
	t.Helper()
	return s.tokenContext(t, auth.Claims{Subject: caller, Kind: auth.KindService})
}

func (s *Service) tokenContext(t *testing.T, c auth.Claims) context.Context {
	t.Helper()
	c.Issuer = service.TokenIssuer
	c.ExpiresAt = time.Now().Add(time.Minute)
	token, err := s.Signer.Sign(c)
	if err != nil {
		t.Fatal(err)
	}
	return auth.WithBearer(t.Context(), token)
}

// RequireMigrated fails unless the outbox's and the service's own migrations were applied in
// the service's schema.
func (s *Service) RequireMigrated(t *testing.T) {
	t.Helper()
	db, err := pgx.Connect(t.Context(), s.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	var sets int
	q := `SELECT count(DISTINCT set_name) FROM ` + pgx.Identifier{s.Name, "schema_migrations"}.Sanitize() + ` WHERE set_name IN ($1, 'outbox')`
	if err := db.QueryRow(t.Context(), q, s.Name).Scan(&sets); err != nil {
		t.Fatalf("schema not migrated: %v", err)
	}
	if sets != 2 {
		t.Fatalf("%d migration sets applied, want the outbox's and the service's", sets)
	}
}

// StopWithSIGTERM signals the test process, as an orchestrator would, and requires a clean stop.
func (s *Service) StopWithSIGTERM(t *testing.T) {
	t.Helper()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("stop after SIGTERM: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("service did not stop after SIGTERM")
	}
}
