package stack

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/thumela/thumela/services/platform/listen"
)

// process is one child of the dev stack whose output lines are prefixed with its name, so that
// the interleaved logs of seven processes stay readable.
type process struct {
	name string
	cmd  *exec.Cmd
	// serves are the addresses whose sockets the child inherited, opened again for it when
	// it is started again (Faults.Start).
	serves []string
	done   chan struct{}
	err    error
}

// prefixWriter copies lines from a pipe to out, each prefixed, never splitting a line.
func prefixLines(r io.Reader, out io.Writer, prefix string, mu *sync.Mutex) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		mu.Lock()
		fmt.Fprintf(out, "%s %s\n", prefix, sc.Bytes())
		mu.Unlock()
	}
}

// start launches cmd, pumping its stdout and stderr through the prefixer.
func startProcess(name string, cmd *exec.Cmd, out io.Writer, mu *sync.Mutex, width int) (*process, error) {
	prefix := fmt.Sprintf("%-*s |", width, name)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	// Its own process group, so that a Ctrl-C in the terminal reaches only the stack, which
	// then stops the children in order.
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, done: make(chan struct{})}
	var pumps sync.WaitGroup
	pumps.Add(2)
	go func() { defer pumps.Done(); prefixLines(stdout, out, prefix, mu) }()
	go func() { defer pumps.Done(); prefixLines(stderr, out, prefix, mu) }()
	go func() {
		pumps.Wait()
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// startServing is startProcess for a child that serves on lns's sockets: it inherits them
// (platform/listen), and the stack's copies are closed once it has started, so that the child
// holds the only one.
func startServing(name string, cmd *exec.Cmd, lns map[string]*net.TCPListener, out io.Writer, mu *sync.Mutex, width int) (*process, error) {
	release, err := listen.Hand(cmd, lns)
	if err != nil {
		return nil, err
	}
	defer release()
	p, err := startProcess(name, cmd, out, mu, width)
	if err != nil {
		return nil, err
	}
	p.serves = slices.Sorted(maps.Keys(lns))
	return p, nil
}

// stop asks the process to end (SIGTERM, or SIGINT for PostgreSQL's fast shutdown) and kills it
// when it has not ended by the deadline.
func (p *process) stop(ctx context.Context, sig syscall.Signal) {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-ctx.Done():
		_ = p.cmd.Process.Kill()
		select {
		case <-p.done:
		case <-time.After(2 * time.Second):
		}
	}
}
