// Command thumela-bench measures Thumela's performance targets on one machine: it brings up a
// throw-away dev stack (its own database on the PostgreSQL at DATABASE_URL, an embedded NATS),
// takes PostgreSQL's own limit with pgbench on the same server, drives the stack through the
// BFF's Connect API, and prints a table of every figure against its target, also written as
// JSON under .cache/bench. A MISS is a measurement, not a failure: the exit status is 0 unless
// something could not be measured. `make bench` runs it; docs/benchmarks.md explains it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/thumela/thumela/deploy/devstack/internal/bench"
	"github.com/thumela/thumela/deploy/devstack/internal/stack"
	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
)

type options struct {
	Root             string        `json:"-"`
	Out              string        `json:"-"`
	Clients          int           `json:"clients"`
	Duration         time.Duration `json:"duration"`
	Warmup           time.Duration `json:"warmup"`
	Levels           intList       `json:"levels"`
	LevelDuration    time.Duration `json:"level_duration"`
	LevelWarmup      time.Duration `json:"level_warmup"`
	LevelPgbench     bool          `json:"level_pgbench"`
	PgbenchDuration  time.Duration `json:"pgbench_duration"`
	PgbenchThreads   int           `json:"pgbench_threads"`
	RowsPerUser      int           `json:"pgbench_rows_per_user"`
	Idle             time.Duration `json:"idle"`
	SignIns          int           `json:"sign_ins"`
	Streams          int           `json:"streams"`
	StreamLevels     intList       `json:"stream_levels"`
	LevelTransfers   int           `json:"level_event_transfers"`
	StreamUsers      int           `json:"stream_users"`
	EventTransfers   int           `json:"event_transfers"`
	EventRate        float64       `json:"event_rate"`
	EventWait        time.Duration `json:"event_wait"`
	DrainTimeout     time.Duration `json:"drain_timeout"`
	SandboxDelay     string        `json:"sandbox_delay"`
	LogLevel         string        `json:"log_level"`
	Codec            string        `json:"codec"`
	StreamsProtocol  string        `json:"streams_protocol"`
	NotifyBaseline   bool          `json:"notify_baseline"`
	NATSMaxConsumers int           `json:"nats_max_consumers"`
	Sustained        time.Duration `json:"sustained_duration"`
	HeavySenders     int           `json:"heavy_senders"`
	HeavyHistory     int           `json:"heavy_history"`
	HeavyDuration    time.Duration `json:"heavy_duration"`
	Env              envList       `json:"extra_env"`
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

// otherLevels is the levels other than the target level, ascending and without repeats: the
// target level is measured as the phase it always was (-clients, -streams).
func otherLevels(levels []int, target int) []int {
	out := []int{}
	for _, n := range levels {
		if n != target && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// count writes "1 sender", "1,000 streams".
var count = bench.Count

type envList []string

func (e *envList) String() string { return strings.Join(*e, " ") }
func (e *envList) Set(v string) error {
	if !strings.Contains(v, "=") {
		return errors.New("want NAME=value")
	}
	*e = append(*e, v)
	return nil
}

// report is the JSON file: every figure, and the raw measurements behind them.
type report struct {
	StartedAt   time.Time      `json:"started_at"`
	Seconds     float64        `json:"seconds"`
	Command     []string       `json:"command"`
	Host        map[string]any `json:"host"`
	Options     options        `json:"options"`
	ChildEnv    []string       `json:"child_env"`
	StackLog    string         `json:"stack_log"`
	Figures     []bench.Figure `json:"figures"`
	Raw         map[string]any `json:"raw"`
	ClockSource string         `json:"clock_source"`
}

func main() { os.Exit(run()) }

func run() int {
	cwd, _ := os.Getwd()
	var o options
	flag.StringVar(&o.Root, "root", cwd, "the repository's root (binaries in bin/, web client in web/dist)")
	flag.StringVar(&o.Out, "out", "", "where the JSON report and the stack's log go (default <root>/.cache/bench)")
	flag.IntVar(&o.Clients, "clients", 32, "concurrent clients of the load phases, each its own signed-in user, and of pgbench")
	flag.DurationVar(&o.Duration, "duration", 10*time.Second, "measured length of each load phase through the stack")
	flag.DurationVar(&o.Warmup, "warmup", 2*time.Second, "unmeasured load before each phase through the stack")
	o.Levels, o.StreamLevels = intList{1, 8, 32}, intList{1, 1000, 10000}
	flag.Var(&o.Levels, "levels", "concurrent senders of the create-transfer phases (comma-separated); the level equal to -clients carries the targets and runs -duration, the others run -level-duration")
	flag.DurationVar(&o.LevelDuration, "level-duration", 5*time.Second, "measured length of the create-transfer phases at the levels other than -clients")
	flag.DurationVar(&o.LevelWarmup, "level-warmup", 1*time.Second, "unmeasured load before the create-transfer phases at the levels other than -clients")
	flag.BoolVar(&o.LevelPgbench, "level-pgbench", true, "also run pgbench's transfer transaction at each other level's client count (-level-duration), right before that level")
	flag.DurationVar(&o.PgbenchDuration, "pgbench-duration", 0, "length of each pgbench run (default: -duration)")
	flag.IntVar(&o.PgbenchThreads, "pgbench-threads", 2, "pgbench -j")
	flag.IntVar(&o.RowsPerUser, "pgbench-rows", 100, "history rows seeded per pgbench user before the runs")
	flag.DurationVar(&o.Idle, "idle", 5*time.Second, "how long the stack idles before memory is read, before and after the load")
	flag.IntVar(&o.SignIns, "sign-ins", 25, "sequential sign-ins timed, each after one in-process argon2id hash (2 more of each unmeasured)")
	flag.IntVar(&o.Streams, "streams", 1000, "WatchEvents streams open during the live-event phase")
	flag.Var(&o.StreamLevels, "stream-levels", "open streams of the live-event phases (comma-separated); the level equal to -streams carries the targets, the higher ones the p99 and the BFF's memory (-event-transfers each), the lower ones -level-event-transfers and no target")
	flag.IntVar(&o.LevelTransfers, "level-event-transfers", 30, "transfers created during the live-event phases at the levels other than -streams")
	flag.IntVar(&o.StreamUsers, "stream-users", 100, "users the streams are spread over (at least -clients)")
	flag.IntVar(&o.EventTransfers, "event-transfers", 100, "transfers created while the streams are open (3 status changes each)")
	flag.Float64Var(&o.EventRate, "event-rate", 5, "transfers per second created during the live-event phase")
	flag.DurationVar(&o.EventWait, "event-wait", 60*time.Second, "how long to wait for the last status change after the last transfer")
	flag.DurationVar(&o.DrainTimeout, "drain-timeout", 120*time.Second, "how long to wait for the transfers worker to finish the create phase's transfers")
	flag.StringVar(&o.SandboxDelay, "sandbox-delay", "10ms", "PAYMENTMETHODS_SANDBOX_DELAY for the bench stack (empty: the service's default)")
	flag.StringVar(&o.LogLevel, "log-level", "info", "LOG_LEVEL of the stack's processes (their logs go to a file)")
	flag.StringVar(&o.Codec, "codec", "json", "Connect codec of the bench's clients: json (as the browser) or proto")
	flag.StringVar(&o.StreamsProtocol, "streams-protocol", "h2c", "event streams over h2c (one HTTP/2 connection per user) or http1 (one connection per stream)")
	flag.BoolVar(&o.NotifyBaseline, "notify-baseline", true, "also run pgbench's transfer transaction with a pg_notify, as the outboxes do (a diagnostic row)")
	flag.IntVar(&o.NATSMaxConsumers, "nats-max-consumers", -1, "consumers allowed per JetStream stream on the bench's NATS (-1 unlimited; 0 NATS's default of 1,000, which -streams 1000 plus the services' own consumers exceed)")
	flag.DurationVar(&o.Sustained, "sustained-duration", 30*time.Second, "measured length of the created-and-completed phase (-clients senders, each waiting for its transfer's completed event before the next)")
	flag.IntVar(&o.HeavySenders, "heavy-senders", 8, "senders with a long history, compared side by side with as many new senders (0 skips the phase)")
	flag.IntVar(&o.HeavyHistory, "heavy-history", 5000, "earlier transfers seeded in the database for each heavy sender")
	flag.DurationVar(&o.HeavyDuration, "heavy-duration", 8*time.Second, "measured length of the heavy-versus-new create-transfer phase")
	flag.Var(&o.Env, "env", "NAME=value added to every process of the stack (repeatable), e.g. TRANSFERS_LIMIT_DAILY=…")
	flag.Parse()
	if o.PgbenchDuration <= 0 {
		o.PgbenchDuration = o.Duration
	}
	if o.Clients < 1 || o.Streams < 1 {
		fmt.Fprintln(os.Stderr, "thumela-bench: -clients and -streams must be at least 1")
		return 2
	}
	// Every level's senders are users of their own (so that no user nears the daily limit), and
	// the users are all among the stream users.
	o.Levels = append(intList{o.Clients}, otherLevels(o.Levels, o.Clients)...)
	o.StreamLevels = append(intList{o.Streams}, otherLevels(o.StreamLevels, o.Streams)...)
	need := o.Clients + 2*o.HeavySenders
	for _, n := range o.Levels[1:] {
		need += n
	}
	o.StreamUsers = max(o.StreamUsers, need+1)
	if o.Codec != "json" && o.Codec != "proto" {
		fmt.Fprintln(os.Stderr, "thumela-bench: -codec must be json or proto")
		return 2
	}
	if o.StreamsProtocol != "h2c" && o.StreamsProtocol != "http1" {
		fmt.Fprintln(os.Stderr, "thumela-bench: -streams-protocol must be h2c or http1")
		return 2
	}
	var err error
	if o.Root, err = filepath.Abs(o.Root); err != nil {
		fmt.Fprintln(os.Stderr, "thumela-bench:", err)
		return 1
	}
	if o.Out == "" {
		o.Out = filepath.Join(o.Root, ".cache", "bench")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	b := &bencher{o: o}
	return b.run(ctx)
}

type bencher struct {
	o       options
	rep     report
	figures []bench.Figure
	raw     map[string]any
	errors  int
	logPath string
	// noisy lists the phases during which other processes used the machine noticeably.
	noisy []string
}

func (b *bencher) add(f bench.Figure) {
	if f.Result == bench.Error {
		b.errors++
	}
	b.figures = append(b.figures, f)
}

func (b *bencher) fail(name, target string, err error) {
	b.add(bench.Figure{Name: name, Target: target, Result: bench.Error, Error: err.Error()})
}

func (b *bencher) step(format string, args ...any) {
	fmt.Printf("[%s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// Child processes whose memory is checked.
var goProcesses = append(slices.Clone(stack.Services), "bff")

const memoryTargetMiB = 64

func (b *bencher) run(ctx context.Context) int {
	o := b.o
	started := time.Now()
	b.raw = map[string]any{}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "thumela-bench:", err)
		return 1
	}
	stamp := started.UTC().Format("2006-01-02T15-04-05Z")
	jsonPath := filepath.Join(o.Out, stamp+".json")
	logPath := filepath.Join(o.Out, stamp+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "thumela-bench:", err)
		return 1
	}
	defer func() {
		if err := logFile.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "thumela-bench: stack log:", err)
		}
	}()
	workDir, err := os.MkdirTemp("", "thumela-bench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "thumela-bench:", err)
		return 1
	}
	defer func() {
		if err := os.RemoveAll(workDir); err != nil {
			fmt.Fprintln(os.Stderr, "thumela-bench: remove the work folder:", err)
		}
	}()

	b.rep = report{
		StartedAt: started, Command: os.Args, Options: o, StackLog: logPath,
		Host: map[string]any{"cpus": runtime.NumCPU(), "go": runtime.Version(), "kernel": readTrim("/proc/sys/kernel/osrelease")},
		ClockSource: "Throughput and request latency: the bench's monotonic clock around each call (pgbench: its own per-transaction log). " +
			"Live events: the transfer's updated_at, written by the transfers service from its wall clock at the status change, " +
			"against the bench's wall clock when the message arrived; both processes read the same host clock (CLOCK_REALTIME).",
	}

	// 6. The landing page's JavaScript needs no stack.
	b.landingJS()

	// The stack.
	b.step("starting a throw-away stack (log: %s)", logPath)
	childEnv := []string{"LOG_LEVEL=" + o.LogLevel,
		// The load users send thousands of R10 transfers a run: the product's daily, monthly
		// and yearly limits would refuse them part-way (and count as errors), so the bench
		// lifts those three. The checks still run on every create, over the same sums.
		"TRANSFERS_LIMIT_DAILY_CENTS=100000000000",
		"TRANSFERS_LIMIT_MONTHLY_CENTS=100000000000",
		"TRANSFERS_LIMIT_YEARLY_CENTS=100000000000",
		// Likewise the BFF's rate limits (docs/security-ratelimits.md): every bench user comes
		// from one address, and each sends thousands of transfers. The limiter still runs on
		// every call (its rules off decide nothing); the rest keep their defaults.
		"BFF_RATE_LIMITS=signup.address=0/1m+0,verify.address=0/1m+0,signin.address=0/1m+0,signin.account=0/1m+0," +
			"signin.pair=0/1m+0,addcard.address=0/1m+0,stepup.address=0/1m+0,transfer.address=0/1m+0,transfer.account=0/1m+0",
	}
	if o.SandboxDelay != "" {
		childEnv = append(childEnv, "PAYMENTMETHODS_SANDBOX_DELAY="+o.SandboxDelay)
	}
	childEnv = append(childEnv, o.Env...)
	b.rep.ChildEnv = childEnv
	httpAddr, err := freeAddr()
	if err != nil {
		return b.abort(jsonPath, fmt.Errorf("pick a port: %w", err))
	}
	pgPort, err := freePort()
	if err != nil {
		return b.abort(jsonPath, fmt.Errorf("pick a port: %w", err))
	}
	readyCh := make(chan stack.Ready, 1)
	stackCtx, stopStack := context.WithCancel(context.Background())
	stackDone := make(chan error, 1)
	cfg := stack.Config{
		Root:             o.Root,
		DataDir:          filepath.Join(workDir, "data"),
		HTTPAddr:         httpAddr,
		DatabaseURL:      os.Getenv("DATABASE_URL"),
		Ephemeral:        true,
		PostgresPort:     pgPort,
		Out:              logFile,
		Logger:           slog.New(slog.NewTextHandler(logFile, nil)).With("process", "thumela-bench"),
		ExtraEnv:         childEnv,
		NATSMaxConsumers: o.NATSMaxConsumers,
		Ready:            func(r stack.Ready) { readyCh <- r },
	}
	go func() { stackDone <- stack.Run(stackCtx, cfg) }()
	stackStopped := func() {
		stopStack()
		select {
		case <-stackDone: //nolint:errcheck // the stack was stopped: its error is the cancellation
		case <-time.After(30 * time.Second):
		}
	}
	var ready stack.Ready
	select {
	case ready = <-readyCh:
	case err := <-stackDone:
		stopStack()
		return b.abort(jsonPath, fmt.Errorf("the stack did not start: %v (see %s)", err, logPath))
	case <-ctx.Done():
		stackStopped()
		return b.abort(jsonPath, ctx.Err())
	}
	// A child that dies ends the stack, and the bench with it.
	benchCtx, cancelBench := context.WithCancelCause(ctx)
	defer cancelBench(nil)
	var stackErr atomic.Value
	go func() {
		select {
		case err := <-stackDone:
			stackErr.Store(fmt.Sprint(err))
			cancelBench(fmt.Errorf("the stack stopped: %v", err))
			stackDone <- err // for stackStopped
		case <-benchCtx.Done():
		}
	}()
	b.step("stack ready at %s (pids %v)", ready.BaseURL, ready.PIDs)
	b.rep.Host["postgres"] = postgresVersion(benchCtx, ready.DatabaseURL)

	b.logPath = logPath
	b.measure(benchCtx, ready, workDir)

	b.step("stopping the stack")
	cancelBench(nil)
	stackStopped()
	if v := stackErr.Load(); v != nil {
		b.fail("stack", "", fmt.Errorf("the stack stopped during the bench: %s (see %s)", v, logPath))
	}
	return b.finish(jsonPath, started)
}

// measure runs every phase that needs the stack, in an order that keeps them apart: idle memory,
// the baselines, the users, sign-in, then the loads, then memory again.
func (b *bencher) measure(ctx context.Context, ready stack.Ready, workDir string) {
	o := b.o
	cpuName := "thumela-bench (load, NATS)"
	logSize := func() int64 {
		if fi, err := os.Stat(b.logPath); err == nil {
			return fi.Size()
		}
		return 0
	}
	rpcs := func(phase string, from int64) []bench.RPCStat {
		stats, err := bench.RPCBreakdown(b.logPath, from, logSize())
		if err != nil || len(stats) == 0 {
			return nil
		}
		all, _ := b.raw["rpc_server_ms"].(map[string][]bench.RPCStat)
		if all == nil {
			all = map[string][]bench.RPCStat{}
			b.raw["rpc_server_ms"] = all
		}
		all[phase] = stats
		parts := []string{}
		for _, st := range stats[:min(4, len(stats))] {
			parts = append(parts, fmt.Sprintf("%s.%s ×%d p50 %.1f p99 %.1f", st.Service, st.Method, st.Count, st.P50ms, st.P99ms))
		}
		b.step("  server-side ms during %s: %s", phase, strings.Join(parts, "; "))
		return stats
	}
	databases := map[string]string{databaseName(ready.DatabaseURL): bench.StackDB}
	meter := func() *bench.CPUMeter { return bench.StartCPUMeter(ready.PIDs, cpuName, databases) }
	cpu := func(phase string, m *bench.CPUMeter) bench.CPUUsage {
		usage, _ := b.raw["cpu"].(map[string]bench.CPUUsage)
		if usage == nil {
			usage = map[string]bench.CPUUsage{}
			b.raw["cpu"] = usage
		}
		u := m.Stop()
		usage[phase] = u
		b.step("  cores used during %s: %s", phase, formatShares(u.Cores))
		if others := u.Cores[bench.Others]; others > 0.25 {
			b.noisy = append(b.noisy, fmt.Sprintf("%s (%.2f cores)", phase, others))
		}
		return u
	}

	// 7a. Idle memory.
	b.step("idling %s before reading memory", o.Idle)
	sleep(ctx, o.Idle)
	idle := readRSS(ready.PIDs)
	b.raw["rss_idle_bytes"] = idle

	pgUsage := map[string]bench.CPUUsage{}
	// The baselines' database, seeded once; each baseline runs right before its stack phase so
	// that both see the same machine.
	pg, pgErr := bench.NewPgbench(ctx, bench.PgbenchConfig{
		ServerURL: ready.DatabaseURL, Clients: o.Clients, Threads: o.PgbenchThreads,
		Duration: o.PgbenchDuration, RowsPerUser: o.RowsPerUser, WorkDir: workDir, MaxClients: slices.Max(o.Levels),
		Around: func(name string) func() {
			m := meter()
			return func() { pgUsage[name] = cpu("pgbench "+name, m) }
		},
	})
	if pgErr != nil {
		b.fail("1. pgbench baselines", "", pgErr)
	} else {
		defer pg.Close()
		databases[pg.Database()] = bench.PgbenchDB
	}
	baselineAt := func(name string, clients int, d time.Duration, f func(context.Context) (bench.PgbenchResult, error)) (bench.PgbenchResult, bool) {
		if pgErr != nil {
			return bench.PgbenchResult{}, false
		}
		b.step("pgbench %s: %d clients, %d threads, %s", name, clients, min(o.PgbenchThreads, clients), d)
		r, err := f(ctx)
		if err != nil {
			b.fail("1. pgbench "+name, "", err)
			return r, false
		}
		b.raw["pgbench_"+name] = r
		b.step("pgbench %s: %.0f tps, p50 %.2f ms, p99 %.2f ms", name, r.TPS, r.P50ms, r.P99ms)
		return r, true
	}
	baseline := func(name string, f func(context.Context) (bench.PgbenchResult, error)) (bench.PgbenchResult, bool) {
		return baselineAt(name, o.Clients, o.PgbenchDuration, f)
	}

	// Users: sign up, verify through the dev outbox, save the approving sandbox card.
	client := bench.NewClient(bench.ClientConfig{BaseURL: ready.BaseURL, JSON: o.Codec == "json", StreamsHTTP1: o.StreamsProtocol == "http1"})
	defer client.Close()
	n := o.StreamUsers + 1 // the last one only signs in
	b.step("signing up %d users (e-mail codes from the dev outbox, card 4242…)", n)
	t0 := time.Now()
	users, err := client.SetUpUsers(ctx, randomID(), n, 8, true)
	if err != nil {
		b.fail("users", "", err)
		b.step("could not set up users: %v", err)
		b.memoryAfter(ctx, ready, idle)
		return
	}
	b.raw["user_setup_seconds"] = time.Since(t0).Seconds()
	loadUsers := users[:o.Clients]
	streamUsers := users[:o.StreamUsers]
	signInUser := users[n-1]

	// 5. Sign-in, one at a time on the idle stack.
	b.step("timing %d sign-ins, each after one in-process argon2id hash", o.SignIns)
	from, logFrom := meter(), logSize()
	b.signIn(ctx, signInUser)
	cpu("sign-in", from)
	rpcs("sign-in", logFrom)

	// createLoad drives CreateTransfer through the whole stack, one worker per user.
	createLoad := func(phase string, senders []*bench.User, warmup, d time.Duration) (bench.Summary, bench.CPUUsage, int64) {
		b.step("%s: %d clients, %s warm-up + %s", phase, len(senders), warmup, d)
		// Each sender confirms it is them (FinishStepUp with the password, as the wizard's
		// "Confirm it's you") before its transfers, untimed: the bench's recipient is new to
		// it, and every create then runs transfers' step-up check on a fresh "sua" claim.
		if err := bench.StepUpAll(ctx, senders, 8); err != nil {
			b.fail(phase, "", err)
			b.step("%s: could not step the senders up: %v", phase, err)
			return bench.Summary{}, bench.CPUUsage{}, 0
		}
		var limitErrors atomic.Int64
		from, logFrom := meter(), logSize()
		s := bench.ClosedLoop(ctx, len(senders), warmup, d, func(ctx context.Context, w, _ int) error {
			u := senders[w]
			_, err := u.Transfers.CreateTransfer(ctx, bench.TransferRequest(u))
			if err != nil && bench.IsLimitError(err) {
				limitErrors.Add(1)
			}
			return err
		})
		u := cpu(phase, from)
		rpcs(phase, logFrom)
		b.step("%s: %.0f tps, p50 %.1f ms, p99 %.1f ms, %d errors %v", phase, s.TPS, s.P50ms, s.P99ms, s.Errors, s.ErrorSamples)
		return s, u, limitErrors.Load()
	}
	// Users of the levels other than the target's: users[:o.Clients] are the target level's,
	// each other level (and each live-event level below) takes the next ones.
	next := o.Clients
	pick := func(k int) []*bench.User {
		out := make([]*bench.User, k)
		for i := range out {
			out[i] = streamUsers[(next+i)%len(streamUsers)]
		}
		next += k
		return out
	}

	// 2 at the levels other than -clients, lowest first, each with its own users, pgbench at the
	// same client count right before it, and the worker's catch-up after it.
	var levels []createLevel
	for _, n := range o.Levels[1:] {
		lv := createLevel{Senders: n}
		if o.LevelPgbench {
			name := fmt.Sprintf("transfer_c%d", n)
			if r, ok := baselineAt(name, n, o.LevelDuration, func(ctx context.Context) (bench.PgbenchResult, error) {
				return pg.TransferAt(ctx, n, o.LevelDuration)
			}); ok {
				lv.Pgbench = &r
			}
		}
		senders := pick(n)
		phase := "create-transfer, " + count(n, "sender")
		lv.Summary, _, lv.LimitErrors = createLoad(phase, senders, o.LevelWarmup, o.LevelDuration)
		from, logFrom := meter(), logSize()
		waited, left, err := bench.Drain(ctx, senders, o.DrainTimeout)
		cpu("worker catch-up, "+count(n, "sender"), from)
		rpcs("worker catch-up, "+count(n, "sender"), logFrom)
		lv.DrainSeconds, lv.DrainUnfinished = waited.Seconds(), left
		if err != nil {
			lv.DrainError = err.Error()
		}
		b.step("  worker caught up in %.1f s (%d unfinished)", waited.Seconds(), left)
		levels = append(levels, lv)
	}
	if len(levels) > 0 {
		b.raw["create_transfer_levels"] = levels
	}

	// 1a, then 2 at -clients, the target level. Create-transfer through the whole stack.
	transfer, haveTransfer := baseline("transfer", func(ctx context.Context) (bench.PgbenchResult, error) { return pg.Transfer(ctx) })
	if haveTransfer {
		b.add(bench.Figure{Name: "1a. pgbench transfer txn (baseline)", Result: bench.Info, Unit: "tps", Measured: bench.F(transfer.TPS),
			Text: fmt.Sprintf("%.0f tps, p50 %.1f ms, p99 %.1f ms", transfer.TPS, transfer.P50ms, transfer.P99ms)})
	}
	if o.NotifyBaseline && haveTransfer {
		if r, ok := baseline("transfer_notify", func(ctx context.Context) (bench.PgbenchResult, error) { return pg.TransferNotify(ctx) }); ok {
			b.add(bench.Figure{Name: "   diagnostic: 1a + pg_notify", Result: bench.Info, Unit: "tps", Measured: bench.F(r.TPS),
				Baseline: bench.F(transfer.TPS), Ratio: bench.F(r.TPS / transfer.TPS),
				Text: fmt.Sprintf("%.0f tps, p50 %.1f ms, p99 %.1f ms", r.TPS, r.P50ms, r.P99ms)})
		}
	}
	create, createCPU, limitErrors := createLoad("create-transfer", loadUsers, o.Warmup, o.Duration)
	b.raw["create_transfer"] = create
	b.raw["create_transfer_limit_errors"] = limitErrors
	b.loadFigures("2. create-transfer", ", "+count(o.Clients, "sender"), o.Clients, create, transfer, haveTransfer, 0.40, 2.0)
	b.cpuPerCall("create-transfer", create, createCPU, transfer, pgUsage["transfer"], haveTransfer)

	// The worker catches up before the next phase, so its work does not land on the reads.
	b.step("waiting for the transfers worker to finish the create phase's transfers")
	from, logFrom = meter(), logSize()
	waited, left, drainErr := bench.Drain(ctx, loadUsers, o.DrainTimeout)
	catchUpCPU := cpu("worker catch-up", from)
	catchUpRPCs := rpcs("worker catch-up", logFrom)
	b.raw["drain_seconds"] = waited.Seconds()
	b.raw["drain_unfinished"] = left
	if drainErr != nil {
		b.fail("   worker catch-up", "", drainErr)
	} else {
		text := fmt.Sprintf("%.1f s", waited.Seconds())
		if left > 0 {
			text = fmt.Sprintf("%d still unfinished after %.0f s", left, waited.Seconds())
		}
		b.add(bench.Figure{Name: "   worker catch-up after 2.", Result: bench.Info, Unit: "s", Measured: bench.F(waited.Seconds()), Text: text})
		for _, st := range catchUpRPCs {
			if st.Service == "paymentmethods" && st.Method == "Charge" && st.Count > 0 && catchUpCPU.Wall > 0 {
				cores := catchUpCPU.Ours() - catchUpCPU.Cores[bench.PgbenchDB] - catchUpCPU.Cores[bench.PgbenchClient]
				b.add(bench.Figure{Name: "   CPU per transfer the worker completes", Result: bench.Info, Unit: "ms",
					Measured: bench.F(cores * catchUpCPU.Wall / float64(st.Count) * 1000),
					Detail:   fmt.Sprintf("%.2f cores for %d charges in %.1f s of catch-up (the bench's polling of ListTransfers included)", cores, st.Count, catchUpCPU.Wall)})
			}
		}
	}

	for _, lv := range levels {
		b.levelFigures(lv, transfer, haveTransfer)
	}

	// 2b and 2c: created and completed, sustained; 2d: senders with a long history.
	b.sustained(ctx, ready, loadUsers, transfer, pgUsage["transfer"], haveTransfer, meter, cpu, rpcs, logSize)
	if o.HeavySenders > 0 {
		b.heavy(ctx, ready, pick(o.HeavySenders), pick(o.HeavySenders), meter, cpu)
	}

	// 1b, then 3. The history page.
	history, haveHistory := baseline("history", func(ctx context.Context) (bench.PgbenchResult, error) { return pg.History(ctx) })
	if haveHistory {
		b.add(bench.Figure{Name: "1b. pgbench 10-newest read (baseline)", Result: bench.Info, Unit: "tps", Measured: bench.F(history.TPS),
			Text: fmt.Sprintf("%.0f tps, p50 %.2f ms, p99 %.2f ms", history.TPS, history.P50ms, history.P99ms)})
	}
	b.step("history page (ListTransfers page 1, size 5): %d clients, %s warm-up + %s", o.Clients, o.Warmup, o.Duration)
	from, logFrom = meter(), logSize()
	list := bench.ClosedLoop(ctx, o.Clients, o.Warmup, o.Duration, func(ctx context.Context, w, _ int) error {
		res, err := loadUsers[w].Transfers.ListTransfers(ctx, &bffv1.ListTransfersRequest{Page: 1, PageSize: 5})
		if err == nil && len(res.GetTransfers()) == 0 {
			return errors.New("the history page came back empty")
		}
		return err
	})
	historyCPU := cpu("history", from)
	rpcs("history", logFrom)
	b.raw["history"] = list
	b.step("history: %.0f tps, p50 %.1f ms, p99 %.1f ms, %d errors %v", list.TPS, list.P50ms, list.P99ms, list.Errors, list.ErrorSamples)
	b.loadFigures("3. history page", "", 0, list, history, haveHistory, 0.25, 0)
	b.cpuPerCall("history page", list, historyCPU, history, pgUsage["history"], haveHistory)

	// 4. Live events, lowest level first. Below -streams: users of their own (as many as the
	// target level has per stream, at least one), -level-event-transfers transfers, no target.
	// At -streams and above: every stream user, -event-transfers transfers, the targets.
	var below, judged []bench.Figure
	var eventLevels []eventLevel
	order := slices.Concat(slices.DeleteFunc(slices.Clone(o.StreamLevels[1:]), func(n int) bool { return n > o.Streams }), []int{o.Streams},
		slices.DeleteFunc(slices.Clone(o.StreamLevels[1:]), func(n int) bool { return n < o.Streams }))
	for _, n := range order {
		watchers, transfers, phase := streamUsers, o.EventTransfers, "live events, "+count(n, "stream")
		if n < o.Streams {
			watchers, transfers = pick(min(n, max(1, n*o.StreamUsers/o.Streams))), o.LevelTransfers
		} else if n == o.Streams {
			phase = "live events"
		}
		b.liveEvents(ctx, ready, n, watchers, transfers, phase, &eventLevels, &below, &judged, meter, cpu, rpcs, logSize)
	}
	b.raw["events_levels"] = eventLevels
	for _, f := range append(judged, below...) {
		b.add(f)
	}

	b.memoryAfter(ctx, ready, idle)
}

// sustained runs the created-and-completed phase (bench.Sustained) with the target level's
// senders, after the worker has caught up with their earlier transfers.
func (b *bencher) sustained(ctx context.Context, ready stack.Ready, senders []*bench.User, base bench.PgbenchResult, baseCPU bench.CPUUsage, haveBase bool,
	meter func() *bench.CPUMeter, cpu func(string, *bench.CPUMeter) bench.CPUUsage, rpcs func(string, int64) []bench.RPCStat, logSize func() int64) {
	o := b.o
	phase := "created and completed"
	b.step("%s: %d senders, each waiting for its transfer's completed event, %s warm-up + %s", phase, len(senders), o.Warmup, o.Sustained)
	if err := bench.StepUpAll(ctx, senders, 8); err != nil { // untimed, as before every create phase
		b.fail("2b. created and completed", "≥ 0.10", err)
		return
	}
	from, logFrom := meter(), logSize()
	r, err := bench.Sustained(ctx, senders, bench.SustainedConfig{Warmup: o.Warmup, Duration: o.Sustained, NatsURL: ready.NatsURL, NatsSeedFile: ready.NatsObserverSeedFile})
	u := cpu(phase, from)
	rpcs(phase, logFrom)
	if err != nil {
		b.fail("2b. created and completed", "≥ 0.10", err)
		return
	}
	b.raw["created_and_completed"] = r
	b.step("%s: %.0f tps, create to completed p50 %.1f ms, p99 %.1f ms, %d errors %v", phase, r.TPS, r.P50ms, r.P99ms, r.Errors, r.ErrorSamples)
	for _, f := range bench.SustainedFigures(r, len(senders), u, base, baseCPU, haveBase) {
		b.add(f)
	}
}

// heavy seeds the heavy senders' history in the database, then runs create-transfer for them
// and for as many new senders side by side.
func (b *bencher) heavy(ctx context.Context, ready stack.Ready, heavy, fresh []*bench.User, meter func() *bench.CPUMeter, cpu func(string, *bench.CPUMeter) bench.CPUUsage) {
	o := b.o
	ids := make([]string, len(heavy))
	for i, u := range heavy {
		ids[i] = u.ID
	}
	b.step("seeding %d earlier transfers for each of %d senders in the database", o.HeavyHistory, len(heavy))
	took, err := bench.SeedHistory(ctx, ready.DatabaseURL, ids, o.HeavyHistory)
	if err == nil {
		err = bench.StepUpAll(ctx, slices.Concat(heavy, fresh), 8)
	}
	if err != nil {
		b.fail(fmt.Sprintf("2d. create TPS, %d earlier ÷ new senders", o.HeavyHistory), "≥ 0.90", err)
		return
	}
	n, cents, _ := bench.HistoryCounts(ctx, ready.DatabaseURL, ids)
	b.raw["heavy_seed"] = map[string]any{"seconds": took.Seconds(), "transfers": n, "year_usage_cents": cents}
	b.step("create-transfer, %d senders with history and %d new side by side: %s warm-up + %s", len(heavy), len(fresh), o.LevelWarmup, o.HeavyDuration)
	from := meter()
	h, f := bench.ClosedLoops(ctx, heavy, fresh, o.LevelWarmup, o.HeavyDuration, func(ctx context.Context, u *bench.User) error {
		_, err := u.Transfers.CreateTransfer(ctx, bench.TransferRequest(u))
		return err
	})
	cpu("create-transfer, heavy and new senders", from)
	b.raw["create_transfer_heavy"], b.raw["create_transfer_new"] = h, f
	b.step("heavy senders %.0f tps (p50 %.1f ms), new senders %.0f tps (p50 %.1f ms)", h.TPS, h.P50ms, f.TPS, f.P50ms)
	b.add(bench.HeavyFigures(h, f, len(heavy), o.HeavyHistory, took))
	// Their transfers are completed before the next phase, as after the other create phases.
	if waited, left, err := bench.Drain(ctx, slices.Concat(heavy, fresh), o.DrainTimeout); err == nil {
		b.step("  worker caught up in %.1f s (%d unfinished)", waited.Seconds(), left)
	}
}

// liveEvents runs one live-event level (bench.Events) and makes its rows: information below
// -streams, the targets at -streams (p50, p99) and above it (p99, the BFF's memory with the
// streams open).
func (b *bencher) liveEvents(ctx context.Context, ready stack.Ready, n int, watchers []*bench.User, transfers int, phase string,
	levels *[]eventLevel, below, judged *[]bench.Figure, meter func() *bench.CPUMeter, cpu func(string, *bench.CPUMeter) bench.CPUUsage,
	rpcs func(string, int64) []bench.RPCStat, logSize func() int64) {
	o := b.o
	b.step("%s over %s (%s), %d transfers at %.0f/s", phase, count(len(watchers), "user"), o.StreamsProtocol, transfers, o.EventRate)
	var open map[string]int64
	from, logFrom := meter(), logSize()
	ev, err := bench.Events(ctx, watchers, bench.EventsConfig{
		Streams: n, OpenParallel: 50, Transfers: transfers, Rate: o.EventRate, Wait: o.EventWait,
		NatsURL: ready.NatsURL, NatsSeedFile: ready.NatsObserverSeedFile,
		WhileOpen: func() {
			open = readRSS(ready.PIDs)
			b.step("  BFF resident with %s open: %.1f MiB", count(n, "stream"), float64(open["bff"])/(1<<20))
		},
	})
	cpu(phase, from)
	rpcs(phase, logFrom)
	for _, u := range watchers {
		u.CloseStreams()
	}
	lv := eventLevel{Streams: n, Users: len(watchers), EventsResult: ev, RSSOpen: open}
	if err != nil {
		lv.Error = err.Error()
	}
	*levels = append(*levels, lv)
	switch {
	case n < o.Streams:
		*below = append(*below, bench.EventLevelFigures(n, ev, err)...)
	case n == o.Streams:
		b.raw["events"] = ev
		b.raw["rss_streams_open_bytes"] = open
		*judged = append(*judged, bench.EventFigures(n, ev, err, true)...)
	default:
		*judged = append(*judged, bench.EventFigures(n, ev, err, false)...)
		*judged = append(*judged, bench.StreamsMemoryFigure(n, open["bff"]))
	}
}

// cpuPerCall adds a row comparing the CPU one call cost the machine (every process of the
// stack, its backends, the server's processes and the load generator) with one pgbench
// transaction (pgbench, its backends, the server's processes). On a machine whose cores are all
// busy, throughput is roughly cores ÷ CPU per call: this is the row that says where it goes.
func (b *bencher) cpuPerCall(name string, s bench.Summary, u bench.CPUUsage, base bench.PgbenchResult, bu bench.CPUUsage, haveBase bool) {
	if s.Total == 0 || u.Wall == 0 {
		return
	}
	stackCores := u.Ours() - u.Cores[bench.PgbenchDB] - u.Cores[bench.PgbenchClient]
	stack := bench.StackMsPer(u, s.Total)
	f := bench.Figure{Name: "   CPU per " + name + " call", Result: bench.Info, Unit: "ms", Measured: bench.F(stack),
		Detail: fmt.Sprintf("all of the stack's processes, their PostgreSQL backends and the load generator: %.2f cores for %d calls in %.1f s", stackCores, s.Total, u.Wall)}
	if haveBase && base.Count > 0 && bu.Wall > 0 {
		pgCores := bu.Cores[bench.PgbenchDB] + bu.Cores[bench.PgbenchClient] + bu.Cores[bench.PostgresServer]
		pg := bench.PgbenchMsPer(bu, base.Count)
		f.Detail += fmt.Sprintf("; pgbench: its client, its backends and the server's processes, %.2f cores", pgCores)
		f.Baseline, f.Ratio = bench.F(pg), bench.F(stack/pg)
	}
	b.add(f)
}

// createLevel is a create-transfer phase at a level other than -clients (raw.create_transfer_levels).
type createLevel struct {
	Senders int `json:"senders"`
	bench.Summary
	LimitErrors int64 `json:"limit_errors"`
	// Pgbench is the transfer transaction at the same client count, right before the phase.
	Pgbench         *bench.PgbenchResult `json:"pgbench_same_clients,omitempty"`
	DrainSeconds    float64              `json:"drain_seconds"`
	DrainUnfinished int                  `json:"drain_unfinished"`
	DrainError      string               `json:"drain_error,omitempty"`
}

// eventLevel is a live-event phase at a level other than -streams (raw.events_levels).
type eventLevel struct {
	Streams int `json:"streams"`
	Users   int `json:"users"`
	bench.EventsResult
	// RSSOpen is every child's VmRSS once the streams were open.
	RSSOpen map[string]int64 `json:"rss_streams_open_bytes,omitempty"`
	Error   string           `json:"error,omitempty"`
}

// levelFigures adds the rows of a create-transfer level other than the target's: throughput and
// latency against 1a (pgbench at -clients), then against pgbench at the same client count.
func (b *bencher) levelFigures(lv createLevel, base bench.PgbenchResult, haveBase bool) {
	suffix := ", " + count(lv.Senders, "sender")
	s := lv.Summary
	if s.Count == 0 {
		msg := "no successful call"
		if len(s.ErrorSamples) > 0 {
			msg += ": " + strings.Join(s.ErrorSamples, "; ")
		}
		b.add(bench.Figure{Name: "   create-transfer TPS" + suffix, Level: lv.Senders, Result: bench.Error, Error: msg})
		return
	}
	detail := fmt.Sprintf("%d calls in %.1f s, %d errors; the worker caught up in %.1f s", s.Count, s.Seconds, s.Errors, lv.DrainSeconds)
	if len(s.ErrorSamples) > 0 {
		detail += ": " + strings.Join(s.ErrorSamples, "; ")
	}
	rows := []bench.Figure{
		{Name: "   create-transfer TPS" + suffix, Unit: "tps", Measured: bench.F(s.TPS), Detail: detail},
		{Name: "   create-transfer p50" + suffix, Unit: "ms", Measured: bench.F(s.P50ms)},
		{Name: "   create-transfer p99" + suffix, Unit: "ms", Measured: bench.F(s.P99ms)},
	}
	against := []float64{base.TPS, base.P50ms, base.P99ms}
	for i := range rows {
		rows[i].Result, rows[i].Level = bench.Info, lv.Senders
		if haveBase && against[i] > 0 {
			rows[i].Baseline, rows[i].Ratio = bench.F(against[i]), bench.F(*rows[i].Measured/against[i])
		}
		b.add(rows[i])
	}
	if r := lv.Pgbench; r != nil && r.TPS > 0 && r.P50ms > 0 && r.P99ms > 0 {
		b.add(bench.Figure{Name: "   vs pgbench at " + count(lv.Senders, "client"), Result: bench.Info, Unit: "tps", Level: lv.Senders,
			Measured: bench.F(s.TPS), Baseline: bench.F(r.TPS), Ratio: bench.F(s.TPS / r.TPS),
			Text:   fmt.Sprintf("p50 ×%.1f, p99 ×%.1f (pgbench p50 %.1f, p99 %.1f ms)", s.P50ms/r.P50ms, s.P99ms/r.P99ms, r.P50ms, r.P99ms),
			Detail: "ratio: TPS over pgbench's at the same client count; the text: p50 and p99 over pgbench's"})
	}
}

// loadFigures adds the throughput and latency rows of a load phase against its baseline; suffix
// (e.g. ", 32 senders") and level name the load level, when the figure has several.
func (b *bencher) loadFigures(name, suffix string, level int, s bench.Summary, base bench.PgbenchResult, haveBase bool, minTPSRatio, maxP99Ratio float64) {
	if s.Count == 0 {
		msg := "no successful call"
		if len(s.ErrorSamples) > 0 {
			msg += ": " + strings.Join(s.ErrorSamples, "; ")
		}
		b.fail(name+" TPS"+suffix, fmt.Sprintf("≥ %.2f × (%s)", minTPSRatio, baseName(name)), errors.New(msg))
		return
	}
	detail := fmt.Sprintf("%d calls in %.1f s, %d errors", s.Count, s.Seconds, s.Errors)
	if len(s.ErrorSamples) > 0 {
		detail += ": " + strings.Join(s.ErrorSamples, "; ")
	}
	tps := bench.Figure{Name: name + " TPS" + suffix, Level: level, Unit: "tps", Measured: bench.F(s.TPS), Target: fmt.Sprintf("≥ %.2f", minTPSRatio), Detail: detail, Result: bench.Info}
	p50 := bench.Figure{Name: "   " + strings.SplitN(name, " ", 2)[1] + " p50" + suffix, Level: level, Unit: "ms", Measured: bench.F(s.P50ms), Result: bench.Info}
	p99 := bench.Figure{Name: name + " p99" + suffix, Level: level, Unit: "ms", Measured: bench.F(s.P99ms), Result: bench.Info}
	if haveBase {
		tps.Baseline, tps.Ratio = bench.F(base.TPS), bench.F(s.TPS/base.TPS)
		tps.Check(*tps.Ratio, minTPSRatio, true)
		p50.Baseline, p50.Ratio = bench.F(base.P50ms), bench.F(s.P50ms/base.P50ms)
		p99.Baseline, p99.Ratio = bench.F(base.P99ms), bench.F(s.P99ms/base.P99ms)
		if maxP99Ratio > 0 {
			p99.Target = fmt.Sprintf("≤ %.2f", maxP99Ratio)
			p99.Check(*p99.Ratio, maxP99Ratio, false)
		}
	} else {
		tps.Result = bench.Error
		tps.Error = "no pgbench baseline to compare with"
	}
	if s.Errors > 0 && tps.Result == bench.Pass {
		tps.Detail += " (a phase with errors is not a pass)"
		tps.Result = bench.Miss
	}
	b.add(tps)
	if maxP99Ratio > 0 {
		b.add(p99)
		b.add(p50)
	} else {
		p99.Name = "   " + strings.SplitN(name, " ", 2)[1] + " p99" + suffix
		b.add(p50)
		b.add(p99)
	}
}

func baseName(name string) string {
	if strings.Contains(name, "history") {
		return "1b"
	}
	return "1a"
}

// signIn times sequential sign-ins, each right after one argon2id hash in this process, so that
// the two see the same machine; the figure is the ratio of their medians.
func (b *bencher) signIn(ctx context.Context, u *bench.User) {
	var lat, hashes []time.Duration
	var errs int
	for i := range b.o.SignIns + 2 {
		h := bench.ArgonHash()
		t0 := time.Now()
		_, err := u.Auth.SignIn(ctx, &bffv1.SignInRequest{Email: u.Email, Password: u.Password})
		d := time.Since(t0)
		if err != nil {
			errs++
			if errs == 1 {
				b.step("sign-in failed: %v", err)
			}
			continue
		}
		if i >= 2 {
			lat = append(lat, d)
			hashes = append(hashes, h)
		}
	}
	s := bench.Summarize(lat, 0, errs, nil)
	argon := bench.Summarize(hashes, 0, 0, nil)
	b.raw["sign_in"] = s
	b.raw["sign_in_ms"] = durationsMs(lat)
	b.raw["argon2id"] = argon
	b.raw["argon2id_ms"] = durationsMs(hashes)
	if s.Count == 0 {
		b.fail("5. sign-in p50 vs one argon2id", "≤ 1.50", fmt.Errorf("%d sign-ins failed", errs))
		return
	}
	b.step("sign-in p50 %.1f ms; one argon2id p50 %.1f ms", s.P50ms, argon.P50ms)
	f := bench.Figure{Name: "5. sign-in p50 vs one argon2id", Unit: "ms", Measured: bench.F(s.P50ms), Baseline: bench.F(argon.P50ms),
		Ratio: bench.F(s.P50ms / argon.P50ms), Target: "≤ 1.50",
		Detail: fmt.Sprintf("%d sequential sign-ins (p99 %.1f ms), each after one hash (p99 %.1f ms)", s.Count, s.P99ms, argon.P99ms)}
	f.Check(*f.Ratio, 1.5, false)
	if errs > 0 && f.Result == bench.Pass {
		f.Result, f.Detail = bench.Miss, f.Detail+fmt.Sprintf("; %d sign-ins failed", errs)
	}
	b.add(f)
}

func (b *bencher) landingJS() {
	files, total, err := bench.LandingJS(filepath.Join(b.o.Root, "web", "dist"))
	if err != nil {
		b.fail("6. landing page JS (gzip)", "≤ 150 kB", err)
		return
	}
	b.raw["landing_js"] = files
	names := make([]string, 0, len(files))
	for _, f := range files {
		names = append(names, fmt.Sprintf("%s %.1f kB (%s)", f.Path, float64(f.GzipBytes)/1000, f.How))
	}
	kb := float64(total) / 1000
	f := bench.Figure{Name: "6. landing page JS (gzip)", Unit: "kB", Measured: bench.F(kb), Target: "≤ 150 kB", Detail: strings.Join(names, ", ")}
	f.Check(kb, 150, false)
	b.add(f)
}

// memoryAfter waits for the stack to settle and adds the memory rows (idle before and after).
func (b *bencher) memoryAfter(ctx context.Context, ready stack.Ready, idle map[string]int64) {
	b.step("idling %s before reading memory again", b.o.Idle)
	sleep(ctx, b.o.Idle)
	after := readRSS(ready.PIDs)
	b.raw["rss_after_bytes"] = after
	for _, name := range goProcesses {
		before, ok1 := idle[name]
		later, ok2 := after[name]
		fig := bench.Figure{Name: "7. memory " + name, Unit: "MiB", Target: fmt.Sprintf("≤ %d MiB", memoryTargetMiB)}
		if !ok1 || !ok2 {
			fig.Result, fig.Error = bench.Error, "could not read VmRSS"
			b.add(fig)
			continue
		}
		worst := float64(max(before, later)) / (1 << 20)
		fig.Measured = bench.F(worst)
		fig.Text = fmt.Sprintf("idle %.1f / after %.1f MiB", float64(before)/(1<<20), float64(later)/(1<<20))
		fig.Check(worst, memoryTargetMiB, false)
		if name == "bff" {
			fig.Name = "   memory bff"
			if open, ok := b.raw["rss_streams_open_bytes"].(map[string]int64); ok && open["bff"] > 0 {
				fig.Text += fmt.Sprintf(" (%.1f with the streams open)", float64(open["bff"])/(1<<20))
			}
			if fig.Result == bench.Pass || fig.Result == bench.Miss {
				fig.Detail = "the BFF is not one of the five services; shown against the same bound"
			}
		}
		b.add(fig)
	}
}

func (b *bencher) abort(jsonPath string, err error) int {
	fmt.Fprintln(os.Stderr, "thumela-bench:", err)
	b.fail("bench", "", err)
	b.finish(jsonPath, b.rep.StartedAt)
	return 1
}

func (b *bencher) finish(jsonPath string, started time.Time) int {
	b.rep.Seconds = time.Since(started).Seconds()
	b.rep.Figures = b.figures
	fmt.Println()
	bench.PrintTable(os.Stdout, b.figures)
	if len(b.noisy) > 0 {
		b.raw["noisy_phases"] = b.noisy
		fmt.Printf("\nOther processes used the machine during: %s. Those figures are pessimistic; rerun on a quiet machine.\n", strings.Join(b.noisy, ", "))
	}
	b.rep.Raw = b.raw
	data, err := json.MarshalIndent(b.rep, "", "  ")
	if err == nil {
		err = os.WriteFile(jsonPath, data, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "thumela-bench: write the report:", err)
		return 1
	}
	fmt.Printf("\nreport: %s (%.0f s)\n", jsonPath, b.rep.Seconds)
	if b.errors > 0 {
		fmt.Printf("%d figure(s) could not be measured\n", b.errors)
		return 1
	}
	return 0
}

func readRSS(pids map[string]int) map[string]int64 {
	out := map[string]int64{}
	for _, name := range goProcesses {
		if pid, ok := pids[name]; ok {
			if rss, err := bench.RSS(pid); err == nil {
				out[name] = rss
			}
		}
	}
	return out
}

func databaseName(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(parsed.Path, "/")
}

func postgresVersion(ctx context.Context, url string) string {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return "unknown"
	}
	defer conn.Close(ctx) //nolint:errcheck // a read-only connection; nothing to do on error
	var v string
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
		return "unknown"
	}
	var sc string
	_ = conn.QueryRow(ctx, "SHOW synchronous_commit").Scan(&sc)
	return v + ", synchronous_commit=" + sc
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func durationsMs(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d.Microseconds()) / 1000
	}
	return out
}

