package service_test

import (
	"context"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/natstest"
	"github.com/thumela/thumela/services/platform/pgtest"
	"github.com/thumela/thumela/services/platform/service"
)

type testConfig struct {
	service.Base
	Greeting string `env:"GREETING" default:"hello"`
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// A service built on the runtime migrates, serves health, runs its workers and stops cleanly
// when its context ends (as on SIGTERM).
func TestRunServesHealthAndStopsCleanly(t *testing.T) {
	addr := freeAddr(t)
	t.Setenv("DATABASE_URL", pgtest.NewDatabase(t))
	t.Setenv("NATS_URL", natstest.Run(t))
	t.Setenv("SVCTEST_GRPC_ADDR", addr)

	var cfg testConfig
	workerStopped := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- service.Run(ctx, service.Spec{
			Name:   "svctest",
			Config: &cfg,
			Setup: func(ctx context.Context, rt *service.Runtime) error {
				rt.Go("worker", func(ctx context.Context) error {
					<-ctx.Done()
					close(workerStopped)
					return nil
				})
				return rt.Serve(auth.Policy{}, auth.StaticKeys{}, func(grpc.ServiceRegistrar) {})
			},
		})
	}()

	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	health := healthpb.NewHealthClient(conn)
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := health.Check(context.Background(), &healthpb.HealthCheckRequest{})
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
	if cfg.Greeting != "hello" {
		t.Errorf("config default not applied: %q", cfg.Greeting)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run returned %v on a clean stop", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("service did not stop")
	}
	select {
	case <-workerStopped:
	default:
		t.Fatal("worker was not stopped")
	}
}

func TestRunRefusesConfigWithoutBase(t *testing.T) {
	t.Parallel()
	var notABase struct{ X string }
	err := service.Run(context.Background(), service.Spec{Name: "svctest", Config: &notABase})
	if err == nil {
		t.Fatal("want an error for a config that does not embed Base")
	}
}
