// Command thumela-dev runs the whole of Thumela on one machine: `make run` starts it.
package main

import (
	"cmp"
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
	flag.StringVar(&cfg.DataDir, "data", filepath.Join(root, ".data"), "where the private PostgreSQL cluster, NATS's store and the dev secrets live")
	flag.StringVar(&cfg.HTTPAddr, "http", "127.0.0.1:8080", "the BFF's address")
	flag.IntVar(&cfg.PostgresPort, "postgres-port", 54329, "the private PostgreSQL cluster's port")
	flag.BoolVar(&cfg.Ephemeral, "ephemeral", false, "use a throw-away database and NATS store, removed at exit (browser tests)")
	tracesUI := flag.String("traces-ui", "", "where the traces can be seen (make traces: the local Jaeger), printed once the stack is up")
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
	if *tracesUI != "" {
		// The children inherit this process's environment, OTEL_EXPORTER_OTLP_ENDPOINT included:
		// that is what sends their spans to the viewer.
		endpoint := cmp.Or(os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT"), "(none: set OTEL_EXPORTER_OTLP_ENDPOINT)")
		cfg.Ready = func(stack.Ready) {
			fmt.Fprintf(os.Stdout, "\n  Traces: %s (spans exported to %s)\n  Find a request's trace by the trace_id of its log lines.\n\n", *tracesUI, endpoint)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return stack.Run(ctx, cfg)
}