func readTrim(path string) string {
	b, _ := os.ReadFile(path)
	return strings.TrimSpace(string(b))
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close() //nolint:errcheck // the listener only picked a free port
	return l.Addr().String(), nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close() //nolint:errcheck // the listener only picked a free port
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randomID() string {
	return fmt.Sprintf("%x", time.Now().UnixNano()&0xffffffffff)
}

// formatShares lists the processes that used a noticeable share of a core, busiest first.
func formatShares(share map[string]float64) string {
	names := make([]string, 0, len(share))
	for name, v := range share {
		if v >= 0.01 && name != bench.Machine {
			names = append(names, name)
		}
	}
	slices.SortFunc(names, func(a, b string) int {
		switch {
		case share[a] > share[b]:
			return -1
		case share[a] < share[b]:
			return 1
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, 0, len(names)+1)
	for _, name := range names {
		parts = append(parts, fmt.Sprintf("%s %.2f", name, share[name]))
	}
	if m, ok := share[bench.Machine]; ok {
		parts = append(parts, fmt.Sprintf("(machine %.2f of %d)", m, runtime.NumCPU()))
	}
	return strings.Join(parts, ", ")
}

// MarshalJSON writes the options with durations as text ("10s"), not nanoseconds.
func (o options) MarshalJSON() ([]byte, error) {
	type plain options
	raw, err := json.Marshal(plain(o))
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	for k, d := range map[string]time.Duration{
		"duration": o.Duration, "warmup": o.Warmup, "level_duration": o.LevelDuration, "level_warmup": o.LevelWarmup, "pgbench_duration": o.PgbenchDuration, "idle": o.Idle,
		"event_wait": o.EventWait, "drain_timeout": o.DrainTimeout, "sustained_duration": o.Sustained, "heavy_duration": o.HeavyDuration,
	} {
		m[k] = d.String()
	}
	return json.Marshal(m)
}
