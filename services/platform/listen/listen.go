// Package listen opens a process's TCP listeners, and lets a parent open them for its children.
//
// A parent that picks free ports for its children (the dev stack, the browser tests' stacks)
// cannot close a port and hope it stays free until the child binds it: on a machine running
// several stacks at once, another process may take it in between, and the child then dies, or
// worse, the parent's readiness check reaches the other process's socket. So the parent keeps
// every socket it picked open and hands it down: the child serves on the very socket, and no
// port is ever free in between. This is systemd's socket activation in spirit, but systemd's
// protocol names the child's pid (LISTEN_PID), which a Go parent cannot know before os/exec
// starts the child; hence a variable of our own that names each socket by its address.
//
// A process started any other way (production, a test) binds its addresses itself.
package listen

import (
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// EnvVar lists the sockets a process inherited: address=descriptor pairs, comma-separated, e.g.
// "127.0.0.1:40123=3,127.0.0.1:40124=4". The address is the one the process is configured to
// serve on, character for character.
const EnvVar = "THUMELA_LISTEN_FDS"

var (
	inheritedOnce sync.Once
	inheritedMu   sync.Mutex
	inherited     map[string]uintptr
)

// TCP is a listener on addr: the socket inherited for addr when the parent passed one (once; a
// second call binds), else a new one.
func TCP(addr string) (net.Listener, error) {
	if fd, ok := take(addr); ok {
		f := os.NewFile(fd, "inherited listener "+addr)
		ln, err := net.FileListener(f) // a duplicate of the descriptor: f's own is closed below
		_ = f.Close()
		if err != nil {
			return nil, fmt.Errorf("listen: inherited socket for %s: %w", addr, err)
		}
		return ln, nil
	}
	return net.Listen("tcp", addr)
}

// take removes and returns the descriptor inherited for addr, if any.
func take(addr string) (uintptr, bool) {
	inheritedOnce.Do(func() { inherited = parse(os.Getenv(EnvVar)) })
	inheritedMu.Lock()
	defer inheritedMu.Unlock()
	fd, ok := inherited[addr]
	delete(inherited, addr)
	return fd, ok
}

// parse reads EnvVar's value; a malformed pair is skipped (the address is then bound anew,
// and a port in use says so).
func parse(v string) map[string]uintptr {
	out := map[string]uintptr{}
	for pair := range strings.SplitSeq(v, ",") {
		addr, fd, ok := strings.Cut(pair, "=")
		if !ok || addr == "" {
			continue
		}
		n, err := strconv.ParseUint(fd, 10, 31)
		if err != nil || n < 3 {
			continue
		}
		out[addr] = uintptr(n)
	}
	return out
}

// Hand arranges for cmd, not yet started, to inherit each listener under the address it will
// be told to serve on (the key of lns). release closes the parent's copies of the sockets (the
// listeners too); call it once cmd has started, or failed to. The child then holds the only
// copy, so a child that dies takes its port with it, and its callers are refused, as by any
// other dead server, rather than left waiting on a socket nobody accepts on.
func Hand(cmd *exec.Cmd, lns map[string]*net.TCPListener) (release func(), err error) {
	var files []*os.File
	release = func() {
		for _, f := range files {
			_ = f.Close()
		}
		for _, ln := range lns {
			_ = ln.Close()
		}
	}
	var pairs []string
	for _, addr := range slices.Sorted(maps.Keys(lns)) {
		f, err := lns[addr].File() // a duplicate of the socket, which closing the listener leaves open
		if err != nil {
			release()
			return nil, fmt.Errorf("listen: socket for %s: %w", addr, err)
		}
		files = append(files, f)
		// ExtraFiles[i] becomes descriptor 3+i in the child.
		pairs = append(pairs, fmt.Sprintf("%s=%d", addr, 3+len(cmd.ExtraFiles)))
		cmd.ExtraFiles = append(cmd.ExtraFiles, f)
	}
	if len(pairs) > 0 {
		env := cmd.Env
		if env == nil {
			env = os.Environ() // what exec.Cmd would have given the child
		}
		cmd.Env = append(withoutVar(env), EnvVar+"="+strings.Join(pairs, ","))
	}
	return release, nil
}

// withoutVar is env without any EnvVar entry (a restarted child gets new sockets).
func withoutVar(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, EnvVar+"=") {
			out = append(out, kv)
		}
	}
	return out
}
