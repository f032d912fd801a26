// Package natstest runs an embedded nats-server with JetStream for tests, on 127.0.0.1 and a
// random port, so tests never touch the machine's NATS and can run in parallel. A Server can
// be stopped and restarted on the same port and store to test behaviour across an outage.
//
// The server enforces the production permission table (bus.AuthConf over bus.Services), with
// a fresh NKey per identity, plus two test identities: bus.IdentityObserver (read-only) and
// bus.IdentityAdmin (unrestricted, for fixtures no service would publish). A client without
// credentials is refused. Connect as a service with Connect(t, "bff"); give a service under
// test its credentials with Env("bff") (NATS_URL and NATS_NKEY_SEED_FILE).
package natstest

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/thumela/thumela/services/platform/bus"
)

const readyTimeout = 10 * time.Second

// Server is one embedded NATS server with JetStream.
type Server struct {
	t        testing.TB
	storeDir string
	keys     bus.KeySet
	confFile string

	mu   sync.Mutex
	port int
	srv  *server.Server
	url  string
}

// Run starts a server for the test and returns its URL; it shuts down on cleanup. Only a
// client with credentials gets in: a test that connects itself wants Start and its Connect.
func Run(t testing.TB) string {
	t.Helper()
	return Start(t).URL()
}

// Start starts a server for the test whose store lives in t.TempDir(); it shuts down on
// cleanup.
func Start(t testing.TB) *Server {
	t.Helper()
	dir := t.TempDir()
	ids := append(bus.Deployed(), bus.Observer(), bus.Admin())
	keys, err := bus.GenerateKeys(filepath.Join(dir, "keys"), ids)
	if err != nil {
		t.Fatalf("natstest: %v", err)
	}
	conf := filepath.Join(dir, "auth.conf")
	if err := os.WriteFile(conf, []byte(bus.AuthConf(ids, keys.Key)), 0o600); err != nil {
		t.Fatalf("natstest: %v", err)
	}
	s := &Server{t: t, storeDir: filepath.Join(dir, "store"), port: server.RANDOM_PORT, keys: keys, confFile: conf}
	s.start()
	t.Cleanup(s.Shutdown)
	return s
}

// SeedFile is the file of identity's NKey seed (a service name of bus.Services,
// bus.IdentityObserver or bus.IdentityAdmin).
func (s *Server) SeedFile(identity string) string {
	s.t.Helper()
	if _, ok := s.keys.Public[identity]; !ok {
		s.t.Fatalf("natstest: no identity %q in the permission table", identity)
	}
	return s.keys.SeedFile(identity)
}

// Credentials are identity's credentials, for bus.Connect(…, bus.WithCredentials(c)).
func (s *Server) Credentials(identity string) bus.Credentials {
	s.t.Helper()
	return bus.Credentials{NKeySeedFile: s.SeedFile(identity), Identity: identity}
}

// Options are the nats.Connect options that connect as identity.
func (s *Server) Options(identity string) []nats.Option {
	s.t.Helper()
	opts, err := s.Credentials(identity).Options()
	if err != nil {
		s.t.Fatalf("natstest: %v", err)
	}
	return opts
}

// Env is what a process needs to connect as identity: NATS_URL and NATS_NKEY_SEED_FILE.
func (s *Server) Env(identity string) map[string]string {
	s.t.Helper()
	return map[string]string{"NATS_URL": s.URL(), "NATS_NKEY_SEED_FILE": s.SeedFile(identity)}
}

// Connect connects as identity with bus.Connect (which retries across a Restart) and closes
// the connection when the test ends. opts add raw client options.
func (s *Server) Connect(t testing.TB, identity string, opts ...nats.Option) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	logger := slog.New(slog.DiscardHandler)
	nc, js, err := bus.Connect(context.Background(), s.URL(), "natstest-"+identity, logger,
		bus.WithCredentials(s.Credentials(identity)), bus.WithNATSOptions(opts...))
	if err != nil {
		t.Fatalf("natstest: connect as %s: %v", identity, err)
	}
	t.Cleanup(nc.Close)
	if !waitConnected(nc, readyTimeout) {
		t.Fatalf("natstest: %s could not connect: %v", identity, nc.LastError())
	}
	return nc, js
}

// waitConnected waits for the first connection (bus.Connect connects in the background).
func waitConnected(nc *nats.Conn, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for !nc.IsConnected() {
		if time.Now().After(deadline) || nc.IsClosed() {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// URL is the client URL, nats://127.0.0.1:<port>; it stays the same across Restart.
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// Shutdown stops the server and waits until it is down. Clients see a disconnect.
// It is safe to call more than once.
func (s *Server) Shutdown() {
	s.mu.Lock()
	srv := s.srv
	s.srv = nil
	s.mu.Unlock()
	if srv != nil {
		srv.Shutdown()
		srv.WaitForShutdown()
	}
}

// Restart shuts the server down if it is running and starts it again on the same port with the
// same store, so streams and their messages survive, as in a real NATS restart.
func (s *Server) Restart() {
	s.t.Helper()
	s.Shutdown()
	s.start()
}

func (s *Server) start() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	// The authorization is read from the generated file, as a production server reads its
	// include, so that the tests exercise the very text the table renders.
	opts, err := server.ProcessConfigFile(s.confFile)
	if err != nil {
		s.t.Fatalf("natstest: authorization config: %v", err)
	}
	opts.ServerName = "natstest"
	opts.Host = "127.0.0.1"
	opts.Port = s.port
	opts.JetStream = true
	opts.StoreDir = s.storeDir
	opts.NoLog = true
	opts.NoSigs = true
	srv, err := server.NewServer(opts)
	if err != nil {
		s.t.Fatalf("natstest: new server: %v", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(readyTimeout) {
		srv.Shutdown()
		s.t.Fatalf("natstest: server not ready within %s", readyTimeout)
	}
	addr, ok := srv.Addr().(*net.TCPAddr)
	if !ok {
		srv.Shutdown()
		s.t.Fatalf("natstest: unexpected listener address %v", srv.Addr())
	}
	s.port = addr.Port
	s.srv = srv
	s.url = "nats://127.0.0.1:" + strconv.Itoa(addr.Port)
}
