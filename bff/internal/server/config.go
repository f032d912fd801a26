package server

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/thumela/thumela/bff/internal/ratelimit"
	"github.com/thumela/thumela/services/platform/bus"
)

// Config is the BFF's configuration, read from BFF_* variables (shared ones unprefixed).
type Config struct {
	HTTPAddr string `env:"HTTP_ADDR" default:"127.0.0.1:8080"`
	// WebDir holds the built web client (web/dist).
	WebDir string `env:"WEB_DIR" default:"web/dist"`
	// DevMode proxies every /dev/ path (the dev outbox, the SMS sink's failure switches, the
	// ATM stand-in) to DevToolsURL. Never in production: refused with an https PublicOrigin or
	// Environment "production" (the default), and unless HTTPAddr is a loopback address or
	// Environment is "development".
	DevMode bool `env:"DEV_MODE" default:"false"`
	// Environment is the deployment's kind (THUMELA_ENV, shared by every service):
	// "development" allows DevMode on any address.
	Environment string `env:"THUMELA_ENV,noprefix" default:"production"`
	// DevToolsURL is the development stack's dev-tools server (http://127.0.0.1:…), required
	// with DevMode and ignored without it.
	DevToolsURL string `env:"DEV_TOOLS_URL"`
	// PublicOrigin is where browsers reach the BFF, e.g. https://app.thumela.co.za. Over https
	// the session cookie takes the __Host- prefix.
	PublicOrigin string `env:"PUBLIC_ORIGIN"`
	// AllowedOrigins may call the API besides the BFF's own origin (e.g. the Vite dev server).
	AllowedOrigins []string `env:"ALLOWED_ORIGINS"`
	// TrustedProxies (CIDRs) are believed about X-Forwarded-For.
	TrustedProxies []string `env:"TRUSTED_PROXIES"`
	// InsecureCookies drops the Secure flag: only for plain-http development on a host other
	// than localhost (browsers accept Secure cookies from http://localhost).
	InsecureCookies bool `env:"INSECURE_COOKIES" default:"false"`
	// ServiceSecret authenticates the BFF to identity's IssueServiceToken: the "bff" service
	// token that a signed-out visitor's support message carries to notifications.
	ServiceSecret string `env:"SERVICE_SECRET" required:"true" secret:"true"`

	IdentityAddr       string `env:"IDENTITY_ADDR,noprefix" required:"true"`
	ProfilesAddr       string `env:"PROFILES_ADDR,noprefix" required:"true"`
	PaymentMethodsAddr string `env:"PAYMENTMETHODS_ADDR,noprefix" required:"true"`
	FeesAddr           string `env:"FEES_ADDR,noprefix" required:"true"`
	TransfersAddr      string `env:"TRANSFERS_ADDR,noprefix" required:"true"`
	NotificationsAddr  string `env:"NOTIFICATIONS_ADDR,noprefix" required:"true"`
	NatsURL            string `env:"NATS_URL,noprefix" default:"nats://127.0.0.1:4222"`
	StreamReplicas     int    `env:"STREAM_REPLICAS,noprefix" default:"1"`
	// NATS are the BFF's NATS credentials and TLS trust (NATS_NKEY_SEED_FILE, NATS_CA_FILE):
	// identity "bff" of the permission table (services/platform/bus/permissions.go).
	NATS bus.Credentials

	LogLevel        string        `env:"LOG_LEVEL,noprefix" default:"info"`
	ShutdownTimeout time.Duration `env:"SHUTDOWN_TIMEOUT" default:"15s"`
	// MetricsAddr, when set (":9464" in Kubernetes), serves the Prometheus metrics at /metrics
	// on a listener of its own, never on the public HTTPAddr; empty (the default) serves none.
	MetricsAddr string `env:"METRICS_ADDR"`
	// RateLimits overrides rules of the rate-limit table (docs/security-ratelimits.md):
	// comma-separated "<policy>.<address|account|pair>=<rate>/<period>+<burst>", e.g.
	// "signup.address=60/1m+20"; rate 0 turns a rule off. Empty keeps the defaults.
	RateLimits string `env:"RATE_LIMITS"`
	// HistoryCacheTTL is how long a page of a sender's history is answered from memory at most
	// (bff/internal/historycache; the sender's events drop it sooner); 0 keeps none.
	HistoryCacheTTL time.Duration `env:"HISTORY_CACHE_TTL" default:"5s"`
	// LiveStreamsPerUser is how many live event streams (WatchEvents) one user may hold open on
	// this replica at once; the next is refused (ResourceExhausted) until one closes. 0 takes
	// live.DefaultPerUser.
	LiveStreamsPerUser int `env:"LIVE_STREAMS_PER_USER" default:"128"`
}

// RateLimitConfig is the rate limiter's part of the configuration.
func (c Config) RateLimitConfig() ratelimit.Config {
	return ratelimit.Config{Overrides: c.RateLimits, Replicas: c.StreamReplicas}
}

// Validate checks what the variables cannot say one by one.
func (c Config) Validate() error {
	if err := ratelimit.ApplyOverrides(ratelimit.DefaultPolicies(), c.RateLimits); err != nil {
		return err
	}
	if c.LiveStreamsPerUser < 0 {
		return fmt.Errorf("BFF_LIVE_STREAMS_PER_USER must not be negative, not %d", c.LiveStreamsPerUser)
	}
	if !c.DevMode {
		return nil
	}
	// The dev tools read every e-mail and SMS (codes, vouchers) and switch the SMS sink's
	// failures: a BFF that serves real users over https must never expose them.
	if strings.HasPrefix(strings.ToLower(c.PublicOrigin), "https://") {
		return errors.New("BFF_DEV_MODE is for development only and refused with an https BFF_PUBLIC_ORIGIN")
	}
	// Never in a production deployment (THUMELA_ENV's default), whatever the address: a
	// sidecar proxy, a port-forward or an ingress on the same pod reaches a loopback listener.
	if c.Environment == "production" {
		return errors.New("BFF_DEV_MODE is refused with THUMELA_ENV=production (the default); set THUMELA_ENV=development")
	}
	// A BFF reachable from other machines exposes them to whoever can reach it: only a
	// deployment that says it is for development may do that.
	if !loopback(c.HTTPAddr) && c.Environment != "development" {
		return fmt.Errorf("BFF_DEV_MODE needs BFF_HTTP_ADDR on a loopback address (127.0.0.1, [::1] or localhost), not %q, or THUMELA_ENV=development", c.HTTPAddr)
	}
	if c.DevToolsURL == "" {
		return errors.New("BFF_DEV_TOOLS_URL is required with BFF_DEV_MODE")
	}
	if _, err := c.DevTools(); err != nil {
		return err
	}
	return nil
}

// loopback reports whether addr (host:port) listens on a loopback address only; ":8080" and
// "0.0.0.0:8080" listen on every interface.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// DevTools is DevToolsURL parsed: an absolute http(s) URL.
func (c Config) DevTools() (*url.URL, error) {
	u, err := url.Parse(c.DevToolsURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("BFF_DEV_TOOLS_URL %q is not an http(s) URL", c.DevToolsURL)
	}
	return u, nil
}
