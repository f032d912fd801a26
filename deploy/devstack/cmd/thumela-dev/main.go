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

	"github.com/thumela/thumela/deploy/devstack/internal/stack"
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
	var tracesEndpoint, tracesUI string
	flag.StringVar(&tracesEndpoint, "traces", "", "send every process's spans over OTLP/HTTP to this endpoint (make traces: the local viewer's, http://127.0.0.1:4318)")
	flag.StringVar(&tracesUI, "traces-ui", "", "with -traces: the viewer's address, printed once the stack is up")
	faultControl := flag.Bool("faults", false, "keep running when a process exits, and let the browser tests stop and start one through a loopback control (printed as THUMELA_FAULTS <url>)")
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
	if tracesEndpoint != "" {
		cfg.ExtraEnv = append(cfg.ExtraEnv, viewerEnv(tracesEndpoint)...)
		if tracesUI != "" {
			cfg.Ready = func(r stack.Ready) {
				fmt.Fprintf(os.Stdout, "\n  Thumela: %s\n  Traces:  %s\n\n", r.BaseURL, tracesUI)
			}
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *faultControl {
		cfg.TolerateExit = true
		announce := cfg.Ready
		cfg.Ready = func(r stack.Ready) {
			if announce != nil {
				announce(r)
			}
			url, err := serveFaults(ctx, r.Faults, cfg.Logger)
			if err != nil {
				cfg.Logger.Error("no fault control", "err", err)
				return
			}
			// The browser tests' harness reads the control's address from this line.
			fmt.Fprintf(os.Stdout, "THUMELA_FAULTS %s\n", url)
		}
	}
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
