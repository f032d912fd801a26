package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// report is the JSON file: every figure, and the raw measurements behind them.
type report struct {
	StartedAt   time.Time      `json:"started_at"`
	Seconds     float64        `json:"seconds"`
	Command     []string       `json:"command"`
	Host        map[string]any `json:"host"`
	Options     Config         `json:"options"`
	ChildEnv    []string       `json:"child_env"`
	StackLog    string         `json:"stack_log"`
	Figures     []Figure       `json:"figures"`
	Raw         map[string]any `json:"raw"`
	ClockSource string         `json:"clock_source"`
}

// Run brings up a throw-away stack (its own database on the PostgreSQL at DATABASE_URL, an
// embedded NATS), runs every phase against it, prints the table of figures and writes the JSON
// report and the stack's log under cfg.Out. unmeasured counts the figures that could not be
// measured (the table says why); err says why the run stopped short, after the table and the
// report of what it measured when it got that far.
func Run(ctx context.Context, cfg Config) (unmeasured int, err error) {
	cfg = cfg.completed()
	started := time.Now()
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return 0, err
	}
	stamp := started.UTC().Format("2006-01-02T15-04-05Z")
	logPath := filepath.Join(cfg.Out, stamp+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return 0, err
	}
	// A log or work folder that cannot be closed or removed changes no figure: said, not failed.
	defer func() {
		if err := logFile.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "thumela-bench: stack log:", err)
		}
	}()
	workDir, err := os.MkdirTemp("", "thumela-bench-")
	if err != nil {
		return 0, err
	}
	defer func() {
		if err := os.RemoveAll(workDir); err != nil {
			fmt.Fprintln(os.Stderr, "thumela-bench: remove the work folder:", err)
		}
	}()

	r := &runner{cfg: cfg, raw: map[string]any{}, logPath: logPath, jsonPath: filepath.Join(cfg.Out, stamp+".json")}
	r.rep = report{
		StartedAt: started, Command: os.Args, Options: cfg, StackLog: logPath,
		Host: map[string]any{"cpus": runtime.NumCPU(), "go": runtime.Version(), "kernel": readTrim("/proc/sys/kernel/osrelease")},
		ClockSource: "Throughput and request latency: the bench's monotonic clock around each call (pgbench: its own per-transaction log). " +
			"Live events: the transfer's updated_at, written by the transfers service from its wall clock at the status change, " +
			"against the bench's wall clock when the message arrived; both processes read the same host clock (CLOCK_REALTIME).",
	}

	// 6. The landing page's JavaScript needs no stack.
	r.landingJS()

	s, err := r.startStack(ctx, logFile, workDir)
	if err != nil {
		return r.abort(err)
	}
	// A child that dies ends the stack, and the bench with it.
	benchCtx, cancelBench := context.WithCancelCause(ctx)
	defer cancelBench(nil)
	go s.watch(benchCtx, cancelBench)
	r.step("stack ready at %s (pids %v)", s.ready.BaseURL, s.ready.PIDs)
	r.rep.Host["postgres"] = postgresVersion(benchCtx, s.ready.DatabaseURL)

	r.measure(benchCtx, s.ready, workDir)

	r.step("stopping the stack")
	cancelBench(nil)
	s.stop()
	if why := s.stoppedBy.Load(); why != nil {
		r.fail("stack", "", fmt.Errorf("the stack stopped during the bench: %s (see %s)", *why, logPath))
	}
	return r.finish()
}

// runner is one run: its config, and the figures and raw measurements gathered so far.
type runner struct {
	cfg      Config
	rep      report
	figures  []Figure
	raw      map[string]any
	errors   int
	logPath  string
	jsonPath string
	// noisy lists the phases during which other processes used the machine noticeably.
	noisy []string
	// pids and databases name the processes and PostgreSQL databases whose CPU is counted
	// (observe.go), once the stack is up.
	pids      map[string]int
	databases map[string]string
	// backends names the stack's backends by service (backends.go); nil when it could not connect.
	backends *backendNames
}

func (r *runner) add(figures ...Figure) {
	for _, f := range figures {
		if f.Result == Error {
			r.errors++
		}
		r.figures = append(r.figures, f)
	}
}

func (r *runner) fail(name, target string, err error) {
	r.add(Figure{Name: name, Target: target, Result: Error, Error: err.Error()})
}

// step prints a line of progress.
func (r *runner) step(format string, args ...any) {
	fmt.Printf("[%s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// abort records why the run could not go on, then prints and writes what it measured.
func (r *runner) abort(err error) (int, error) {
	r.fail("bench", "", err)
	unmeasured, writeErr := r.finish()
	return unmeasured, errors.Join(err, writeErr)
}

// finish prints the table and writes the JSON report.
func (r *runner) finish() (int, error) {
	r.rep.Seconds = time.Since(r.rep.StartedAt).Seconds()
	r.rep.Figures = r.figures
	fmt.Println()
	PrintTable(os.Stdout, r.figures)
	if len(r.noisy) > 0 {
		r.raw["noisy_phases"] = r.noisy
		fmt.Printf("\nOther processes used the machine during: %s. Those figures are pessimistic; rerun on a quiet machine.\n", strings.Join(r.noisy, ", "))
	}
	r.rep.Raw = r.raw
	data, err := json.MarshalIndent(r.rep, "", "  ")
	if err == nil {
		err = os.WriteFile(r.jsonPath, data, 0o644)
	}
	if err != nil {
		return r.errors, fmt.Errorf("write the report: %w", err)
	}
	fmt.Printf("\nreport: %s (%.0f s)\n", r.jsonPath, r.rep.Seconds)
	if r.errors > 0 {
		fmt.Printf("%d figure(s) could not be measured\n", r.errors)
	}
	return r.errors, nil
}

func readTrim(path string) string {
	b, _ := os.ReadFile(path)
	return strings.TrimSpace(string(b))
}
