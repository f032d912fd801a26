// Package stacktest runs the whole of Thumela as real processes (stack.Run on what `make
// build-go build-web` put in bin/ and web/dist) for the tests that need all of it: the
// scale-out, trace-chain, ATM journey and secrets-leak tests. Each stack gets a throw-away
// database on the local PostgreSQL (or TEST_DATABASE_URL's) and an embedded NATS, and stops
// when the test ends. What a person does against it through the BFF (sign up, add a card, send
// money, read /dev/outbox) is here too, for those tests to share.
package stacktest

import (
	"bufio"
	"bytes"
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/thumela/thumela/deploy/devstack/internal/stack"
	"github.com/thumela/thumela/services/platform/service/servicetest"
)

// DefaultDatabaseURL is the PostgreSQL the stack makes its throw-away database on when
// TEST_DATABASE_URL is not set: the local one of docs/TOOLCHAIN.
const DefaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// Options are what a test changes of the stack.
type Options struct {
	// Name is the test's name for the stack: its log's folder is thumela-<Name>-* in the
	// temporary directory, and the harness's own log lines carry it as their process.
	Name string
	// ExtraEnv, Replicas and TolerateExit are stack.Config's (ExtraEnv after testSMSBudget,
	// which a test may set again).
	ExtraEnv     []string
	Replicas     map[string]int
	TolerateExit bool
	// KeepLogEnv, when set, names an environment variable that keeps the log (and says where)
	// after a passing run too; a failing run always keeps it.
	KeepLogEnv string
	// PrivatePostgres runs the stack on a PostgreSQL cluster of its own (initdb under the
	// log's folder, a child of the stack named "postgres", removed at the end) instead of
	// TEST_DATABASE_URL's server: for the tests that stop PostgreSQL (the outage test), and
	// away from the shared server's connection limit.
	PrivatePostgres bool
}

// Stack is a running stack.
type Stack struct {
	stack.Ready
	// LogPath is the file of the stack's interleaved output (every process's lines, each
	// prefixed with the process's name and " | ").
	LogPath string

	stopped chan struct{} // closed when stack.Run has returned; err is set then
	err     error
}

// Start runs the stack and returns once every process is ready (stack.Ready: every service
// replica listens, every BFF answers its health check). It fails the test, with the end of the
// stack's log, when the binaries are missing or the stack does not come up within 2 minutes.
// The stack stops when the test ends, and its database is dropped; its log is kept, and its
// path and warnings shown, when the test has failed.
func Start(t testing.TB, opts Options) *Stack {
	t.Helper()
	root := repoRoot(t)
	requireBuilt(t, root)
	databaseURL := os.Getenv("TEST_DATABASE_URL")
	if databaseURL == "" {
		databaseURL = DefaultDatabaseURL
	}
	// The stack's ports are free when chosen and bound a moment later by its processes; the
	// stack-level test packages run in parallel, so another package's process may take one in
	// between. That start is thrown away and the stack started again on new ports.
	for attempt := 1; ; attempt++ {
		s, portTaken := startOnce(t, opts, root, databaseURL, attempt == maxStarts)
		if !portTaken {
			return s
		}
		t.Logf("a port of the stack was taken by another process while it started (attempt %d); starting again", attempt)
	}
}

// maxStarts bounds the starts that Start throws away because a port was taken meanwhile.
const maxStarts = 3

