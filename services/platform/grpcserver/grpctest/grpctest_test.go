package grpctest_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/platform/grpcserver/grpctest"
)

func checkHealth(t *testing.T, conn *grpc.ClientConn, opts ...grpc.CallOption) (healthpb.HealthCheckResponse_ServingStatus, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{}, opts...)
	return resp.GetStatus(), err
}

// TestServeServesUntilTheTestEnds: the connection Serve returns reaches a serving server, and
// once the (sub)test is over nothing listens on that address any more.
func TestServeServesUntilTheTestEnds(t *testing.T) {
	t.Parallel()
	var addr string
	t.Run("serving", func(t *testing.T) {
		srv := grpcserver.New(slog.New(slog.DiscardHandler))
		conn := grpctest.Serve(t, srv)
		addr = conn.Target()
		got, err := checkHealth(t, conn, grpc.WaitForReady(true))
		if err != nil || got != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("health = %v, %v; want SERVING", got, err)
		}
	})

	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := checkHealth(t, conn); status.Code(err) != codes.Unavailable {
		t.Fatalf("after the test, health call = %v; want Unavailable (server stopped)", err)
	}
}

// TestListenReturnsAnAddressToDial: Listen's address is dialable by the caller's own client.
func TestListenReturnsAnAddressToDial(t *testing.T) {
	t.Parallel()
	addr := grpctest.Listen(t, grpcserver.New(slog.New(slog.DiscardHandler)))
	conn, err := grpcserver.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	got, err := checkHealth(t, conn, grpc.WaitForReady(true))
	if err != nil || got != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health = %v, %v; want SERVING", got, err)
	}
}
