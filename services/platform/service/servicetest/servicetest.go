// Package servicetest runs a service binary's wiring in-process for its tests: on a fresh
// database and an embedded NATS, with access tokens from a test signer, so a service's
// main_test checks what its main really assembles (migrations, health, policy, API) and that it
// stops cleanly on SIGTERM. Its pieces (FreeAddr, NewSigner, Dial, WaitServing, BearerContext)
// also serve tests that run the real binary as a child process (BuildBinary, StartChild).
package servicetest

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/natstest"
	"github.com/thumela/thumela/services/platform/pgtest"
	"github.com/thumela/thumela/services/platform/service"
)

// TokenTTL is how long the test tokens are valid: long enough for the slowest test using them
// (a crash test restarts a binary between calls).
const TokenTTL = 10 * time.Minute

// Service is one running service.
type Service struct {
	Name        string
	DatabaseURL string
	NATSURL     string
	Conn        *grpc.ClientConn
	Signer      auth.Signer
	stopped     chan struct{} // closed when service.Run returns, with err set
	err         error

	// NATS is the embedded server Start ran (nil when Options.Env named one): a test connects
	// to it as another identity with NATS.Connect(t, "transfers") or bus.IdentityObserver.
	NATS *natstest.Server
}

// Options are Start's choices beyond the defaults.
type Options struct {
	// Env adds variables (e.g. secrets) or replaces the defaults. With NATS_URL set, no
	// embedded NATS is started: a test that stops and restarts NATS passes its own, with
	// NATS_NKEY_SEED_FILE (natstest.Server.Env(name)).
	Env map[string]string
	// Signer signs the test tokens and is the key the service is given; zero means a fresh
	// one. A test whose fake peers must trust the same key (as identity would) passes its own.
	Signer auth.Signer
}

// Start sets the environment (so the test must not be parallel), runs spec(keys) with
// service.Run and waits until its health is SERVING. env adds variables (e.g. secrets).
func Start(t *testing.T, name string, spec func(keys auth.KeySource) service.Spec, env map[string]string) *Service {
	t.Helper()
	return StartWith(t, name, spec, Options{Env: env})
}

// StartWith is Start with Options.
func StartWith(t *testing.T, name string, spec func(keys auth.KeySource) service.Spec, opts Options) *Service {
	t.Helper()
	addr := FreeAddr(t)
	s := &Service{Name: name, DatabaseURL: pgtest.NewDatabase(t), NATSURL: opts.Env["NATS_URL"], Signer: opts.Signer, stopped: make(chan struct{})}
	if s.NATSURL == "" {
		// The service connects with its own credentials, so its test enforces its row of the
		// permission table; a skeleton test's made-up service connects as the test admin.
		s.NATS = natstest.Start(t)
		s.NATSURL = s.NATS.URL()
		identity := name
		if _, ok := bus.Lookup(name); !ok {
			identity = bus.IdentityAdmin
		}
		t.Setenv("NATS_NKEY_SEED_FILE", s.NATS.SeedFile(identity))
	}
	if s.Signer.Key == nil {
		s.Signer = NewSigner(t)
	}
	t.Setenv("DATABASE_URL", s.DatabaseURL)
	t.Setenv("NATS_URL", s.NATSURL)
	t.Setenv(strings.ToUpper(name)+"_GRPC_ADDR", addr)
	t.Setenv("LOG_LEVEL", "warn")
	for k, v := range opts.Env {
		t.Setenv(k, v)
	}
	go func() {
		s.err = service.Run(context.Background(), spec(auth.StaticKeys{s.Signer.PublicKey()}))
		close(s.stopped)
	}()
	s.Conn = Dial(t, addr)
	WaitServing(t, s.Conn, 30*time.Second, s.stopped, func() error { return s.err })
	return s
}

// FreeAddr returns a loopback address nothing listens on, for a service to serve on, and never
// the same one twice in a test binary. The kernel may hand a port it has just handed out (and
// seen closed) out again: two addresses asked for one after the other, a gateway's gRPC and ISO
// 8583 listeners, came back equal in a CI run, and the second bind failed.
func FreeAddr(t testing.TB) string {
	t.Helper()
	handedOut.mu.Lock()
	defer handedOut.mu.Unlock()
	for range 100 {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := lis.Addr().String()
		_ = lis.Close() // only picked a port
		if !handedOut.addrs[addr] {
			handedOut.addrs[addr] = true
			return addr
		}
	}
	t.Fatal("servicetest: no loopback port not handed out before")
	return ""
}

// handedOut is every address FreeAddr has returned in this process.
var handedOut = struct {
	mu    sync.Mutex
	addrs map[string]bool
}{addrs: map[string]bool{}}

// NewSigner returns a signer with a fresh key, for test tokens.
func NewSigner(t testing.TB) auth.Signer {
	t.Helper()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return auth.Signer{KeyID: "test-key", Key: key}
}

// Dial returns a plaintext client connection to addr, closed when the test ends.
func Dial(t testing.TB, addr string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// WaitServing polls conn's health until it is SERVING. It fails the test after within, or as
// soon as stopped is closed (the service, in-process or a child process, ended first: cause
// says why).
func WaitServing(t testing.TB, conn *grpc.ClientConn, within time.Duration, stopped <-chan struct{}, cause func() error) {
	t.Helper()
	health := healthpb.NewHealthClient(conn)
	deadline := time.Now().Add(within)
	for {
		res, err := health.Check(t.Context(), &healthpb.HealthCheckRequest{})
		if err == nil && res.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("health never SERVING: %v", err)
		}
		select {
		case <-stopped:
			t.Fatalf("service stopped early: %v", cause())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// UserContext returns a context carrying a user access token for subject, with the sign-up
// names Thandi Nkosi.
func (s *Service) UserContext(t *testing.T, subject string) context.Context {
	t.Helper()
	return BearerContext(t, s.Signer, UserClaims(subject))
}

// ServiceContext returns a context carrying a service token naming caller.
func (s *Service) ServiceContext(t *testing.T, caller string) context.Context {
	t.Helper()
	return BearerContext(t, s.Signer, auth.Claims{Subject: caller, Kind: auth.KindService})
}

// UserClaims are a signed-up user's claims: subject, with the names Thandi Nkosi.
func UserClaims(subject string) auth.Claims {
	return auth.Claims{Subject: subject, Kind: auth.KindUser, GivenName: "Thandi", FamilyName: "Nkosi"}
}

// SteppedUp returns c with a step-up made now (the "sua" claim identity adds after
// SecurityService.FinishStepUp), for calls that need a fresh one, such as creating a transfer
// above R1,000 or to a phone the sender never paid.
func SteppedUp(c auth.Claims) auth.Claims {
	c.SteppedUpAt = time.Now()
	return c
}

// BearerContext returns the test's context carrying c as an access token from identity
// (service.TokenIssuer), signed by signer and valid for TokenTTL.
func BearerContext(t testing.TB, signer auth.Signer, c auth.Claims) context.Context {
	t.Helper()
	c.Issuer = service.TokenIssuer
	c.ExpiresAt = time.Now().Add(TokenTTL)
	token, err := signer.Sign(c)
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
	case <-s.stopped:
		if s.err != nil {
			t.Fatalf("stop after SIGTERM: %v", s.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("service did not stop after SIGTERM")
	}
}
