// Command thumela-dev runs the whole of Thumela on one machine: `make run` starts it.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/thumela/thumela/deploy/devstack/internal/stack"
	"github.com/thumela/thumela/deploy/devstack/internal/traceview"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "thumela-dev:", err)
		os.Exit(1)
	}
}

func run() error {
	root, _ := os.Getwd()
	cfg := stack.Config{Out: os.Stdout}
	flag.StringVar(&cfg.Root, "root", root, "the repository's root (binaries in bin/, web client in web/dist)")
	flag.StringVar(&cfg.DataDir, "data", filepath.Join(root, ".data"), "where the private PostgreSQL cluster, NATS's store, the dev secrets and the SMTP sink's certificate live")
	flag.StringVar(&cfg.HTTPAddr, "http", "127.0.0.1:8080", "the BFF's address")
	flag.IntVar(&cfg.PostgresPort, "postgres-port", 54329, "the private PostgreSQL cluster's port")
	flag.BoolVar(&cfg.Ephemeral, "ephemeral", false, "use a throw-away database and NATS store, removed at exit (browser tests)")
	var tv traceview.Config
	flag.StringVar(&tv.UIAddr, "traces", "", "serve a trace viewer at this address (make traces: 127.0.0.1:16686) and send every process's spans to it")
	flag.StringVar(&tv.OTLPAddr, "traces-otlp", "127.0.0.1:4318", "with -traces: where the viewer receives OTLP/HTTP spans")
	flag.IntVar(&tv.MaxTraces, "traces-max", traceview.DefaultMaxTraces, "with -traces: how many traces the viewer keeps (the newest)")
	flag.BoolVar(&tv.AllowRemote, "traces-allow-remote", false, "with -traces: allow non-loopback addresses (the viewer has no authentication)")
	flag.Parse()
	cfg.DatabaseURL = os.Getenv("DATABASE_URL")
	cfg.NatsURL = os.Getenv("NATS_URL")
	var err error
	if cfg.Root, err = filepath.Abs(cfg.Root); err != nil {
		return err
	}
	if cfg.DataDir, err = filepath.Abs(cfg.DataDir); err != nil {
		return err
	}
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil)).With("process", "thumela-dev")
	if tv.UIAddr != "" {
		// Before the stack, so that the first spans have somewhere to go; stopped after it, so
		// that the processes' last exports on the way out are received.
		tv.AppURL = "http://" + cfg.HTTPAddr
		tv.Logger = cfg.Logger.With("component", "traceview")
		viewer, err := traceview.Start(tv)
		if err != nil {
			return err
		}
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = viewer.Close(ctx)
		}()
		cfg.ExtraEnv = append(cfg.ExtraEnv, viewerEnv(viewer.OTLPEndpoint())...)
		cfg.Ready = func(r stack.Ready) {
			fmt.Fprintf(os.Stdout, "\n  Thumela: %s\n  Traces:  %s (find a trace by a transfer id, a user id or the trace_id of a log line)\n\n", r.BaseURL, viewer.UIURL())
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return stack.Run(ctx, cfg)
}

// viewerEnv points every child's OpenTelemetry SDK at the viewer's OTLP/HTTP receiver, whatever
// OTEL_* the caller's shell has (an endpoint or protocol set there would send the spans
// elsewhere and leave the viewer empty). Every request is sampled, and spans are sent within
// 200 ms of ending rather than the SDK's 5 s, so a trace is there by the time one looks.
func viewerEnv(endpoint string) []string {
	return []string{
		"OTEL_SDK_DISABLED=false",
		"OTEL_TRACES_EXPORTER=otlp",
		"OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint,
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=", // empty is unset: the endpoint above + /v1/traces
		"OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf",
		"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=",
		"OTEL_TRACES_SAMPLER=parentbased_always_on",
		"OTEL_BSP_SCHEDULE_DELAY=200",
		// Each process names itself (bff, transfers, …); a name from the shell would merge them.
		"OTEL_SERVICE_NAME=",
	}
}
