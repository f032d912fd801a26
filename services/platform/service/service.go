// Package service is the common skeleton of every Thumela service binary: configuration,
// logging, telemetry (with the Prometheus metrics listener at <SERVICE>_METRICS_ADDR),
// PostgreSQL with the service's migrations, NATS with the streams, the outbox relay, the gRPC
// server with health, reflection and access-token checks, and a graceful stop. A service's main is then one call:
//
//	func main() {
//		var cfg Config // embeds service.Base
//		service.Main(service.Spec{Name: "profiles", Config: &cfg, Migrations: ..., Setup: wire})
//	}
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/config"
	"github.com/thumela/thumela/services/platform/lifecycle"
	"github.com/thumela/thumela/services/platform/logging"
	"github.com/thumela/thumela/services/platform/memtrim"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/postgres"
	"github.com/thumela/thumela/services/platform/telemetry"
)

// Base is the configuration every service shares; a service's own config struct embeds it.
// Variables are named <SERVICE>_<NAME>, except the shared ones marked noprefix.
type Base struct {
	GRPCAddr        string        `env:"GRPC_ADDR" default:"127.0.0.1:9090"`
	DatabaseURL     string        `env:"DATABASE_URL,noprefix" required:"true" secret:"true"`
	NatsURL         string        `env:"NATS_URL,noprefix" default:"nats://127.0.0.1:4222"`
	IdentityAddr    string        `env:"IDENTITY_ADDR,noprefix"`
	Environment     string        `env:"THUMELA_ENV,noprefix" default:"production"`
	LogLevel        string        `env:"LOG_LEVEL,noprefix" default:"info"`
	ShutdownTimeout time.Duration `env:"SHUTDOWN_TIMEOUT" default:"15s"`
	// StreamReplicas is 1 for a single NATS server, 3 for the production cluster.
	StreamReplicas int `env:"STREAM_REPLICAS,noprefix" default:"1"`
	// MetricsAddr, when set (":9464" in Kubernetes), serves the Prometheus metrics at /metrics
	// on a listener of its own, away from the gRPC port; empty (the default) serves none.
	MetricsAddr string `env:"METRICS_ADDR"`

	// NATS are the process's NATS credentials and TLS trust (NATS_NKEY_SEED_FILE,
	// NATS_CA_FILE); the service's name is its identity in the permission table.
	NATS bus.Credentials
}

// Development reports whether the service runs in the local dev stack.
func (b Base) Development() bool { return b.Environment == "development" }

// base lets Run reach the embedded Base of any service config.
type baser interface{ base() *Base }

func (b *Base) base() *Base { return b }

// Spec describes one service binary.
type Spec struct {
	// Name is the service's name: its env prefix (upper-cased) and its PostgreSQL schema.
	Name    string
	Version string
	// Config points at the service's config struct, which embeds Base.
	Config any
	// Migrations are the service's own; the outbox's table is migrated first, always.
	Migrations []postgres.MigrationSet
	// Setup wires the service: it registers its gRPC API with rt.Serve and may add background
	// workers with rt.Go.
	Setup func(ctx context.Context, rt *Runtime) error
}

// Runtime is what a service's Setup gets to build with.
type Runtime struct {
	Name   string
	Base   Base
	Logger *slog.Logger
	Pool   *pgxpool.Pool
	NATS   *nats.Conn
	JS     jetstream.JetStream

	components []lifecycle.Component
	closers    []func()
}

// Go runs fn as a background component until the service stops; an error stops the service.
func (rt *Runtime) Go(name string, fn func(ctx context.Context) error) {
	rt.components = append(rt.components, lifecycle.Component{Name: name, Start: fn})
}

// Add adds a component with its own stop.
func (rt *Runtime) Add(c lifecycle.Component) { rt.components = append(rt.components, c) }

// OnClose registers fn to run when the service has stopped (closing client connections).
func (rt *Runtime) OnClose(fn func()) { rt.closers = append(rt.closers, fn) }

// Main runs the service and exits non-zero on failure. It is the whole of a service's main.
func Main(spec Spec) {
	if err := Run(context.Background(), spec); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", spec.Name, err)
		os.Exit(1)
	}
}

// Run runs the service until SIGINT/SIGTERM or ctx ends.
func Run(ctx context.Context, spec Spec) error {
	b, ok := spec.Config.(baser)
	if !ok {
		return errors.New("service: Spec.Config must point at a struct that embeds service.Base")
	}
	if err := config.Load(strings.ToUpper(spec.Name), spec.Config); err != nil {
		return err
	}
	base := *b.base()
	level, err := logging.ParseLevel(base.LogLevel)
	if err != nil {
		return err
	}
	logger := logging.New(spec.Name, os.Stdout, level)
	logger.Info("starting", slog.String("version", spec.Version), slog.Any("config", config.Describe(spec.Config)))

	ctx, stop := lifecycle.SignalContext(ctx)
	defer stop()

	shutdownTelemetry, err := telemetry.Setup(ctx, spec.Name, spec.Version, telemetry.WithErrorLogger(logger))
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = shutdownTelemetry(sctx)
	}()

	pool, err := postgres.Open(ctx, base.DatabaseURL, spec.Name, postgres.WithLogger(logger))
	if err != nil {
		return err
	}
	defer pool.Close()
	sets := append([]postgres.MigrationSet{outbox.Migrations}, spec.Migrations...)
	if err := postgres.Migrate(ctx, pool, spec.Name, sets...); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}

	creds := base.NATS
	creds.Identity = spec.Name
	nc, js, err := bus.Connect(ctx, base.NatsURL, spec.Name, logger, bus.WithCredentials(creds))
	if err != nil {
		return err
	}
	defer nc.Close()
	// Each service creates the streams it publishes to (the only ones its NATS identity may
	// create), whoever starts first; a NATS that is down now only delays it.
	bus.WarnUnensured(logger, bus.EnsureStreams(ctx, js, bus.WithReplicas(base.StreamReplicas)))

	relay, err := outbox.NewRelay(pool, js, spec.Name, logger)
	if err != nil {
		return err
	}
	rt := &Runtime{Name: spec.Name, Base: base, Logger: logger, Pool: pool, NATS: nc, JS: js}
	if base.MetricsAddr != "" {
		// First: it stops last, so the shutdown's own requests can still be scraped.
		rt.Add(telemetry.MetricsServer(base.MetricsAddr, logger))
	}
	rt.Go("outbox-relay", relay.Run)
	// Idle heap back to the system once a burst is over: every process stays within its
	// memory budget after the load, not only while idle (memtrim).
	rt.Go("memtrim", func(ctx context.Context) error { return memtrim.Run(ctx, memtrim.Config{}, logger) })
	if err := spec.Setup(ctx, rt); err != nil {
		return err
	}
	defer func() {
		for i := len(rt.closers) - 1; i >= 0; i-- {
			rt.closers[i]()
		}
	}()
	return lifecycle.Run(ctx, logger, base.ShutdownTimeout, rt.components...)
}
