// Package gateway assembles the cash-out gateway binary: configuration, logging, telemetry, the
// client of transfers with the atm-gateway service token, the use cases, the ISO 8583 listener
// and the gRPC health server, run and stopped together.
//
// It does not use the platform's service.Run on purpose: that skeleton connects PostgreSQL and
// NATS and migrates an outbox, and the gateway keeps no state and publishes nothing (transfers
// owns the vouchers and their events). An ATM switch's gateway that cannot start while the
// database is down, or that needs network paths to it, would be worse for nothing. It is built
// from the same platform pieces instead (config, logging, telemetry, grpcserver, lifecycle,
// auth), so it behaves like every other service: health and reflection on
// CASHOUT_GRPC_ADDR, metrics and the profiler on CASHOUT_METRICS_ADDR, JSON logs with trace
// ids, a graceful stop.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"

	"github.com/thumela/thumela/services/cashout/atmnet"
	"github.com/thumela/thumela/services/cashout/internal/adapters/transfersgrpc"
	"github.com/thumela/thumela/services/cashout/internal/app"
	"github.com/thumela/thumela/services/cashout/internal/domain"
	"github.com/thumela/thumela/services/cashout/internal/ports/iso"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/config"
	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/platform/lifecycle"
	"github.com/thumela/thumela/services/platform/logging"
	"github.com/thumela/thumela/services/platform/telemetry"
)

// Name is the service's name: its env prefix (CASHOUT_) and its telemetry service name.
const Name = "cashout"

// ServiceName is the service-token subject the gateway calls transfers as; identity issues it
// tokens when IDENTITY_SERVICE_SECRETS lists atm-gateway=<CASHOUT_SERVICE_SECRET>.
const ServiceName = "atm-gateway"

// DefaultBankCodes are the acquiring institution ids (DE 32) the gateway knows when
// CASHOUT_BANK_CODES is unset: the five banks' universal branch codes.
var DefaultBankCodes = []string{
	atmnet.AcquirerStandardBank + "=standard_bank",
	atmnet.AcquirerABSA + "=absa",
	atmnet.AcquirerFNB + "=fnb",
	atmnet.AcquirerNedbank + "=nedbank",
	atmnet.AcquirerCapitec + "=capitec",
}

// Config is the gateway's configuration: CASHOUT_-prefixed unless noted (docs/cashout.md).
type Config struct {
	// GRPCAddr serves gRPC health and reflection only: the gateway has no gRPC API.
	GRPCAddr string `env:"GRPC_ADDR" default:"127.0.0.1:9090"`
	// ISOAddr is where the ATM switches connect (ISO 8583 over TCP).
	ISOAddr string `env:"ISO_ADDR" default:"127.0.0.1:8583"`
	// MetricsAddr, when set, serves Prometheus metrics and the profiler on a listener of its
	// own.
	MetricsAddr   string `env:"METRICS_ADDR"`
	TransfersAddr string `env:"TRANSFERS_ADDR,noprefix" required:"true"`
	IdentityAddr  string `env:"IDENTITY_ADDR,noprefix" required:"true"`
	// ServiceSecret authenticates the gateway to identity's IssueServiceToken as atm-gateway.
	ServiceSecret string `env:"SERVICE_SECRET" required:"true" secret:"true"`
	// ZonePINKeys are "<id>:<key>" (hex or base64 AES key), the current key first; DE 53
	// names the key of each PIN block.
	ZonePINKeys []string `env:"ZONE_PIN_KEYS" required:"true" secret:"true"`
	// BankCodes are "<acquirer id>=<bank>" (standard_bank, absa, fnb, nedbank, capitec).
	BankCodes []string `env:"BANK_CODES"`
	// RequestTimeout bounds each call to transfers; keep it below the switch's own timeout.
	RequestTimeout time.Duration `env:"REQUEST_TIMEOUT" default:"10s"`
	// StandInWindow is how long a stand-in reversal is retried before on-call must act.
	StandInWindow   time.Duration `env:"STAND_IN_WINDOW" default:"10m"`
	Environment     string        `env:"THUMELA_ENV,noprefix" default:"production"`
	LogLevel        string        `env:"LOG_LEVEL,noprefix" default:"info"`
	ShutdownTimeout time.Duration `env:"SHUTDOWN_TIMEOUT" default:"15s"`
}

// parsed is what validate makes of the configuration.
type parsed struct {
	keys  *atmnet.ZoneKeys
	banks domain.BankCodes
}

// validate checks what the tags cannot. Errors name variables, never values.
func (c *Config) validate() (parsed, error) {
	var p parsed
	var errs []error
	var err error
	if p.keys, err = atmnet.ParseZoneKeys(c.ZonePINKeys); err != nil {
		errs = append(errs, fmt.Errorf("CASHOUT_ZONE_PIN_KEYS: %w", err))
	}
	codes := c.BankCodes
	if len(codes) == 0 {
		codes = DefaultBankCodes
	}
	if p.banks, err = domain.ParseBankCodes(codes); err != nil {
		errs = append(errs, fmt.Errorf("CASHOUT_BANK_CODES: %w", err))
	}
	if c.RequestTimeout <= 0 {
		errs = append(errs, errors.New("CASHOUT_REQUEST_TIMEOUT must be positive"))
	}
	if c.StandInWindow <= 0 {
		errs = append(errs, errors.New("CASHOUT_STAND_IN_WINDOW must be positive"))
	}
	if c.ShutdownTimeout <= 0 {
		errs = append(errs, errors.New("CASHOUT_SHUTDOWN_TIMEOUT must be positive"))
	}
	return p, errors.Join(errs...)
}

// Main runs the gateway from the environment and exits non-zero on failure.
func Main(version string) {
	if err := Run(context.Background(), version, os.LookupEnv); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", Name, err)
		os.Exit(1)
	}
}

// Run runs the gateway until SIGINT/SIGTERM or ctx ends, configured by lookup (os.LookupEnv;
// tests pass a map). It sets up the process's telemetry first.
func Run(ctx context.Context, version string, lookup config.LookupFunc) error {
	var cfg Config
	if err := config.LoadWith(lookup, strings.ToUpper(Name), &cfg); err != nil {
		return err
	}
	level, err := logging.ParseLevel(cfg.LogLevel)
	if err != nil {
		return err
	}
	logger := logging.New(Name, os.Stdout, level)
	logger.Info("starting", slog.String("version", version), slog.Any("config", config.Describe(&cfg)))

	shutdownTelemetry, err := telemetry.Setup(ctx, Name, version, telemetry.WithErrorLogger(logger))
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = shutdownTelemetry(sctx)
	}()
	return Serve(ctx, cfg, logger)
}

// Serve runs the gateway with cfg and logger, with the process's telemetry as it is (tests
// set it up once for their package).
func Serve(ctx context.Context, cfg Config, logger *slog.Logger) error {
	p, err := cfg.validate()
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	logger.Info("zone PIN keys", "key_ids", p.keys.IDs(), "current", p.keys.Current().ID())

	identity, err := grpcserver.Dial(cfg.IdentityAddr)
	if err != nil {
		return err
	}
	defer identity.Close() //nolint:errcheck // closing a client connection on the way out; nothing to do on error
	tokens := auth.IdentityServiceTokens(identity, ServiceName, cfg.ServiceSecret)
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
	isoServer, err := iso.NewServer(svc, p.keys, p.banks, logger)
	if err != nil {
		return err
	}
	// Health and reflection only: no API is registered, so no access policy is needed.
	health := grpcserver.New(logger)

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
	)
	return lifecycle.Run(ctx, logger, cfg.ShutdownTimeout, components...)
}