// startOnce is one start of the stack. Unless last, a start that failed because a port was
// taken meanwhile is cleaned up at once and reported with portTaken, for Start to try again.
func startOnce(t testing.TB, opts Options, root, databaseURL string, last bool) (_ *Stack, portTaken bool) {
	t.Helper()
	logDir, err := os.MkdirTemp("", "thumela-"+opts.Name+"-")
	if err != nil {
		t.Fatal(err)
	}
	logFile, err := os.Create(filepath.Join(logDir, "stack.log"))
	if err != nil {
		t.Fatal(err)
	}
	postgresPort := 0
	if opts.PrivatePostgres {
		databaseURL = ""
		_, port, _ := net.SplitHostPort(servicetest.FreeAddr(t))
		postgresPort, _ = strconv.Atoi(port)
		// The cluster's folder is under this one, and PostgreSQL runs as the postgres user
		// when the test runs as root: it must be able to get through.
		if err := os.Chmod(logDir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s := &Stack{LogPath: logFile.Name(), stopped: make(chan struct{})}
	readyCh := make(chan stack.Ready, 1)
	// The stack's life is the test's, not that of any context the test ends early.
	runCtx, stop := context.WithCancel(context.Background())
	go func() {
		defer close(s.stopped)
		s.err = stack.Run(runCtx, stack.Config{
			Root:         root,
			DataDir:      filepath.Join(logDir, "data"),
			HTTPAddr:     "127.0.0.1:0", // the stack picks the port and reports it (Ready.BaseURL)
			DatabaseURL:  databaseURL,
			PostgresPort: postgresPort,
			Ephemeral:    true,
			Out:          logFile,
			Logger:       slog.New(slog.NewTextHandler(logFile, nil)).With("process", opts.Name),
			ExtraEnv:     append([]string{testSMSBudget}, opts.ExtraEnv...),
			Replicas:     opts.Replicas,
			TolerateExit: opts.TolerateExit,
			Ready:        func(r stack.Ready) { readyCh <- r },
		})
	}()
	// Stopping waits for Run, which drops the throw-away database after the children exit.
	retried := false
	t.Cleanup(func() {
		if retried {
			return
		}
		stop()
		select {
		case <-s.stopped:
			if s.err != nil {
				t.Errorf("the stack stopped with an error: %v\n%s", s.err, s.Tail(40))
			}
		case <-time.After(45 * time.Second):
			t.Errorf("the stack did not stop within 45 s")
		}
		logFile.Close()
		switch {
		case t.Failed():
			t.Logf("the stack's log is kept at %s; its warnings and errors:\n%s", s.LogPath, s.Problems(60))
		case opts.KeepLogEnv != "" && os.Getenv(opts.KeepLogEnv) != "":
			t.Logf("the stack's log is kept at %s (%s)", s.LogPath, opts.KeepLogEnv)
		default:
			if err := os.RemoveAll(logDir); err != nil {
				t.Logf("remove the stack's log folder: %v", err)
			}
		}
	})
	select {
	case s.Ready = <-readyCh:
		return s, false
	case <-s.stopped:
		if !last && strings.Contains(s.Tail(200), "address already in use") {
			retried = true
			stop()
			logFile.Close()
			if err := os.RemoveAll(logDir); err != nil {
				t.Logf("remove the stack's log folder: %v", err)
			}
			return nil, true
		}
		t.Fatalf("the stack did not start: %v\n%s", s.err, s.Tail(80))
	case <-time.After(2 * time.Minute):
		t.Fatalf("the stack was not ready within 2 minutes\n%s", s.Tail(80))
	}
	return nil, false
}

// Stopped is closed when the stack has stopped: at the test's end, or earlier when a child
// died (unless Options.TolerateExit). Err says why then.
func (s *Stack) Stopped() <-chan struct{} { return s.stopped }

// Err is what stack.Run returned; read it once Stopped is closed.
func (s *Stack) Err() error { return s.err }

// Kill SIGKILLs one child (a name of Ready.PIDs): no graceful stop, no deferred code, as a
// crashed pod.
func (s *Stack) Kill(t testing.TB, name string) {
	t.Helper()
	pid := s.PIDs[name]
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Errorf("kill %s (%d): %v", name, pid, err)
	}
}

// RPCCounts counts, per process, the logged gRPC calls of method (the services log one line
// per call).
func (s *Stack) RPCCounts(t testing.TB, method string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(s.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, l := range lines(b) {
		name, line, ok := strings.Cut(l, " | ")
		if ok && strings.Contains(line, `"msg":"rpc"`) && strings.Contains(line, `"grpc.method":"`+method+`"`) {
			counts[strings.TrimSpace(name)]++
		}
	}
	return counts
}

// Tail returns the last n lines of the stack's log, headed as such, for a failure's message.
func (s *Stack) Tail(n int) string {
	b, err := os.ReadFile(s.LogPath)
	if err != nil {
		return "--- the stack's log: " + err.Error()
	}
	all := lines(b)
	return "--- the stack's last lines ---\n" + strings.Join(all[max(0, len(all)-n):], "\n")
}

// Problems returns the last n WARN and ERROR lines of the stack's log.
func (s *Stack) Problems(n int) string {
	b, err := os.ReadFile(s.LogPath)
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, line := range lines(b) {
		if strings.Contains(line, `"level":"WARN"`) || strings.Contains(line, `"level":"ERROR"`) || strings.Contains(line, "level=WARN") {
			out = append(out, line)
		}
	}
	return strings.Join(out[max(0, len(out)-n):], "\n")
}

func lines(b []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// WaitUntil calls done every interval until it reports true or timeout has passed, and returns
// its last answer: for what the stack does in the background (a transfer reaching its final
// status, an outbox draining), which a test waits for and then checks.
func WaitUntil(timeout, every time.Duration, done func() bool) bool {
	deadline := time.Now().Add(timeout)
	for {
		if done() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(every)
	}
}

// repoRoot finds the repository's root (the folder of go.work) above the test's directory.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.work above the test's directory: run the test inside the repository")
		}
		dir = parent
	}
}

// requireBuilt fails with what to run when the binaries or the web client are missing: the
// tests run what `make build-go` and `make build-web` produce, never a stale go run.
func requireBuilt(t testing.TB, root string) {
	t.Helper()
	var missing []string
	for _, name := range append(slices.Clone(stack.Services), "bff") {
		if _, err := os.Stat(filepath.Join(root, "bin", name)); err != nil {
			missing = append(missing, "bin/"+name)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "web", "dist", "index.html")); err != nil {
		missing = append(missing, "web/dist/index.html")
	}
	if len(missing) > 0 {
		t.Fatalf("missing %s: run `make build-go build-web` in %s first (`make test-go` does)", strings.Join(missing, ", "), root)
	}
}

// testSMSBudget raises the number's daily SMS budget (ten in production) for the test stacks:
// their tests send dozens of vouchers to the same few phones. Raised, not off, so the count
// still runs on every SMS, as in the browser tests' stacks (web/e2e/harness.mjs).
const testSMSBudget = "NOTIFICATIONS_SMS_PER_RECIPIENT_PER_DAY=1000"
