// Command cashout is the gateway of the ATM networks: it speaks ISO 8583 over TCP with the
// switches and collects vouchers from transfers as the atm-gateway service (docs/cashout.md).
//
// This file is its wiring: configuration, logging, telemetry, the client of transfers with the
// atm-gateway service token, the use cases, the ISO 8583 listener and the gRPC health server,
// run and stopped together.
//
// It does not use the platform's service.Run on purpose: that skeleton connects PostgreSQL and
// NATS and migrates an outbox, and the gateway keeps no state and publishes nothing (transfers
// owns the vouchers and their events). An ATM switch's gateway that cannot start while the
// database is down, or that needs network paths to it, would be worse for nothing. It is built
// from the same platform pieces instead (config, logging, telemetry, grpcserver, lifecycle,
// auth), so it behaves like every other service: health and (for service tokens) reflection on
// CASHOUT_GRPC_ADDR, metrics and the profiler on CASHOUT_METRICS_ADDR, JSON logs with trace
// ids, a graceful stop.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"google.golang.org/grpc"

	"github.com/thumela/thumela/services/cashout/internal/adapters/transfersgrpc"
	"github.com/thumela/thumela/services/cashout/internal/app"
	"github.com/thumela/thumela/services/cashout/internal/ports/iso"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/config"
	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/platform/lifecycle"
	"github.com/thumela/thumela/services/platform/logging"
	"github.com/thumela/thumela/services/platform/memtrim"
	"github.com/thumela/thumela/services/platform/telemetry"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// name is the service's name: its env prefix (CASHOUT_) and its telemetry service name.
const name = "cashout"

// serviceName is the service-token subject the gateway calls transfers as; identity issues it
// tokens when IDENTITY_SERVICE_SECRETS lists atm-gateway=<CASHOUT_SERVICE_SECRET>.
const serviceName = "atm-gateway"

func main() {
	var cfg Config
	err := config.Load("CASHOUT", &cfg)
	if err == nil {
		err = run(context.Background(), cfg)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}

// run runs the gateway until SIGINT/SIGTERM or ctx ends. It sets up the process's logging and
// telemetry first.
func run(ctx context.Context, cfg Config) error {
	logger, err := newLogger(cfg, os.Stdout)
	if err != nil {
		return err
	}
	logger.Info("starting", slog.String("version", version), slog.Any("config", config.Describe(&cfg)))

	shutdownTelemetry, err := telemetry.Setup(ctx, name, version, telemetry.WithErrorLogger(logger))
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = shutdownTelemetry(sctx)
	}()
	return serve(ctx, cfg, logger)
}

// newLogger is the service's JSON logger on out, at cfg's level.
func newLogger(cfg Config, out io.Writer) (*slog.Logger, error) {
	level, err := logging.ParseLevel(cfg.LogLevel)
	if err != nil {
		return nil, err
	}
	return logging.New(name, out, level), nil
}

// serve runs the gateway with cfg and logger, with the process's telemetry as it is (tests
// set it up once for their package).
func serve(ctx context.Context, cfg Config, logger *slog.Logger) error {
	p, err := cfg.validate()
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	// Ids and the acquirer ids each set was issued to; never a key.
	logger.Info("zone keys", "key_ids", p.zones.IDs(), "current", p.zones.Current().ID(), "acquirers", p.zones.Bindings())

	identity, err := grpcserver.Dial(cfg.IdentityAddr)
	if err != nil {
		return err
	}
	defer identity.Close() //nolint:errcheck // closing a client connection on the way out; nothing to do on error
	tokens := auth.IdentityServiceTokens(identity, serviceName, cfg.ServiceSecret)
	transfersConn, err := grpcserver.Dial(cfg.TransfersAddr, grpc.WithPerRPCCredentials(auth.PerRPCCredentials(tokens)))
	if err != nil {
		return err
	}
	defer transfersConn.Close() //nolint:errcheck // closing a client connection on the way out; nothing to do on error

	svc, err := app.New(transfersgrpc.New(transfersConn), app.Config{
		Timeout:       cfg.RequestTimeout,
		StandInWindow: cfg.StandInWindow,
	}, logger)
	if err != nil {
		return err
	}
	isoServer, err := iso.NewServer(svc, p.zones, p.banks, iso.Config{
		MaxConnections:   cfg.ISOMaxConnections,
		IdleTimeout:      cfg.ISOIdleTimeout,
		TransmissionSkew: cfg.TransmissionSkew,
	}, logger)
	if err != nil {
		return err
	}
	// Health and reflection only: no API is registered, so the policy is empty. Health stays
	// public (the probes); reflection, as on every service, answers a valid service token only,
	// verified with identity's public keys.
	verifier := auth.NewVerifier(auth.IdentityKeySource(identity), auth.IdentityIssuer)
	health := grpcserver.New(logger,
		grpcserver.WithUnaryInterceptors(auth.UnaryServerInterceptor(verifier, auth.Policy{})),
		grpcserver.WithStreamInterceptors(auth.StreamServerInterceptor(verifier, auth.Policy{})),
	)

	var components []lifecycle.Component
	if cfg.MetricsAddr != "" {
		// First: it stops last, so the shutdown's own requests can still be scraped.
		components = append(components, telemetry.MetricsServer(cfg.MetricsAddr, logger))
	}
	components = append(components,
		health.Component(cfg.GRPCAddr),
		// Stopped after the ISO listener has answered its last request: it waits for the
		// stand-in reversals those requests started.
		lifecycle.Component{
			Name:  "stand-in reversals",
			Start: func(ctx context.Context) error { <-ctx.Done(); return nil },
			Stop:  svc.Close,
		},
		isoServer.Component(cfg.ISOAddr),
		// Idle heap back to the system after a burst, as every service does (platform/service).
		lifecycle.Component{Name: "memtrim", Start: func(ctx context.Context) error { return memtrim.Run(ctx, memtrim.Config{}, logger) }},
	)
	return lifecycle.Run(ctx, logger, cfg.ShutdownTimeout, components...)
}
