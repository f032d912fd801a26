package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times: 100 on every Linux the stack
// runs on.
const clockTicks = 100

// CPUSample is the CPU time (user + system, seconds) each watched process has used so far, taken
// at one moment; two samples give each process's share of a phase.
type CPUSample struct {
	At      time.Time
	Seconds map[string]float64
}

// Machine names the whole machine's busy time (all CPUs, from /proc/stat): comparing it with
// the watched processes shows how much of the machine something else used during a phase.
const Machine = "machine (all processes)"

// Others is the machine's busy time not accounted for by the watched processes: other work on
// a shared machine (PostgreSQL backends of other databases count as ours).
const Others = "other processes"

// PostgresAll names the sum over every process called postgres on the machine (the server and
// all its backends), read the same way.
const PostgresAll = "postgres (all processes)"

// SampleCPU reads the CPU time of the named processes, of this process, and of every postgres
// process.
func SampleCPU(pids map[string]int, self string) CPUSample {
	s := CPUSample{At: time.Now(), Seconds: map[string]float64{}}
	for name, pid := range pids {
		if name == "postgres" {
			continue // counted with all the others below
		}
		if _, secs, err := procCPU(pid); err == nil {
			s.Seconds[name] = secs
		}
	}
	if _, secs, err := procCPU(os.Getpid()); err == nil {
		s.Seconds[self] = secs
	}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	total := 0.0
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		if comm, secs, err := procCPU(pid); err == nil && comm == "postgres" {
			total += secs
		}
	}
	s.Seconds[PostgresAll] = total
	if busy, err := machineBusy(); err == nil {
		s.Seconds[Machine] = busy
	}
	return s
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
	for i, f := range fields[1:] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		if i >= 8 { // guest times are already counted in user
			break
		}
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, err
		}
		busy += v
	}
	return float64(busy) / clockTicks, nil
}

// CPUShare is, per process, the cores it used on average between two samples (1.0 = one core
// busy the whole time). Processes that started or ended in between are undercounted.
func CPUShare(a, b CPUSample) map[string]float64 {
	wall := b.At.Sub(a.At).Seconds()
	out := map[string]float64{}
	if wall <= 0 {
		return out
	}
	ours := 0.0
	for name, end := range b.Seconds {
		out[name] = round3((end - a.Seconds[name]) / wall)
		if name != Machine {
			ours += out[name]
		}
	}
	if m, ok := out[Machine]; ok {
		out[Others] = round3(max(0, m-ours))
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
	// fields[0] is the state (field 3 of stat(5)); utime and stime are fields 14 and 15.
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
