// Command bff is Thumela's backend-for-frontend: the Connect API the browser calls, cookie
// sessions, live event streams, and the built web client.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/config"
	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/platform/lifecycle"
	"github.com/thumela/thumela/services/platform/logging"
	"github.com/thumela/thumela/services/platform/telemetry"

	"github.com/thumela/thumela/bff/internal/handlers"
	"github.com/thumela/thumela/bff/internal/historycache"
	"github.com/thumela/thumela/bff/internal/httpx"
	"github.com/thumela/thumela/bff/internal/live"
	"github.com/thumela/thumela/bff/internal/revocation"
	"github.com/thumela/thumela/bff/internal/server"
	"github.com/thumela/thumela/bff/internal/session"
	"github.com/thumela/thumela/bff/internal/upstream"
	"github.com/thumela/thumela/services/platform/memtrim"
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

	identityConn, err := grpcserver.Dial(cfg.IdentityAddr)
	if err != nil {
		return err
	}
	defer identityConn.Close() //nolint:errcheck // a client connection closed on the way out; nothing to do on error
	profilesConn, err := grpcserver.Dial(cfg.ProfilesAddr)
	if err != nil {
		return err
	}
	defer profilesConn.Close() //nolint:errcheck // a client connection closed on the way out; nothing to do on error
	paymentMethodsConn, err := grpcserver.Dial(cfg.PaymentMethodsAddr)
	if err != nil {
		return err
	}
	defer paymentMethodsConn.Close() //nolint:errcheck // a client connection closed on the way out; nothing to do on error
	feesConn, err := grpcserver.Dial(cfg.FeesAddr)
	if err != nil {
		return err
	}
	defer feesConn.Close() //nolint:errcheck // a client connection closed on the way out; nothing to do on error
	transfersConn, err := grpcserver.Dial(cfg.TransfersAddr)
	if err != nil {
		return err
	}
	defer transfersConn.Close() //nolint:errcheck // a client connection closed on the way out; nothing to do on error
	// A signed-in user's calls carry the user's token (the per-RPC credentials keep it); a
	// visitor's support message carries the BFF's own service token from identity.
	serviceTokens := auth.IdentityServiceTokens(identityConn, "bff", cfg.ServiceSecret)
	notificationsConn, err := grpcserver.Dial(cfg.NotificationsAddr, grpc.WithPerRPCCredentials(auth.PerRPCCredentials(serviceTokens)))
	if err != nil {
		return err
	}
	defer notificationsConn.Close() //nolint:errcheck // a client connection closed on the way out; nothing to do on error

	proxies, err := parsePrefixes(cfg.TrustedProxies)
	if err != nil {
		return err
	}
	identity := identityv1.NewIdentityServiceClient(identityConn)
	deps := &handlers.Deps{
		Logger:         logger,
		Identity:       identity,
		Profiles:       profilesv1.NewProfilesServiceClient(profilesConn),
		PaymentMethods: paymentmethodsv1.NewPaymentMethodsServiceClient(paymentMethodsConn),
		Fees:           feesv1.NewFeesServiceClient(feesConn),
		Transfers:      transfersv1.NewTransfersServiceClient(transfersConn),
		Notifications:  notificationsv1.NewNotificationsServiceClient(notificationsConn),
		Tokens:         session.NewTokens(upstream.SessionRefresher{Identity: identity}),
		Cookies:        cookiesFor(cfg),
		ClientAddr:     httpx.ClientAddress{TrustedProxies: proxies},
	}
	system := &handlers.System{Deps: deps, Health: map[string]healthpb.HealthClient{
		"identity": healthpb.NewHealthClient(identityConn),
		"profiles": healthpb.NewHealthClient(profilesConn),
	}}

	components := []lifecycle.Component{}
	if cfg.MetricsAddr != "" {
		// First: it stops last, so a scrape during shutdown still sees the last requests.
		components = append(components, telemetry.MetricsServer(cfg.MetricsAddr, logger))
	}
	opts := server.Options{Deps: deps, System: system, WebDir: cfg.WebDir, AllowedOrigins: cfg.AllowedOrigins, RateLimits: cfg.RateLimitConfig()}
	if cfg.DevMode {
		target, err := cfg.DevTools()
		if err != nil {
			return err
		}
		opts.DevTools = httpx.DevTools(target, logger)
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
	if err := bus.EnsureStreams(ctx, js, bus.WithReplicas(cfg.StreamReplicas)); err != nil {
		logger.Warn("could not ensure the streams yet", "err", err)
	}
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

// httpComponent serves HTTP/1.1 and cleartext HTTP/2 (for Connect streams behind a proxy that
// speaks h2c); TLS ends at the load balancer. onShutdown runs when the graceful stop begins,
// to end the long-lived live streams that Shutdown would otherwise wait on.
func httpComponent(addr string, h http.Handler, logger *slog.Logger, onShutdown ...func()) lifecycle.Component {
	srv := &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	srv.Protocols = new(http.Protocols)
	srv.Protocols.SetHTTP1(true)
	srv.Protocols.SetUnencryptedHTTP2(true)
	for _, fn := range onShutdown {
		srv.RegisterOnShutdown(fn)
	}
	return lifecycle.Component{
		Name: "http",
		Start: func(ctx context.Context) error {
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return err
			}
			logger.InfoContext(ctx, "listening", "addr", ln.Addr().String())
			if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
		Stop: srv.Shutdown,
	}
}

func cookiesFor(cfg server.Config) session.Cookies {
	https := strings.HasPrefix(cfg.PublicOrigin, "https://")
	return session.Cookies{
		Secure:     !cfg.InsecureCookies || https,
		HostPrefix: https,
	}
}

func parsePrefixes(cidrs []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(cidrs))
	for _, c := range cidrs {
		p, err := netip.ParsePrefix(strings.TrimSpace(c))
		if err != nil {
			return nil, fmt.Errorf("BFF_TRUSTED_PROXIES: %w", err)
		}
		out = append(out, p)
	}
	return out, nil
}
