// Package natstest runs an embedded nats-server with JetStream for tests, on 127.0.0.1 and a
// random port, so tests never touch the machine's NATS and can run in parallel. A Server can
// be stopped and restarted on the same port and store to test behaviour across an outage.
package natstest

import (
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

const readyTimeout = 10 * time.Second

// Server is one embedded NATS server with JetStream.
type Server struct {
	t        testing.TB
	storeDir string

	mu   sync.Mutex
	port int
	srv  *server.Server
	url  string
}

// Run starts a server for the test and returns its URL; it shuts down on cleanup.
func Run(t testing.TB) string {
	t.Helper()
	return Start(t).URL()
}

// Start starts a server for the test whose store lives in t.TempDir(); it shuts down on
// cleanup.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{t: t, storeDir: t.TempDir(), port: server.RANDOM_PORT}
	s.start()
	t.Cleanup(s.Shutdown)
	return s
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
	opts := &server.Options{
		ServerName: "natstest",
		Host:       "127.0.0.1",
		Port:       s.port,
		JetStream:  true,
		StoreDir:   s.storeDir,
		NoLog:      true,
		NoSigs:     true,
	}
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
