package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPercentileIsNearestRank(t *testing.T) {
	t.Parallel()
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	for p, want := range map[float64]time.Duration{50: 50 * time.Millisecond, 99: 99 * time.Millisecond, 100: 100 * time.Millisecond, 0: time.Millisecond} {
		if got := Percentile(d, p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
	if got := Percentile(nil, 50); got != 0 {
		t.Errorf("empty = %v", got)
	}
}

func TestParsePgbenchLogs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// client_id transaction_no time script_no time_epoch time_us
	thread0 := "0 1 1000 0 100 500000\n1 1 3000 0 100 900000\n0 2 failed 0 101 0\n"
	thread1 := "2 1 2000 0 101 499000\n"
	for name, body := range map[string]string{"log.123": thread0, "log.123.1": thread1} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := parsePgbenchLogs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if res.Count != 3 || res.Errors != 1 {
		t.Fatalf("count %d errors %d, want 3 and 1", res.Count, res.Errors)
	}
	// First start 100.499 s, last end 101.499 s: a one-second window.
	if res.Seconds < 0.999 || res.Seconds > 1.001 || res.TPS < 2.99 || res.TPS > 3.01 {
		t.Fatalf("window %v s, %v tps; want 1 s and 3 tps", res.Seconds, res.TPS)
	}
	if res.P50ms != 2 || res.P99ms != 3 {
		t.Fatalf("p50 %v p99 %v, want 2 and 3", res.P50ms, res.P99ms)
	}
}

func TestLandingJSCountsScriptsAndPreloadsOnly(t *testing.T) {
	t.Parallel()
	dist := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dist, "assets"), 0o755); err != nil {
		t.Fatal(err)
	}
	html := `<html><head><script src="/theme.js"></script>
<script type="module" crossorigin src="/assets/index.js"></script>
<link rel="modulepreload" crossorigin href="/assets/chunk.js">
<link rel="stylesheet" href="/assets/index.css"></head></html>`
	files := map[string]string{
		"index.html":       html,
		"theme.js":         "var a=1;",
		"assets/index.js":  strings.Repeat("export const x = 1;\n", 100),
		"assets/chunk.js":  "export const y = 2;",
		"assets/lazy.js":   strings.Repeat("z", 100000),
		"assets/index.css": "body{}",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dist, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, total, err := LandingJS(dist)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("files %+v, want theme.js, index.js and chunk.js", got)
	}
	sum := 0
	for _, f := range got {
		sum += f.GzipBytes
		if f.GzipBytes <= 0 || f.Path == "assets/lazy.js" {
			t.Errorf("unexpected %+v", f)
		}
	}
	if sum != total {
		t.Errorf("total %d, sum %d", total, sum)
	}
}

func TestRPCBreakdown(t *testing.T) {
	t.Parallel()
	log := `transfers      | {"level":"INFO","msg":"rpc","service":"transfers","grpc.method":"/thumela.transfers.v1.TransfersService/CreateTransfer","grpc.code":"OK","grpc.duration_ms":10}
fees           | {"level":"INFO","msg":"rpc","service":"fees","grpc.method":"/thumela.fees.v1.FeesService/Quote","grpc.code":"OK","grpc.duration_ms":1}
transfers      | {"level":"INFO","msg":"rpc","service":"transfers","grpc.method":"/thumela.transfers.v1.TransfersService/CreateTransfer","grpc.code":"OK","grpc.duration_ms":30}
bff            | {"level":"INFO","msg":"listening"}
`
	path := filepath.Join(t.TempDir(), "stack.log")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	stats, err := RPCBreakdown(path, 0, int64(len(log)))
	if err != nil {
		t.Fatal(err)
	}
	if len(stats) != 2 || stats[0].Method != "CreateTransfer" || stats[0].Count != 2 || stats[0].MeanMs != 20 {
		t.Fatalf("stats %+v", stats)
	}
}

func TestProcCPUReadsThisProcess(t *testing.T) {
	t.Parallel()
	comm, secs, err := procCPU(os.Getpid())
	if err != nil {
		t.Skip("no /proc:", err)
	}
	if comm == "" || secs < 0 {
		t.Fatalf("comm %q secs %v", comm, secs)
	}
	if _, err := machineBusy(); err != nil {
		t.Fatal(err)
	}
	if rss, err := RSS(os.Getpid()); err != nil || rss <= 0 {
		t.Fatalf("rss %d, %v", rss, err)
	}
}

// Bench users' names take letters only (identity refuses digits in names): distinct per user.
func TestLettersNameEveryUser(t *testing.T) {
	seen := map[string]bool{}
	for i, want := range map[int]string{0: "A", 25: "Z", 26: "AA", 27: "AB", 701: "ZZ", 702: "AAA"} {
		if got := letters(i); got != want {
			t.Errorf("letters(%d) = %q, want %q", i, got, want)
		}
	}
	for i := range 2000 {
		s := letters(i)
		if seen[s] {
			t.Fatalf("letters(%d) = %q again", i, s)
		}
		seen[s] = true
	}
}
