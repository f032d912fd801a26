package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/thumela/thumela/deploy/devstack/internal/stack"
)

// goProcesses are the children whose memory is checked (7.).
var goProcesses = append(slices.Clone(stack.Services), "bff")

// idleMemory reads every child's memory (raw.rss_idle_bytes) once the stack has idled.
func (r *runner) idleMemory(ctx context.Context, ready stack.Ready) map[string]int64 {
	r.step("idling %s before reading memory", r.cfg.Idle)
	sleep(ctx, r.cfg.Idle)
	idle := readRSS(ready.PIDs)
	r.raw["rss_idle_bytes"] = idle
	return idle
}

// memoryAfter waits for the stack to settle after the loads and adds the memory rows (idle
// before and after).
func (r *runner) memoryAfter(ctx context.Context, ready stack.Ready, idle map[string]int64) {
	r.step("idling %s before reading memory again", r.cfg.Idle)
	sleep(ctx, r.cfg.Idle)
	after := readRSS(ready.PIDs)
	r.raw["rss_after_bytes"] = after
	open, _ := r.raw["rss_streams_open_bytes"].(map[string]int64)
	r.add(memoryFigures(idle, after, open)...)
}

func readRSS(pids map[string]int) map[string]int64 {
	out := map[string]int64{}
	for _, name := range goProcesses {
		if pid, ok := pids[name]; ok {
			if rss, err := RSS(pid); err == nil {
				out[name] = rss
			}
		}
	}
	return out
}

// RSS reads a process's resident set size (VmRSS) from /proc/<pid>/status, in bytes.
func RSS(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close() //nolint:errcheck // the file is only read; its Close error says nothing
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			fields := strings.Fields(rest) // "12345 kB"
			if len(fields) != 2 || fields[1] != "kB" {
				return 0, fmt.Errorf("unexpected VmRSS line %q", line)
			}
			kb, err := strconv.ParseInt(fields[0], 10, 64)
			if err != nil {
				return 0, err
			}
			return kb * 1024, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no VmRSS for pid %d", pid)
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
