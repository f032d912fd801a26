// Command thumela-pg runs a command against a PostgreSQL of its own: the Makefile's test
// targets run under it, so that `make test` needs no server on the machine.
//
//	thumela-pg -- go test ./...
//
// With TEST_DATABASE_URL set it only runs the command. Otherwise it creates a private cluster
// the way `make run` does (stack.PrivatePostgres: initdb in a new temporary folder, postgres on a
// free port of 127.0.0.1, as the postgres user when we are root), runs the command with
// TEST_DATABASE_URL naming it, then stops the cluster and removes its folder: also when the
// command fails or is interrupted. It exits with the command's status.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/thumela/thumela/deploy/devstack/internal/stack"
)

var errInterrupted = errors.New("interrupted before the command started")

// statusNotRun is the shell's status for a command that could not be started.
const statusNotRun = 127

func main() {
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: thumela-pg -- command [args...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	status, err := run(flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "thumela-pg:", err)
	}
	os.Exit(status)
}

func run(command []string) (int, error) {
	// A Ctrl-C in the terminal reaches the command (it is in the terminal's process group) and
	// us, not the cluster (in a group of its own). We pass every signal on, so that one sent to
	// us alone reaches the command too (a Ctrl-C then reaches it twice, which does no harm), and
	// stop the cluster only once the command has ended.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var child commandProcess
	go func() {
		for sig := range signals {
			cancel() // a cluster still starting gives up
			child.signal(sig)
		}
	}()

	if os.Getenv("TEST_DATABASE_URL") != "" {
		return runCommand(command, nil, &child)
	}
	cluster, err := startCluster(ctx)
	if err != nil {
		return 1, err
	}
	defer cluster.remove()
	fmt.Fprintf(os.Stderr, "thumela-pg: a private PostgreSQL for this run: TEST_DATABASE_URL=%s\n", cluster.url)
	return runCommand(command, []string{"TEST_DATABASE_URL=" + cluster.url}, &child)
}

// runCommand runs the command with env added to ours and returns its exit status.
func runCommand(command, env []string, child *commandProcess) (int, error) {
	cmd := exec.Command(command[0], command[1:]...) //nolint:gosec // G204: running the caller's command is this tool's job
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		return statusNotRun, err
	}
	child.add(cmd.Process)
	err := cmd.Wait()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		// As a shell reports it: 128 + the signal for a command that a signal ended.
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return exitErr.ExitCode(), nil
	}
	if err != nil {
		return 1, err
	}
	return 0, nil
}

// commandProcess is the command's process, for the signal forwarder, once it has started.
type commandProcess struct {
	mu      sync.Mutex
	process *os.Process
	pending []os.Signal // received before the command started
}

func (c *commandProcess) add(p *os.Process) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.process = p
	for _, sig := range c.pending {
		_ = p.Signal(sig)
	}
}

func (c *commandProcess) signal(sig os.Signal) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.process == nil {
		c.pending = append(c.pending, sig)
		return
	}
	_ = c.process.Signal(sig)
}

// cluster is a running private cluster and the temporary folder it lives in.
type cluster struct {
	folder string
	url    string
	server *exec.Cmd
	exited chan struct{} // closed once the server has exited
}

func startCluster(ctx context.Context) (_ *cluster, err error) {
	folder, err := os.MkdirTemp("", "thumela-pg-")
	if err != nil {
		return nil, err
	}
	c := &cluster{folder: folder, exited: make(chan struct{})}
	defer func() {
		if err != nil {
			c.remove()
		}
	}()
	// When we are root the cluster runs as the postgres user, which must get through.
	if err := os.Chmod(folder, 0o755); err != nil { //nolint:gosec // G302: a folder, which others must traverse
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	pg := &stack.PrivatePostgres{
		Dir:       filepath.Join(folder, "postgres"),
		Port:      port,
		Logger:    slog.New(slog.NewTextHandler(os.Stderr, nil)).With("process", "thumela-pg"),
		Throwaway: true,
	}
	if err := pg.Init(ctx); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, errInterrupted
	}
	logFile, err := os.Create(filepath.Join(folder, "postgres.log"))
	if err != nil {
		return nil, err
	}
	defer logFile.Close() //nolint:errcheck // the server has its own copy of the descriptor
	server, err := pg.Command()
	if err != nil {
		return nil, err
	}
	server.Stdout, server.Stderr = logFile, logFile
	if server.SysProcAttr == nil {
		server.SysProcAttr = &syscall.SysProcAttr{}
	}
	server.SysProcAttr.Setpgid = true
	if err := server.Start(); err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	c.server = server
	go func() {
		_ = server.Wait()
		close(c.exited)
	}()
	// Ready when it accepts connections; failed when it exits first (the port taken meanwhile,
	// a bad setting), with its log to say why.
	waitCtx, stopWaiting := context.WithCancel(ctx)
	defer stopWaiting()
	go func() {
		select {
		case <-c.exited:
			stopWaiting()
		case <-waitCtx.Done():
		}
	}()
	c.url = pg.URL("postgres")
	if err := stack.WaitForPostgres(waitCtx, c.url, 30*time.Second); err != nil {
		if ctx.Err() != nil {
			return nil, errInterrupted
		}
		serverLog, _ := os.ReadFile(filepath.Join(folder, "postgres.log"))
		return nil, fmt.Errorf("the private PostgreSQL did not start: %w\n%s", err, serverLog)
	}
	return c, nil
}

// remove stops the server (SIGINT: PostgreSQL's fast shutdown, which ends the connections the
// command left open) and deletes the cluster's folder.
func (c *cluster) remove() {
	if c.server != nil {
		_ = c.server.Process.Signal(syscall.SIGINT)
		select {
		case <-c.exited:
		case <-time.After(30 * time.Second):
			_ = c.server.Process.Kill()
			<-c.exited
		}
	}
	if err := os.RemoveAll(c.folder); err != nil {
		fmt.Fprintln(os.Stderr, "thumela-pg: remove the private cluster:", err)
	}
}

// freePort is a TCP port of 127.0.0.1 that nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close() //nolint:errcheck // only its port was wanted
	return l.Addr().(*net.TCPAddr).Port, nil
}
