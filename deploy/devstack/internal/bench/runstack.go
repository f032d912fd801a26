package bench

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/thumela/thumela/deploy/devstack/internal/stack"
)

// benchStack is the throw-away stack the phases run against, from ready to stopped.
type benchStack struct {
	ready  stack.Ready
	cancel context.CancelFunc
	// done receives stack.Run's error once, when the stack stops.
	done chan error
	// stoppedBy is why the stack stopped by itself (a child died), if it did.
	stoppedBy atomic.Pointer[string]
}

// startStack starts the stack (stack.Run, logging to logFile) and waits until it is ready.
func (r *runner) startStack(ctx context.Context, logFile *os.File, workDir string) (*benchStack, error) {
	r.step("starting a throw-away stack (log: %s)", r.logPath)
	env := childEnv(r.cfg)
	r.rep.ChildEnv = env
	pgPort, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("pick a port: %w", err)
	}
	readyCh := make(chan stack.Ready, 1)
	stackCtx, cancel := context.WithCancel(context.Background())
	s := &benchStack{cancel: cancel, done: make(chan error, 1)}
	cfg := stack.Config{
		Root:             r.cfg.Root,
		DataDir:          filepath.Join(workDir, "data"),
		HTTPAddr:         "127.0.0.1:0", // the stack picks the port and reports it (Ready.BaseURL)
		DatabaseURL:      os.Getenv("DATABASE_URL"),
		Ephemeral:        true,
		PostgresPort:     pgPort,
		Out:              logFile,
		Logger:           slog.New(slog.NewTextHandler(logFile, nil)).With("process", "thumela-bench"),
		ExtraEnv:         env,
		NATSMaxConsumers: r.cfg.NATSMaxConsumers,
		Ready:            func(ready stack.Ready) { readyCh <- ready },
	}
	go func() { s.done <- stack.Run(stackCtx, cfg) }()
	select {
	case s.ready = <-readyCh:
		return s, nil
	case err := <-s.done:
		cancel()
		return nil, fmt.Errorf("the stack did not start: %v (see %s)", err, r.logPath)
	case <-ctx.Done():
		s.stop()
		return nil, ctx.Err()
	}
}

// childEnv is the environment added to every process of the bench's stack.
func childEnv(cfg Config) []string {
	env := []string{"LOG_LEVEL=" + cfg.LogLevel,
		// The load users send thousands of R10 transfers a run: the product's daily, monthly
		// and yearly limits would refuse them part-way (and count as errors), so the bench
		// lifts those three. The checks still run on every create, over the same sums.
		"TRANSFERS_LIMIT_DAILY_CENTS=100000000000",
		"TRANSFERS_LIMIT_MONTHLY_CENTS=100000000000",
		"TRANSFERS_LIMIT_YEARLY_CENTS=100000000000",
		// Every bench transfer goes to one recipient's phone: the per-number SMS budget (ten a
		// day) would fail all but the first ten voucher SMS, and e-mail each sender that it
		// failed. Off, like the limits above; its count stops at the budget in production.
		"NOTIFICATIONS_SMS_PER_RECIPIENT_PER_DAY=0",
		// Likewise the BFF's rate limits (docs/security-ratelimits.md): every bench user comes
		// from one address, and each sends thousands of transfers. The limiter still runs on
		// every call (its rules off decide nothing); the rest keep their defaults.
		"BFF_RATE_LIMITS=signup.address=0/1m+0,verify.address=0/1m+0,signin.address=0/1m+0,signin.account=0/1m+0," +
			"signin.pair=0/1m+0,addcard.address=0/1m+0,stepup.address=0/1m+0,transfer.address=0/1m+0,transfer.account=0/1m+0",
	}
	if cfg.SandboxDelay != "" {
		env = append(env, "PAYMENTMETHODS_SANDBOX_DELAY="+cfg.SandboxDelay)
	}
	return append(env, cfg.Env...)
}

// watch ends the bench's context (cancel) when the stack stops by itself, until ctx ends.
func (s *benchStack) watch(ctx context.Context, cancel context.CancelCauseFunc) {
	select {
	case err := <-s.done:
		why := fmt.Sprint(err)
		s.stoppedBy.Store(&why)
		cancel(fmt.Errorf("the stack stopped: %v", err))
		s.done <- err // for stop
	case <-ctx.Done():
	}
}

// stop ends the stack and waits for it, up to 30 s.
func (s *benchStack) stop() {
	s.cancel()
	select {
	case <-s.done: //nolint:errcheck // the stack was stopped: its error is the cancellation
	case <-time.After(30 * time.Second):
	}
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

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close() //nolint:errcheck // the listener only picked a free port
	return l.Addr().(*net.TCPAddr).Port, nil
}
