package servicetest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
)

// BuildBinary builds the main package in dir (a test's own, usually ".") into a temporary
// folder and returns the binary's path: crash tests run the real binary, never `go run`.
func BuildBinary(t testing.TB, dir string) string {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), filepath.Base(abs))
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = abs
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// Child is one run of a binary as a child process of the test.
type Child struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has ended, with err set
	err  error
}

// StartChild starts bin with exactly env, its output going to logName in a temporary folder;
// the log is shown when the test has failed (a crash test's child says why only there). A
// child still running when the test ends is killed.
func StartChild(t testing.TB, bin string, env []string, logName string) *Child {
	t.Helper()
	log, err := os.Create(filepath.Join(t.TempDir(), logName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = log.Close()
		if t.Failed() {
			if b, err := os.ReadFile(log.Name()); err == nil {
				t.Logf("%s:\n%s", logName, b)
			}
		}
	})
	c := &Child{cmd: exec.Command(bin), done: make(chan struct{})}
	c.cmd.Env = env
	c.cmd.Stdout, c.cmd.Stderr = log, log
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.err = c.cmd.Wait(); close(c.done) }()
	t.Cleanup(c.Kill)
	return c
}

// Done is closed when the process has ended.
func (c *Child) Done() <-chan struct{} { return c.done }

// Err is how the process ended (what exec.Cmd.Wait returned); read it once Done is closed.
func (c *Child) Err() error { return c.err }

// Kill SIGKILLs the process unless it has ended, and waits until it has.
func (c *Child) Kill() {
	select {
	case <-c.done:
	default:
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// RequireKilledBySIGKILL waits for the process to die and requires that SIGKILL killed it (a
// crash point the binary was given).
func (c *Child) RequireKilledBySIGKILL(t testing.TB, within time.Duration) {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(within):
		t.Fatalf("the process did not crash within %s", within)
	}
	var exit *exec.ExitError
	if !errors.As(c.err, &exit) {
		t.Fatalf("the process exited with %v, want killed", c.err)
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the process ended with %v, want SIGKILL", c.err)
	}
}

// WaitServing waits, up to a minute, until the process serves on conn; it fails at once if the
// process dies.
func (c *Child) WaitServing(t testing.TB, conn *grpc.ClientConn) {
	t.Helper()
	WaitServing(t, conn, 60*time.Second, c.done, func() error { return c.err })
}

// Stop sends SIGTERM, as an orchestrator would, and reports an error unless the process then
// stops cleanly within 30 s.
func (c *Child) Stop(t testing.TB) {
	t.Helper()
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
		if c.err != nil {
			t.Errorf("stop after SIGTERM: %v", c.err)
		}
	case <-time.After(30 * time.Second):
		t.Error("the process did not stop after SIGTERM")
	}
}
