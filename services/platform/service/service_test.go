package service_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/natstest"
	"github.com/thumela/thumela/services/platform/pgtest"
	"github.com/thumela/thumela/services/platform/service"
	"github.com/thumela/thumela/services/platform/service/servicetest"
)

type testConfig struct {
	service.Base
	Greeting string `env:"GREETING" default:"hello"`
}

// A service built on the runtime migrates, serves health, runs its workers and stops cleanly
// when its context ends (as on SIGTERM).
func TestRunServesHealthAndStopsCleanly(t *testing.T) {
	addr := servicetest.FreeAddr(t)
	t.Setenv("DATABASE_URL", pgtest.NewDatabase(t))
	// svctest is no service of the permission table: it connects as the test admin.
	for k, v := range natstest.Start(t).Env(bus.IdentityAdmin) {
		t.Setenv(k, v)
	}
	t.Setenv("SVCTEST_GRPC_ADDR", addr)

	var cfg testConfig
	workerStopped := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	var runErr error
	stopped := make(chan struct{}) // closed when Run returns, with runErr set
	go func() {
		defer close(stopped)
		runErr = service.Run(ctx, service.Spec{
			Name:   "svctest",
			Config: &cfg,
			Setup: func(_ context.Context, rt *service.Runtime) error {
				rt.Go("worker", func(ctx context.Context) error {
					<-ctx.Done()
					close(workerStopped)
					return nil
				})
				return rt.Serve(auth.Policy{}, auth.StaticKeys{}, func(grpc.ServiceRegistrar) {})
			},
		})
	}()

	servicetest.WaitServing(t, servicetest.Dial(t, addr), 20*time.Second, stopped, func() error { return runErr })
	if cfg.Greeting != "hello" {
		t.Errorf("config default not applied: %q", cfg.Greeting)
	}

	cancel()
	select {
	case <-stopped:
		if runErr != nil {
			t.Fatalf("Run returned %v on a clean stop", runErr)
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
