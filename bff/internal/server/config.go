package server

import "time"

// Config is the BFF's configuration, read from BFF_* variables (shared ones unprefixed).
type Config struct {
	HTTPAddr string `env:"HTTP_ADDR" default:"127.0.0.1:8080"`
	// WebDir holds the built web client (web/dist).
	WebDir string `env:"WEB_DIR" default:"web/dist"`
	// DevMode turns on the dev outbox at /dev/outbox. Never in production.
	DevMode bool `env:"DEV_MODE" default:"false"`
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

	IdentityAddr       string `env:"IDENTITY_ADDR,noprefix" required:"true"`
	ProfilesAddr       string `env:"PROFILES_ADDR,noprefix" required:"true"`
	PaymentMethodsAddr string `env:"PAYMENTMETHODS_ADDR,noprefix" required:"true"`
	FeesAddr           string `env:"FEES_ADDR,noprefix" required:"true"`
	TransfersAddr      string `env:"TRANSFERS_ADDR,noprefix" required:"true"`
	NatsURL            string `env:"NATS_URL,noprefix" default:"nats://127.0.0.1:4222"`
	StreamReplicas     int    `env:"STREAM_REPLICAS,noprefix" default:"1"`

	LogLevel        string        `env:"LOG_LEVEL,noprefix" default:"info"`
	ShutdownTimeout time.Duration `env:"SHUTDOWN_TIMEOUT" default:"15s"`
	// MetricsAddr, when set (":9464" in Kubernetes), serves the Prometheus metrics at /metrics
	// on a listener of its own, never on the public HTTPAddr; empty (the default) serves none.
	MetricsAddr string `env:"METRICS_ADDR"`
}
