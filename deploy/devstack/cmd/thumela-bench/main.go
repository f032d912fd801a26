// Command thumela-bench measures Thumela's performance targets on one machine: it brings up a
// throw-away dev stack (its own database on the PostgreSQL at DATABASE_URL, an embedded NATS),
// takes PostgreSQL's own limit with pgbench on the same server, drives the stack through the
// BFF's Connect API, and prints a table of every figure against its target, also written as
// JSON under .cache/bench. A MISS is a measurement, not a failure: the exit status is 0 unless
// something could not be measured. `make bench` runs it; docs/benchmarks.md explains it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/thumela/thumela/deploy/devstack/internal/bench"
	"github.com/thumela/thumela/services/platform/telemetry"
)

func main() { os.Exit(run()) }

func run() int {
	cwd, _ := os.Getwd()
	cfg := bench.Config{Levels: []int{1, 8, 32}, StreamLevels: []int{1, 1000, 10000}}
	flag.StringVar(&cfg.Root, "root", cwd, "the repository's root (binaries in bin/, web client in web/dist)")
	flag.StringVar(&cfg.Out, "out", "", "where the JSON report and the stack's log go (default <root>/.cache/bench)")
	flag.IntVar(&cfg.Clients, "clients", 32, "concurrent clients of the load phases, each its own signed-in user, and of pgbench")
	flag.DurationVar(&cfg.Duration, "duration", 10*time.Second, "measured length of each load phase through the stack")
	flag.DurationVar(&cfg.Warmup, "warmup", 2*time.Second, "unmeasured load before each phase through the stack")
	flag.Var((*intList)(&cfg.Levels), "levels", "concurrent senders of the create-transfer phases (comma-separated); the level equal to -clients carries the targets and runs -duration, the others run -level-duration")
	flag.DurationVar(&cfg.LevelDuration, "level-duration", 5*time.Second, "measured length of the create-transfer phases at the levels other than -clients")
	flag.DurationVar(&cfg.LevelWarmup, "level-warmup", 1*time.Second, "unmeasured load before the create-transfer phases at the levels other than -clients")
	flag.BoolVar(&cfg.LevelPgbench, "level-pgbench", true, "also run pgbench's transfer transaction at each other level's client count (-level-duration), right before that level")
	flag.DurationVar(&cfg.PgbenchDuration, "pgbench-duration", 0, "length of each pgbench run (default: -duration)")
	flag.IntVar(&cfg.PgbenchThreads, "pgbench-threads", 2, "pgbench -j")
	flag.IntVar(&cfg.RowsPerUser, "pgbench-rows", 100, "history rows seeded per pgbench user before the runs")
	flag.DurationVar(&cfg.Idle, "idle", 5*time.Second, "how long the stack idles before memory is read, before and after the load")
	flag.IntVar(&cfg.SignIns, "sign-ins", 25, "sequential sign-ins timed, each after one in-process argon2id hash (2 more of each unmeasured)")
	flag.IntVar(&cfg.Streams, "streams", 1000, "WatchEvents streams open during the live-event phase")
	flag.Var((*intList)(&cfg.StreamLevels), "stream-levels", "open streams of the live-event phases (comma-separated); the level equal to -streams carries the targets, the higher ones the p99 and the BFF's memory (-event-transfers each), the lower ones -level-event-transfers and no target")
	flag.IntVar(&cfg.LevelTransfers, "level-event-transfers", 30, "transfers created during the live-event phases at the levels other than -streams")
	flag.IntVar(&cfg.StreamUsers, "stream-users", 100, "users the streams are spread over (at least -clients)")
	flag.IntVar(&cfg.EventTransfers, "event-transfers", 100, "transfers created while the streams are open (3 status changes each)")
	flag.Float64Var(&cfg.EventRate, "event-rate", 5, "transfers per second created during the live-event phase")
	flag.DurationVar(&cfg.EventWait, "event-wait", 60*time.Second, "how long to wait for the last status change after the last transfer")
	flag.DurationVar(&cfg.DrainTimeout, "drain-timeout", 120*time.Second, "how long to wait for the transfers worker to finish the create phase's transfers")
	flag.StringVar(&cfg.SandboxDelay, "sandbox-delay", "10ms", "PAYMENTMETHODS_SANDBOX_DELAY for the bench stack (empty: the service's default)")
	flag.StringVar(&cfg.LogLevel, "log-level", "info", "LOG_LEVEL of the stack's processes (their logs go to a file)")
	flag.StringVar(&cfg.Codec, "codec", "proto", "Connect codec of the bench's clients: proto (binary, as the browser) or json")
	flag.StringVar(&cfg.StreamsProtocol, "streams-protocol", "h2c", "event streams over h2c (one HTTP/2 connection per user) or http1 (one connection per stream)")
	flag.BoolVar(&cfg.NotifyBaseline, "notify-baseline", true, "also run pgbench's transfer transaction with a pg_notify, as the outboxes do (a diagnostic row)")
	flag.IntVar(&cfg.NATSMaxConsumers, "nats-max-consumers", -1, "consumers allowed per JetStream stream on the bench's NATS (-1 unlimited; 0 NATS's default of 1,000, which -streams 1000 plus the services' own consumers exceed)")
	flag.DurationVar(&cfg.Sustained, "sustained-duration", 30*time.Second, "measured length of the created-and-completed phase (-clients senders, each waiting for its transfer's completed event before the next)")
	flag.IntVar(&cfg.HeavySenders, "heavy-senders", 8, "senders with a long history, compared side by side with as many new senders (0 skips the phase)")
	flag.IntVar(&cfg.HeavyHistory, "heavy-history", 5000, "earlier transfers seeded in the database for each heavy sender")
	flag.DurationVar(&cfg.HeavyDuration, "heavy-duration", 8*time.Second, "measured length of the heavy-versus-new create-transfer phase")
	flag.Var((*envList)(&cfg.Env), "env", "NAME=value added to every process of the stack (repeatable), e.g. TRANSFERS_LIMIT_DAILY=…")
	pprofAddr := flag.String("pprof", "", "serve this process's pprof endpoints (the load, NATS, the SMTP and SMS stand-ins) at host:port, for profiling a run; off by default")
	flag.Parse()
	if *pprofAddr != "" {
		if err := servePprof(*pprofAddr); err != nil {
			fmt.Fprintln(os.Stderr, "thumela-bench:", err)
			return 2
		}
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintln(os.Stderr, "thumela-bench:", err)
		return 2
	}
	var err error
	if cfg.Root, err = filepath.Abs(cfg.Root); err != nil {
		fmt.Fprintln(os.Stderr, "thumela-bench:", err)
		return 1
	}
	if cfg.Out == "" {
		cfg.Out = filepath.Join(cfg.Root, ".cache", "bench")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	unmeasured, err := bench.Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "thumela-bench:", err)
		return 1
	}
	if unmeasured > 0 {
		return 1
	}
	return 0
}

// servePprof serves net/http/pprof's handlers at addr until the process ends: the bench process
// holds the load, the embedded NATS and the stand-ins, whose CPU counts in every figure.
func servePprof(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("pprof: %w", err)
	}
	mux := http.NewServeMux()
	telemetry.HandlePprof(mux)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return nil
}

// intList is a comma-separated list of positive counts, e.g. "1,8,32".
type intList []int

func (l *intList) String() string {
	parts := make([]string, len(*l))
	for i, n := range *l {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}

func (l *intList) Set(v string) error {
	*l = nil
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		n, err := strconv.Atoi(part)
		if err != nil || n < 1 {
			return fmt.Errorf("%q is not a positive count", part)
		}
		*l = append(*l, n)
	}
	return nil
}

// envList is repeated NAME=value flags.
type envList []string

func (e *envList) String() string { return strings.Join(*e, " ") }
func (e *envList) Set(v string) error {
	if !strings.Contains(v, "=") {
		return errors.New("want NAME=value")
	}
	*e = append(*e, v)
	return nil
}
