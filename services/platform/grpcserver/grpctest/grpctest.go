// Package grpctest runs a grpcserver.Server for the length of one test, the way every service's
// port and harness tests need it: on a fresh loopback port, stopped gracefully when the test
// ends, with a failed Serve reported as a test error rather than lost in a goroutine.
package grpctest

import (
	"context"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/thumela/thumela/services/platform/grpcserver"
)

// StopTimeout bounds the graceful stop at cleanup; past it the server cuts the calls still in
// flight, so a test that leaves a stream open does not hang its cleanup.
const StopTimeout = 5 * time.Second

// Listen serves srv (services already registered) on 127.0.0.1:0 until the test ends and
// returns the address it listens on, for tests that dial it themselves (with grpcserver.Dial, or
// through the adapter under test). At cleanup it stops srv as the process would on SIGTERM and
// reports an error from Serve with t.Errorf.
func Listen(t testing.TB, srv *grpcserver.Server) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	component := srv.ListenerComponent(lis)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- component.Start(ctx) }()
	t.Cleanup(func() {
		stopCtx, stop := context.WithTimeout(context.Background(), StopTimeout)
		defer stop()
		_ = component.Stop(stopCtx) // never fails: past the deadline it stops hard
		cancel()
		if err := <-served; err != nil {
			t.Errorf("grpctest: server: %v", err)
		}
	})
	return lis.Addr().String()
}

// Serve is Listen plus a plaintext client connection to srv. The connection is closed at
// cleanup, before the server stops.
func Serve(t testing.TB, srv *grpcserver.Server) *grpc.ClientConn {
	t.Helper()
	addr := Listen(t, srv)
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	// Registered after Listen's cleanup, so it runs first: the client goes before the server.
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}
