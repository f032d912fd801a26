package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc's CPU times: 100 on every Linux the stack runs on.
const clockTicks = 100

// Names of the CPU meter's groups besides the stack's processes.
const (
	// Machine is the whole machine's busy time (all CPUs, from /proc/stat).
	Machine = "machine (all processes)"
	// PostgresServer is PostgreSQL's own processes (the postmaster, writers, autovacuum):
	// shared by every database of the server. The backends of the databases the meter was told
	// about are grouped by those names; backends of other databases count as others.
	PostgresServer = "postgres server processes"
	// Pgbench is the pgbench client itself.
	PgbenchClient = "pgbench"
	// Others is the machine's busy time that none of the above accounts for: other work on a
	// shared machine.
	Others = "other processes"
)

// CPUMeter measures, for one phase, the CPU each group of processes used: the stack's children
// by name, this process, PostgreSQL, pgbench, and everything else. It samples /proc every
// 200 ms, so short-lived processes (pgbench's backends) are counted too, up to their last
// sample.
type CPUMeter struct {
	named     map[int]string
	databases map[string]string
	backends  BackendNamer
	stop      chan struct{}
	done      chan struct{}

	mu      sync.Mutex
	began   time.Time
	last    map[int]float64
	groups  map[int]string
	used    map[string]float64
	machine float64
}

// CPUUsage is what a CPUMeter measured: the phase's length and, per group, the cores used on
// average (1.0 = one core busy for the whole phase).
type CPUUsage struct {
	Wall  float64            `json:"wall_seconds"`
	Cores map[string]float64 `json:"cores"`
}

// Ours is the cores used by every group but the machine's total and the others.
func (u CPUUsage) Ours() float64 {
	total := 0.0
	for g, c := range u.Cores {
		if g != Machine && g != Others {
			total += c
		}
	}
	return total
}

// BackendNamer names the group of a PostgreSQL backend of a database the meter was told about,
// e.g. by the service that holds the connection; "" leaves it in its database's group.
type BackendNamer func(pid int) string

// StartCPUMeter starts measuring. pids names the stack's children; self names this process;
// databases maps database names to the group their PostgreSQL backends count in, and
// backends, when not nil, names a finer group for some of them.
func StartCPUMeter(pids map[string]int, self string, databases map[string]string, backends BackendNamer) *CPUMeter {
	m := &CPUMeter{named: map[int]string{os.Getpid(): self}, databases: databases, backends: backends,
		stop: make(chan struct{}), done: make(chan struct{}), last: map[int]float64{}, groups: map[int]string{}, used: map[string]float64{}}
	for name, pid := range pids {
		if name != "postgres" { // a private cluster is counted with the other postgres processes
			m.named[pid] = name
		}
	}
	m.began = time.Now()
	m.machine, _ = machineBusy()
	m.sample(true)
	go func() {
		defer close(m.done)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-t.C:
				m.sample(false)
			}
		}
	}()
	return m
}

// sample adds what each process used since its previous sample; a process first seen after
// the start counts all its CPU time (it started during the phase).
func (m *CPUMeter) sample(first bool) {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		comm, secs, err := procCPU(pid)
		if err != nil {
			continue
		}
		group, known := m.groups[pid]
		if !known {
			group = m.named[pid]
			switch {
			case group != "":
			case comm == "postgres":
				group = m.postgresGroup(pid)
			case comm == "pgbench":
				group = PgbenchClient
			}
			m.groups[pid] = group
		}
		if group == "" {
			continue
		}
		prev, seen := m.last[pid]
		m.last[pid] = secs
		switch {
		case first:
		case seen:
			m.used[group] += secs - prev
		default:
			m.used[group] += secs
		}
	}
}

// postgresGroup tells a postgres process's group from its title: "postgres: <user> <database>
// <host>(<port>) <state>" for a backend, "postgres: checkpointer" and the like for the server's
// own processes.
func (m *CPUMeter) postgresGroup(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return ""
	}
	title := strings.ReplaceAll(string(b), "\x00", " ")
	fields := strings.Fields(title)
	for _, f := range fields {
		if g, ok := m.databases[f]; ok {
			if m.backends != nil {
				if named := m.backends(pid); named != "" {
					return named
				}
			}
			return g
		}
	}
	if strings.Contains(title, "(") && strings.Contains(title, ")") || strings.Contains(title, "[local]") {
		return "" // another database's backend
	}
	return PostgresServer
}

// Stop ends the measurement.
func (m *CPUMeter) Stop() CPUUsage {
	close(m.stop)
	<-m.done
	m.sample(false)
	busy, err := machineBusy()
	m.mu.Lock()
	defer m.mu.Unlock()
	wall := time.Since(m.began).Seconds()
	out := CPUUsage{Wall: round3(wall), Cores: map[string]float64{}}
	if wall <= 0 {
		return out
	}
	ours := 0.0
	for group, secs := range m.used {
		out.Cores[group] = round3(secs / wall)
		ours += secs
	}
	if err == nil {
		out.Cores[Machine] = round3((busy - m.machine) / wall)
		out.Cores[Others] = round3(max(0, busy-m.machine-ours) / wall)
	}
	return out
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

// procCPU reads a process's command name and its user + system CPU seconds.
func procCPU(pid int) (string, float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", 0, err
	}
	s := string(b)
	open, shut := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || shut < open {
		return "", 0, fmt.Errorf("unreadable /proc/%d/stat", pid)
	}
	comm := s[open+1 : shut]
	fields := strings.Fields(s[shut+1:])
	// fields[0] is the state (field 3 of proc(5)); utime and stime are fields 14 and 15.
	if len(fields) < 13 {
		return "", 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	ut, err1 := strconv.ParseInt(fields[11], 10, 64)
	st, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return "", 0, fmt.Errorf("unreadable times in /proc/%d/stat", pid)
	}
	return comm, float64(ut+st) / clockTicks, nil
}

// machineBusy reads the seconds all CPUs have spent busy (everything but idle and iowait).
func machineBusy() (float64, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	fields := strings.Fields(line)
	if len(fields) < 8 || fields[0] != "cpu" {
		return 0, fmt.Errorf("unreadable /proc/stat")
	}
	var busy int64
	// user nice system idle iowait irq softirq steal [guest guest_nice]: guest time is already
	// part of user.
	for i, f := range fields[1:min(len(fields), 9)] {
		if i == 3 || i == 4 || i == 7 { // idle, iowait, steal (another guest's time)
			continue
		}
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, err
		}
		busy += v
	}
	return float64(busy) / clockTicks, nil
}
