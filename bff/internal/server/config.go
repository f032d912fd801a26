package server

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Config is the BFF's configuration, read from BFF_* variables (shared ones unprefixed).
type Config struct {
	HTTPAddr string `env:"HTTP_ADDR" default:"127.0.0.1:8080"`
	// WebDir holds the built web client (web/dist).
	WebDir string `env:"WEB_DIR" default:"web/dist"`
	// DevMode proxies every /dev/ path (the dev outbox, the SMS sink's failure switches, the
	// ATM stand-in) to DevToolsURL. Never in production: refused with an https PublicOrigin.
	DevMode bool `env:"DEV_MODE" default:"false"`
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

	LogLevel        string        `env:"LOG_LEVEL,noprefix" default:"info"`
	ShutdownTimeout time.Duration `env:"SHUTDOWN_TIMEOUT" default:"15s"`
	// MetricsAddr, when set (":9464" in Kubernetes), serves the Prometheus metrics at /metrics
	// on a listener of its own, never on the public HTTPAddr; empty (the default) serves none.
	MetricsAddr string `env:"METRICS_ADDR"`
}

// Validate checks what the variables cannot say one by one.
func (c Config) Validate() error {
	if !c.DevMode {
		return nil
	}
	// The dev tools read every e-mail and SMS (codes, vouchers) and switch the SMS sink's
	// failures: a BFF that serves real users over https must never expose them.
	if strings.HasPrefix(strings.ToLower(c.PublicOrigin), "https://") {
		return errors.New("BFF_DEV_MODE is for development only and refused with an https BFF_PUBLIC_ORIGIN")
	}
	if c.DevToolsURL == "" {
		return errors.New("BFF_DEV_TOOLS_URL is required with BFF_DEV_MODE")
	}
	if _, err := c.DevTools(); err != nil {
		return err
	}
	return nil
}

// DevTools is DevToolsURL parsed: an absolute http(s) URL.
func (c Config) DevTools() (*url.URL, error) {
	u, err := url.Parse(c.DevToolsURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("BFF_DEV_TOOLS_URL %q is not an http(s) URL", c.DevToolsURL)
	}
	return u, nil
}
