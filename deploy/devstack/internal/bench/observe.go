package bench

import (
	"fmt"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strings"
)

// loadGenerator names this process in the CPU figures: it drives the load and runs NATS.
const loadGenerator = "thumela-bench (load, NATS)"

// What each phase cost the machine: meter before it, cpu after it, both under raw.cpu; and what
// the services answered during it, from the stack log (logSize before it, rpcs after it), under
// raw.rpc_server_ms.

func (r *runner) meter() *CPUMeter {
	var backends BackendNamer
	if r.backends != nil {
		backends = r.backends.group
	}
	return StartCPUMeter(r.pids, loadGenerator, r.databases, backends)
}

func (r *runner) cpu(phase string, m *CPUMeter) CPUUsage {
	usage, _ := r.raw["cpu"].(map[string]CPUUsage)
	if usage == nil {
		usage = map[string]CPUUsage{}
		r.raw["cpu"] = usage
	}
	u := m.Stop()
	usage[phase] = u
	r.step("  cores used during %s: %s", phase, formatShares(u.Cores))
	if others := u.Cores[Others]; others > 0.25 {
		r.noisy = append(r.noisy, fmt.Sprintf("%s (%.2f cores)", phase, others))
	}
	return u
}

func (r *runner) logSize() int64 {
	if fi, err := os.Stat(r.logPath); err == nil {
		return fi.Size()
	}
	return 0
}

func (r *runner) rpcs(phase string, from int64) []RPCStat {
	stats, err := RPCBreakdown(r.logPath, from, r.logSize())
	if err != nil || len(stats) == 0 {
		return nil
	}
	all, _ := r.raw["rpc_server_ms"].(map[string][]RPCStat)
	if all == nil {
		all = map[string][]RPCStat{}
		r.raw["rpc_server_ms"] = all
	}
	all[phase] = stats
	parts := []string{}
	for _, st := range stats[:min(4, len(stats))] {
		parts = append(parts, fmt.Sprintf("%s.%s ×%d p50 %.1f p99 %.1f", st.Service, st.Method, st.Count, st.P50ms, st.P99ms))
	}
	r.step("  server-side ms during %s: %s", phase, strings.Join(parts, "; "))
	return stats
}

// formatShares lists the processes that used a noticeable share of a core, busiest first.
func formatShares(share map[string]float64) string {
	names := make([]string, 0, len(share))
	for name, v := range share {
		if v >= 0.01 && name != Machine {
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
	if m, ok := share[Machine]; ok {
		parts = append(parts, fmt.Sprintf("(machine %.2f of %d)", m, runtime.NumCPU()))
	}
	return strings.Join(parts, ", ")
}

func databaseName(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(parsed.Path, "/")
}
