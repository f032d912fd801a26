// Command bff is Thumela's backend-for-frontend: the Connect API the browser calls, cookie
// sessions, live event streams, and the built web client.
//
// main.go reads the configuration and runs the process's parts; upstreams.go connects to the
// services it calls; http.go serves.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/config"
	"github.com/thumela/thumela/services/platform/lifecycle"
	"github.com/thumela/thumela/services/platform/logging"
	"github.com/thumela/thumela/services/platform/memtrim"
	"github.com/thumela/thumela/services/platform/telemetry"

	"github.com/thumela/thumela/bff/internal/handlers"
	"github.com/thumela/thumela/bff/internal/historycache"
	"github.com/thumela/thumela/bff/internal/httpx"
	"github.com/thumela/thumela/bff/internal/live"
	"github.com/thumela/thumela/bff/internal/revocation"
	"github.com/thumela/thumela/bff/internal/server"
	"github.com/thumela/thumela/bff/internal/session"
	"github.com/thumela/thumela/bff/internal/upstream"
)

var version = "dev"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bff:", err)
		os.Exit(1)
	}
}

func run() error {
	var cfg server.Config
	if err := config.Load("BFF", &cfg); err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	level, err := logging.ParseLevel(cfg.LogLevel)
	if err != nil {
		return err
	}
	logger := logging.New("bff", os.Stdout, level)
	logger.Info("starting", slog.String("version", version), slog.Any("config", config.Describe(cfg)))

	ctx, stop := lifecycle.SignalContext(context.Background())
	defer stop()
	shutdownTelemetry, err := telemetry.Setup(ctx, "bff", version)
	if err != nil {
		return err
	}
	defer func() {
		if err := shutdownTelemetry(context.Background()); err != nil {
			logger.Warn("telemetry shutdown", slog.Any("error", err))
		}
	}()
	return serve(ctx, cfg, logger)
}

// serve connects to the services and NATS and runs the BFF's parts until ctx ends.
func serve(ctx context.Context, cfg server.Config, logger *slog.Logger) error {
	up, err := dialUpstreams(cfg)
	if err != nil {
		return err
	}
	defer up.Close() //nolint:errcheck // client connections closed on the way out; nothing to do on error
	proxies, err := parsePrefixes(cfg.TrustedProxies)
	if err != nil {
		return err
	}
	deps := &handlers.Deps{Logger: logger, Cookies: cookiesFor(cfg), ClientAddr: httpx.ClientAddress{TrustedProxies: proxies}}
	up.clients(deps)
	deps.Tokens = session.NewTokens(upstream.SessionRefresher{Identity: deps.Identity})

	var components []lifecycle.Component
	if cfg.MetricsAddr != "" {
		// First: it stops last, so a scrape during shutdown still sees the last requests.
		components = append(components, telemetry.MetricsServer(cfg.MetricsAddr, logger))
	}
	opts := server.Options{Deps: deps, System: &handlers.System{Deps: deps, Health: up.health()}, WebDir: cfg.WebDir,
		Origins: httpx.OriginPolicy{Public: cfg.PublicOrigin, Allowed: cfg.AllowedOrigins}, RateLimits: cfg.RateLimitConfig()}
	if cfg.DevMode {
		target, err := cfg.DevTools()
		if err != nil {
			return err
		}
		opts.DevTools = httpx.DevHosts(append([]string{cfg.PublicOrigin}, cfg.AllowedOrigins...), httpx.DevTools(target, logger))
		logger.Warn("development mode: /dev/ is proxied to the dev tools", "dev_tools_url", target.String())
	}

	// NATS carries the users' events (and the deliveries of their recipients' SMS) to their
	// live streams. NATS being down delays live events; pages still load.
	natsCreds := cfg.NATS
	natsCreds.Identity = "bff"
	nc, js, err := bus.Connect(ctx, cfg.NatsURL, "bff", logger, bus.WithCredentials(natsCreds))
	if err != nil {
		return err
	}
	defer nc.Close()
	bus.WarnUnensured(logger, bus.EnsureStreams(ctx, js, bus.WithReplicas(cfg.StreamReplicas)))
	deps.JS = js
	// Sessions revoked anywhere stop working here at once (their grants and live streams end).
	components = append(components, lifecycle.Component{Name: "revocations", Start: revocation.New(js, deps.Tokens, logger).Run})
	// One consumer of the users' events for every live stream of this process, from the
	// stream's end at start; the streams refuse with Unavailable until it reads the stream.
	deps.History = historycache.New(cfg.HistoryCacheTTL, historycache.DefaultMaxPages)
	deps.Live = handlers.NewLiveHub(js, logger, live.Limits{PerUser: cfg.LiveStreamsPerUser}, deps.History)
	components = append(components, lifecycle.Component{Name: "live-events", Start: deps.Live.Run})

	handler, err := server.New(opts)
	if err != nil {
		return err
	}
	// Idle heap back to the system once a burst of requests or streams is over (memtrim).
	components = append(components, lifecycle.Component{Name: "memtrim", Start: func(ctx context.Context) error {
		return memtrim.Run(ctx, memtrim.Config{}, logger)
	}})
	components = append(components, httpComponent(cfg.HTTPAddr, handler, logger, deps.Live.Drain))
	return lifecycle.Run(ctx, logger, cfg.ShutdownTimeout, components...)
}
