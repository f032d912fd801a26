package stack

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/thumela/thumela/services/platform/bus"
)

// Faults takes the stack's dependencies down and brings them back, for the fault tests (the
// outage test): any child (the private PostgreSQL cluster, a service replica, a BFF) and the
// embedded NATS. Ready.Faults has one when the stack tolerates a child's exit
// (Config.TolerateExit); it is safe for concurrent use.
type Faults struct {
	logger *slog.Logger
	out    io.Writer
	outMu  *sync.Mutex
	width  int

	mu     sync.Mutex
	procs  *[]*process // Run's children, in start order; a restarted one takes its old place
	closed bool        // the stack is stopping: nothing starts again

	// The embedded NATS (nil with a NATS of the caller's) and how to start it again: on the
	// same port and store, so that the children reconnect to what they know and JetStream
	// finds its streams.
	nats         *server.Server
	natsStore    string
	natsMaxCons  int
	natsKeys     bus.KeySet
	natsPort     int
	natsStopping bool
}

// find returns the current process named name and its index in procs.
func (f *Faults) find(name string) (*process, int) {
	for i, p := range *f.procs {
		if p.name == name {
			return p, i
		}
	}
	return nil, -1
}

// PID returns the process id of the current process named name (0 when there is none).
func (f *Faults) PID(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p, _ := f.find(name); p != nil {
		return p.cmd.Process.Pid
	}
	return 0
}

// Stop sends sig to the child named name (SIGKILL: a crash; SIGINT to postgres: its fast
// shutdown, what `pg_ctl stop -m fast` sends) and waits up to timeout for it to exit.
func (f *Faults) Stop(name string, sig syscall.Signal, timeout time.Duration) error {
	f.mu.Lock()
	p, _ := f.find(name)
	f.mu.Unlock()
	if p == nil {
		return fmt.Errorf("no child named %s", name)
	}
	if err := p.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("signal %s: %w", name, err)
	}
	select {
	case <-p.done:
		f.logger.Warn("fault: a child stopped", "process", name, "signal", sig.String())
		return nil
	case <-time.After(timeout):
		return fmt.Errorf("%s did not exit within %s of %s", name, timeout, sig)
	}
}

// Start starts the child named name again, with the same command line and environment, once
// it has exited (Stop, or a crash). It does not wait for the child to be ready.
func (f *Faults) Start(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return errors.New("the stack is stopping")
	}
	old, i := f.find(name)
	if old == nil {
		return fmt.Errorf("no child named %s", name)
	}
	select {
	case <-old.done:
	default:
		return fmt.Errorf("%s is still running (pid %d)", name, old.cmd.Process.Pid)
	}
	cmd := exec.Command(old.cmd.Path, old.cmd.Args[1:]...)
	cmd.Env, cmd.Dir = old.cmd.Env, old.cmd.Dir
	if old.cmd.SysProcAttr != nil {
		attr := *old.cmd.SysProcAttr
		cmd.SysProcAttr = &attr
	}
	// Where it served before: its sockets closed with it, and the ports are opened again.
	lns, err := listenOn(old.serves...)
	if err != nil {
		return err
	}
	p, err := startServing(name, cmd, lns, f.out, f.outMu, f.width)
	if err != nil {
		return err
	}
	(*f.procs)[i] = p
	f.logger.Warn("fault: a child started again", "process", name, "pid", cmd.Process.Pid)
	go func() {
		<-p.done
		f.logger.Warn("a child stopped; the stack keeps running (TolerateExit)", "process", p.name, "err", p.err)
	}()
	return nil
}

// StopNATS shuts the embedded NATS down, as a crash of the server would look to its clients
// (their connections drop; JetStream's store stays on disk).
func (f *Faults) StopNATS() error {
	f.mu.Lock()
	ns := f.nats
	if ns == nil || f.natsStopping {
		f.mu.Unlock()
		return errors.New("no embedded NATS running")
	}
	f.natsStopping = true
	f.mu.Unlock()
	ns.Shutdown()
	ns.WaitForShutdown()
	f.logger.Warn("fault: embedded NATS stopped")
	return nil
}

// StartNATS starts the embedded NATS again on its port and store, after StopNATS.
func (f *Faults) StartNATS() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return errors.New("the stack is stopping")
	}
	if !f.natsStopping {
		return errors.New("the embedded NATS is running")
	}
	var ns *server.Server
	var err error
	// The port was freed by the shutdown a moment ago; retry briefly should the kernel hold it.
	for range 50 {
		if ns, err = startNATS(f.natsStore, f.natsMaxCons, f.natsKeys, f.natsPort); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	f.nats, f.natsStopping = ns, false
	f.logger.Warn("fault: embedded NATS started again", "url", ns.ClientURL())
	return nil
}

// close stops the restarts (the stack is stopping) and returns the children to stop.
func (f *Faults) close() []*process {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	return append([]*process(nil), *f.procs...)
}

// shutdownNATS shuts the current embedded NATS down at the stack's end.
func (f *Faults) shutdownNATS() {
	f.mu.Lock()
	ns := f.nats
	f.mu.Unlock()
	if ns != nil {
		ns.Shutdown()
	}
}
