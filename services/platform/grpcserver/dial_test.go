package grpcserver_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/thumela/thumela/services/platform/grpcserver"
)

// countingHealth is a real gRPC server with the standard health service, counting the checks
// it answers.
type countingHealth struct {
	addr  string
	srv   *grpc.Server
	calls atomic.Int64
}

func startHealth(t *testing.T) *countingHealth {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &countingHealth{addr: lis.Addr().String()}
	h.srv = grpc.NewServer(grpc.UnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
		h.calls.Add(1)
		return next(ctx, req)
	}))
	healthpb.RegisterHealthServer(h.srv, health.NewServer())
	go func() { _ = h.srv.Serve(lis) }()
	t.Cleanup(h.srv.Stop)
	return h
}

func check(ctx context.Context, c healthpb.HealthClient) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	res, err := c.Check(ctx, &healthpb.HealthCheckRequest{})
	if err == nil && res.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		err = errors.New("not serving: " + res.GetStatus().String())
	}
	return err
}

// TestDialListSpreadsCallsAndFailsOver: a list target spreads calls over both replicas, and
// when one goes away the other takes every call: at once when it stops gracefully (GOAWAY),
// and after at most the one call that was on the wire when it crashed.
func TestDialListSpreadsCallsAndFailsOver(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		stop        func(*grpc.Server)
		maxFailures int
	}{
		{"graceful stop", (*grpc.Server).GracefulStop, 0},
		{"crash", (*grpc.Server).Stop, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, b := startHealth(t), startHealth(t)
			conn, err := grpcserver.Dial(a.addr + "," + b.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			client := healthpb.NewHealthClient(conn)
			ctx := t.Context()

			// round_robin starts picking once the first replica is connected and joins the
			// second as it connects: make sure both are in before counting.
			deadline := time.Now().Add(10 * time.Second)
			for a.calls.Load() == 0 || b.calls.Load() == 0 {
				if time.Now().After(deadline) {
					t.Fatalf("after %d and %d calls, one replica still has none", a.calls.Load(), b.calls.Load())
				}
				if err := check(ctx, client); err != nil {
					t.Fatal(err)
				}
			}
			a0, b0 := a.calls.Load(), b.calls.Load()
			const n = 100
			for range n {
				if err := check(ctx, client); err != nil {
					t.Fatal(err)
				}
			}
			// Round robin over two ready replicas alternates: each gets half (give or take a
			// picker rebuilt mid-way, which restarts at a random replica).
			if da, db := a.calls.Load()-a0, b.calls.Load()-b0; da < n*2/5 || db < n*2/5 {
				t.Fatalf("calls split %d/%d over the two replicas, want about %d each", da, db, n/2)
			}

			tc.stop(a.srv)
			before := b.calls.Load()
			failures := 0
			for i := range n {
				if err := check(ctx, client); err != nil {
					failures++
					if failures > tc.maxFailures {
						t.Fatalf("call %d after a replica stopped: %v (%d failures, want at most %d)", i, err, failures, tc.maxFailures)
					}
				}
			}
			if got := b.calls.Load() - before; got != int64(n-failures) {
				t.Fatalf("the remaining replica answered %d calls, want %d", got, n-failures)
			}
		})
	}
}

func TestDialOneAddressStillWorks(t *testing.T) {
	t.Parallel()
	a := startHealth(t)
	for _, target := range []string{a.addr, "dns:///" + a.addr, "passthrough:///" + a.addr} {
		conn, err := grpcserver.Dial(target)
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		if err := check(t.Context(), healthpb.NewHealthClient(conn)); err != nil {
			t.Errorf("%s: %v", target, err)
		}
		conn.Close()
	}
}

func TestDialRefusesABadList(t *testing.T) {
	t.Parallel()
	for _, target := range []string{"127.0.0.1:1,", "127.0.0.1:1,,127.0.0.1:2", "127.0.0.1:1,no-port", "dns:///a:1,b:2"} {
		conn, err := grpcserver.Dial(target)
		if !errors.Is(err, grpcserver.ErrBadTarget) {
			if conn != nil {
				conn.Close()
			}
			t.Errorf("Dial(%q) = %v, want ErrBadTarget", target, err)
		} else if !strings.Contains(err.Error(), target) {
			t.Errorf("Dial(%q): the error does not name the target: %v", target, err)
		}
	}
}
