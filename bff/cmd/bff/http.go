package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/thumela/thumela/bff/internal/server"
	"github.com/thumela/thumela/bff/internal/session"
	"github.com/thumela/thumela/services/platform/lifecycle"
	"github.com/thumela/thumela/services/platform/listen"
)

// httpComponent serves HTTP/1.1 and cleartext HTTP/2 (for Connect streams behind a proxy that
// speaks h2c); TLS ends at the load balancer. onShutdown runs when the graceful stop begins,
// to end the long-lived live streams that Shutdown would otherwise wait on.
//
// No WriteTimeout: a live stream's answer lasts as long as its tab, and it would end it. No
// ReadTimeout either: a request's body has a deadline of its own, set and cleared per request
// by the handler (server.New; limits.go says why not ReadTimeout).
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
			ln, err := listen.TCP(addr)
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

// cookiesFor is how the session cookies are set: Secure unless BFF_INSECURE_COOKIES allows
// otherwise for a plain-http origin (development), and with the __Host- prefix behind https.
func cookiesFor(cfg server.Config) session.Cookies {
	https := strings.HasPrefix(cfg.PublicOrigin, "https://")
	return session.Cookies{
		Secure:     !cfg.InsecureCookies || https,
		HostPrefix: https,
	}
}

// parsePrefixes reads BFF_TRUSTED_PROXIES: the proxies whose X-Forwarded-For is believed.
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
