// Package traceview is the dev stack's trace viewer (`make traces`): an OTLP/HTTP receiver the
// stack's processes export their spans to, an in-memory store of the newest traces, and a small
// server-rendered web UI and JSON API to find a trace (by service, by a transfer, user or trace
// id, by errors) and read it as a waterfall. Both listen on loopback addresses only unless told
// otherwise; nothing is kept on disk.
package traceview

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/thumela/thumela/deploy/devstack/internal/otlpreceiver"
)

// Config says where the viewer listens and how much it keeps.
type Config struct {
	// UIAddr serves the web UI and the JSON API, e.g. 127.0.0.1:16686.
	UIAddr string
	// OTLPAddr receives OTLP/HTTP exports, e.g. 127.0.0.1:4318 (the port OTLP/HTTP exporters
	// default to).
	OTLPAddr string
	// AllowRemote allows addresses other than loopback ones, and requests with any Host. The
	// viewer has no authentication: only for a machine nobody else can reach.
	AllowRemote bool
	// Bounds of the store; below 1 takes the Default… constants.
	MaxTraces, MaxSpans, MaxSpansPerTrace int
	// AppURL, when set, is shown on an empty search page: where to make some traces.
	AppURL string
	Logger *slog.Logger
}

// Viewer is a running trace viewer.
type Viewer struct {
	store      *Store
	ui, otlp   *http.Server
	uiL, otlpL net.Listener
	done       chan struct{} // closed when both servers have returned
}

// Start listens on both addresses and serves until Close.
func Start(cfg Config) (*Viewer, error) {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	uiL, err := Listen(cfg.UIAddr, cfg.AllowRemote)
	if err != nil {
		return nil, fmt.Errorf("trace viewer UI: %w", err)
	}
	otlpL, err := Listen(cfg.OTLPAddr, cfg.AllowRemote)
	if err != nil {
		uiL.Close() //nolint:errcheck // the listener was never used; the error to report is err
		return nil, fmt.Errorf("trace viewer OTLP receiver: %w", err)
	}
	store := NewStore(cfg.MaxTraces, cfg.MaxSpans, cfg.MaxSpansPerTrace)
	ui := NewHandler(store, cfg.AppURL)
	if !cfg.AllowRemote {
		ui = loopbackHostOnly(ui)
	}
	errLog := slog.NewLogLogger(logger.Handler(), slog.LevelWarn)
	v := &Viewer{
		store: store,
		uiL:   uiL,
		otlpL: otlpL,
		ui:    &http.Server{Handler: ui, ReadHeaderTimeout: 10 * time.Second, ErrorLog: errLog},
		otlp: &http.Server{
			Handler:           otlpreceiver.Handler(store.Add),
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       30 * time.Second,
			ErrorLog:          errLog,
		},
		done: make(chan struct{}),
	}
	serve := func(name string, srv *http.Server, l net.Listener) {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("trace viewer stopped serving", "server", name, "err", err)
		}
	}
	go func() {
		defer close(v.done)
		finished := make(chan struct{})
		go func() { defer close(finished); serve("otlp", v.otlp, otlpL) }()
		serve("ui", v.ui, uiL)
		<-finished
	}()
	return v, nil
}

// UIURL is the web UI's address, e.g. http://127.0.0.1:16686.
func (v *Viewer) UIURL() string { return "http://" + v.uiL.Addr().String() }

// OTLPEndpoint is the value for OTEL_EXPORTER_OTLP_ENDPOINT, e.g. http://127.0.0.1:4318: the
// exporters append /v1/traces.
func (v *Viewer) OTLPEndpoint() string { return "http://" + v.otlpL.Addr().String() }

// Store is what the viewer has received.
func (v *Viewer) Store() *Store { return v.store }

// Close stops both servers, letting requests in flight (the stack's last exports) finish
// until ctx ends.
func (v *Viewer) Close(ctx context.Context) error {
	err := errors.Join(v.otlp.Shutdown(ctx), v.ui.Shutdown(ctx))
	select {
	case <-v.done:
	case <-ctx.Done():
	}
	return err
}
