package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/thumela/thumela/services/platform/lifecycle"
	"github.com/thumela/thumela/services/platform/listen"
)

// MetricsPath is where the metrics listener serves MetricsHandler.
const MetricsPath = "/metrics"

// PprofPath is where the metrics listener serves the Go profiler's index.
const PprofPath = "/debug/pprof/"

// Timeouts of the metrics listener. A scrape is one small GET; these bound what a slow or
// stuck client can hold, not what a scrape needs (Prometheus's own scrape timeout is 10 s by
// default, so writing may take up to that).
const (
	metricsReadHeaderTimeout = 5 * time.Second
	metricsReadTimeout       = 10 * time.Second
	metricsWriteTimeout      = 30 * time.Second
	metricsIdleTimeout       = 2 * time.Minute
)

// HandlePprof serves the Go profiler on mux under PprofPath: the index (which also serves the
// named profiles: heap, goroutine, …), the command line, CPU profiles, symbols and traces.
func HandlePprof(mux *http.ServeMux) {
	mux.HandleFunc("GET "+PprofPath, pprof.Index)
	mux.HandleFunc("GET "+PprofPath+"cmdline", pprof.Cmdline)
	mux.HandleFunc("GET "+PprofPath+"profile", pprof.Profile)
	mux.HandleFunc("GET "+PprofPath+"symbol", pprof.Symbol)
	mux.HandleFunc("GET "+PprofPath+"trace", pprof.Trace)
}

// MetricsServer returns a component that serves the Prometheus metrics (GET /metrics) on addr,
// a listener of its own: the metrics stay off the public and gRPC ports, so that a
// NetworkPolicy can open them to the monitoring namespace only. The Go profiler is served there
// too (/debug/pprof/, for `go tool pprof`; a CPU profile must fit the write timeout, so ask for
// at most 20 s), for the same private audience: on-call looking at where a process spends its
// CPU or memory. Anything else on it is 404.
//
// List it first among the process's components: it then starts before the others and stops
// after them, so a scrape during shutdown still sees the last requests. The listener opens
// when the component starts; an address in use fails the process's start.
func MetricsServer(addr string, logger *slog.Logger) lifecycle.Component {
	mux := http.NewServeMux()
	mux.Handle("GET "+MetricsPath, MetricsHandler())
	HandlePprof(mux)
	srv := &http.Server{
		Addr:              addr,
		Handler:           mux,
		ReadHeaderTimeout: metricsReadHeaderTimeout,
		ReadTimeout:       metricsReadTimeout,
		WriteTimeout:      metricsWriteTimeout,
		IdleTimeout:       metricsIdleTimeout,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	return lifecycle.Component{
		Name: "metrics",
		Start: func(ctx context.Context) error {
			ln, err := listen.TCP(addr)
			if err != nil {
				return fmt.Errorf("telemetry: metrics listener on %s: %w", addr, err)
			}
			logger.InfoContext(ctx, "serving metrics", "addr", ln.Addr().String(), "path", MetricsPath)
			if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
		// A scrape in flight may finish; past the deadline the connections are cut.
		Stop: func(ctx context.Context) error {
			if err := srv.Shutdown(ctx); err != nil {
				_ = srv.Close()
			}
			return nil
		},
	}
}
