package bench

import (
	"math"
	"slices"
	"testing"
	"time"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestCPUPerOperation(t *testing.T) {
	t.Parallel()
	// 10 s in which the stack used 1.5 cores and pgbench 0.3 (client and backends): the stack's
	// share is 15 core-seconds; over 1,000 operations, 15 ms each.
	u := CPUUsage{Wall: 10, Cores: map[string]float64{
		"transfers": 1.0, StackDB: 0.5, PgbenchDB: 0.2, PgbenchClient: 0.1, Machine: 1.9, Others: 0.1,
	}}
	if got := StackMsPer(u, 1000); !near(got, 15) {
		t.Errorf("StackMsPer = %v, want 15", got)
	}
	b := CPUUsage{Wall: 10, Cores: map[string]float64{PgbenchDB: 1.2, PgbenchClient: 0.3, PostgresServer: 0.1, "transfers": 0.05}}
	if got := PgbenchMsPer(b, 40000); !near(got, 0.4) {
		t.Errorf("PgbenchMsPer = %v, want 0.4", got)
	}
	if StackMsPer(u, 0) != 0 || PgbenchMsPer(b, 0) != 0 {
		t.Error("no operation must give 0, not a division by zero")
	}
}

func TestSustainedFigures(t *testing.T) {
	t.Parallel()
	r := SustainedResult{Summary: Summary{Count: 6000, Seconds: 30, TPS: 200, Total: 6400}}
	u := CPUUsage{Wall: 32, Cores: map[string]float64{"transfers": 1.0, StackDB: 0.6}}
	base := PgbenchResult{Summary: Summary{TPS: 4000, Count: 40000}}
	bu := CPUUsage{Wall: 10, Cores: map[string]float64{PgbenchDB: 1.5, PgbenchClient: 0.5}}
	f := SustainedFigures(r, 32, u, base, bu, true)
	if len(f) != 2 {
		t.Fatalf("%d rows, want 2", len(f))
	}
	if !near(*f[0].Ratio, 0.05) || f[0].Result != Miss {
		t.Errorf("throughput ratio %v %s, want 0.05 MISS", *f[0].Ratio, f[0].Result)
	}
	// 1.6 cores × 32 s / 6,400 transfers = 8 ms; pgbench 2 cores × 10 s / 40,000 = 0.5 ms.
	if !near(*f[1].Measured, 8) || !near(*f[1].Baseline, 0.5) || !near(*f[1].Ratio, 16) || f[1].Result != Miss {
		t.Errorf("CPU row %v / %v = %v %s, want 8 / 0.5 = 16 MISS", *f[1].Measured, *f[1].Baseline, *f[1].Ratio, f[1].Result)
	}
	r.Errors = 1
	r.TPS = 500
	if f := SustainedFigures(r, 32, u, base, bu, true); f[0].Result != Miss {
		t.Errorf("a phase with errors passed: %s", f[0].Result)
	}
}

func TestHeavyFigures(t *testing.T) {
	t.Parallel()
	f := HeavyFigures(Summary{Count: 900, TPS: 90}, Summary{Count: 1000, TPS: 100}, 8, 5000, 0)
	if !near(*f.Ratio, 0.9) || f.Result != Pass || f.Name != "2d. create TPS, 5,000 earlier ÷ new senders" {
		t.Errorf("%q ratio %v %s, want 0.9 PASS", f.Name, *f.Ratio, f.Result)
	}
	if f := HeavyFigures(Summary{}, Summary{Count: 1, TPS: 1}, 8, 5000, 0); f.Result != Error {
		t.Errorf("no heavy call: %s, want ERROR", f.Result)
	}
}

func TestWaiterHandsOverEarlyAndLateStatuses(t *testing.T) {
	t.Parallel()
	w := &waiter{waiting: map[string]chan bool{}, finished: map[string]bool{}}
	w.done("early", true) // the event beat CreateTransfer's answer
	if !<-w.wait("early") {
		t.Error("early: want completed")
	}
	ch := w.wait("late")
	w.done("late", false)
	if <-ch {
		t.Error("late: want failed")
	}
	if len(w.waiting)+len(w.finished) != 0 {
		t.Errorf("left behind: %v %v", w.waiting, w.finished)
	}
}

func TestEventFiguresJudgeTheLevels(t *testing.T) {
	t.Parallel()
	ev := EventsResult{Streams: 10000, Observed: 300, Expected: 300, Latency: Summary{Count: 300, P50ms: 12, P99ms: 40}}
	rows := EventFigures(10000, ev, nil, false)
	if rows[0].Name != "4. live event p99, 10,000 streams" || rows[0].Result != Pass {
		t.Errorf("first row %q %s, want the p99 PASS", rows[0].Name, rows[0].Result)
	}
	if rows[1].Result != Info {
		t.Errorf("p50 above the target level is %s, want info", rows[1].Result)
	}
	rows = EventFigures(1000, ev, nil, true)
	if rows[0].Name != "4. live event p50, 1,000 streams" || rows[0].Result != Miss {
		t.Errorf("first row %q %s, want the p50 MISS (12 > 10 ms)", rows[0].Name, rows[0].Result)
	}
	if f := StreamsMemoryFigure(10000, 300<<20); f.Result != Miss || !near(*f.Measured, 300) {
		t.Errorf("memory %v %s, want 300 MISS", *f.Measured, f.Result)
	}
}

func names(rows []Figure) []string {
	out := make([]string, len(rows))
	for i, f := range rows {
		out[i] = f.Name
	}
	return out
}

func TestLoadFiguresJudgeAgainstTheBaseline(t *testing.T) {
	t.Parallel()
	base := PgbenchResult{Summary: Summary{TPS: 1000, P50ms: 2, P99ms: 10}}
	s := Summary{Count: 5000, Seconds: 10, TPS: 500, P50ms: 5, P99ms: 15}
	rows := loadFigures("2. create-transfer", ", 32 senders", 32, s, base, true, 0.40, 2.0)
	if want := []string{"2. create-transfer TPS, 32 senders", "2. create-transfer p99, 32 senders", "   create-transfer p50, 32 senders"}; !slices.Equal(names(rows), want) {
		t.Fatalf("rows %q, want %q", names(rows), want)
	}
	if !near(*rows[0].Ratio, 0.5) || rows[0].Result != Pass || rows[0].Level != 32 {
		t.Errorf("TPS ratio %v %s level %d, want 0.5 PASS 32", *rows[0].Ratio, rows[0].Result, rows[0].Level)
	}
	if !near(*rows[1].Ratio, 1.5) || rows[1].Result != Pass || rows[1].Target != "≤ 2.00" {
		t.Errorf("p99 ratio %v %s %q, want 1.5 PASS ≤ 2.00", *rows[1].Ratio, rows[1].Result, rows[1].Target)
	}
	if !near(*rows[2].Ratio, 2.5) || rows[2].Result != Info {
		t.Errorf("p50 ratio %v %s, want 2.5 info", *rows[2].Ratio, rows[2].Result)
	}

	s.Errors = 3
	if rows := loadFigures("2. create-transfer", "", 0, s, base, true, 0.40, 2.0); rows[0].Result != Miss {
		t.Errorf("a phase with errors: %s, want MISS", rows[0].Result)
	}

	// The history page: p99 is information, after p50.
	rows = loadFigures("3. history page", "", 0, Summary{Count: 10, TPS: 200, P50ms: 1, P99ms: 3}, base, true, 0.25, 0)
	if want := []string{"3. history page TPS", "   history page p50", "   history page p99"}; !slices.Equal(names(rows), want) {
		t.Fatalf("rows %q, want %q", names(rows), want)
	}
	if rows[0].Result != Miss || rows[2].Result != Info || rows[2].Target != "" {
		t.Errorf("TPS %s, p99 %s %q; want MISS (0.2 < 0.25), info without a target", rows[0].Result, rows[2].Result, rows[2].Target)
	}

	if rows := loadFigures("3. history page", "", 0, Summary{Count: 10, TPS: 200}, base, false, 0.25, 0); rows[0].Result != Error || rows[0].Ratio != nil {
		t.Errorf("no baseline: %s ratio %v, want ERROR and none", rows[0].Result, rows[0].Ratio)
	}
	rows = loadFigures("3. history page", "", 0, Summary{ErrorSamples: []string{"unavailable"}}, base, true, 0.25, 0)
	if len(rows) != 1 || rows[0].Result != Error || rows[0].Target != "≥ 0.25 × (1b)" || rows[0].Error != "no successful call: unavailable" {
		t.Errorf("no call: %+v", rows)
	}
}

func TestLevelFiguresCompareWithBothBaselines(t *testing.T) {
	t.Parallel()
	lv := createLevel{Senders: 8, Summary: Summary{Count: 800, Seconds: 5, TPS: 160, P50ms: 4, P99ms: 20},
		Pgbench: &PgbenchResult{Summary: Summary{TPS: 800, P50ms: 1, P99ms: 4}}}
	rows := levelFigures(lv, PgbenchResult{Summary: Summary{TPS: 1600, P50ms: 2, P99ms: 8}}, true)
	if want := []string{"   create-transfer TPS, 8 senders", "   create-transfer p50, 8 senders", "   create-transfer p99, 8 senders", "   vs pgbench at 8 clients"}; !slices.Equal(names(rows), want) {
		t.Fatalf("rows %q, want %q", names(rows), want)
	}
	for i, want := range []float64{0.1, 2, 2.5, 0.2} {
		if !near(*rows[i].Ratio, want) || rows[i].Result != Info || rows[i].Level != 8 {
			t.Errorf("%s: ratio %v %s level %d, want %v info 8", rows[i].Name, *rows[i].Ratio, rows[i].Result, rows[i].Level, want)
		}
	}
	if rows[3].Text != "p50 ×4.0, p99 ×5.0 (pgbench p50 1.0, p99 4.0 ms)" {
		t.Errorf("text %q", rows[3].Text)
	}
	lv.Pgbench = nil
	if rows := levelFigures(lv, PgbenchResult{}, false); len(rows) != 3 || rows[0].Ratio != nil {
		t.Errorf("without baselines: %d rows, ratio %v; want 3 and none", len(rows), rows[0].Ratio)
	}
	if rows := levelFigures(createLevel{Senders: 1}, PgbenchResult{}, false); len(rows) != 1 || rows[0].Result != Error || rows[0].Level != 1 {
		t.Errorf("no call: %+v", rows)
	}
}

func TestCPUPerCallAndCatchUpFigures(t *testing.T) {
	t.Parallel()
	u := CPUUsage{Wall: 10, Cores: map[string]float64{"transfers": 1.5, StackDB: 0.5}}
	bu := CPUUsage{Wall: 10, Cores: map[string]float64{PgbenchDB: 1.5, PgbenchClient: 0.5}}
	rows := cpuPerCallFigures("create-transfer", Summary{Total: 2000}, u, PgbenchResult{Summary: Summary{Count: 40000}}, bu, true)
	// 2 cores × 10 s / 2,000 calls = 10 ms; pgbench 2 cores × 10 s / 40,000 = 0.5 ms.
	if len(rows) != 1 || rows[0].Name != "   CPU per create-transfer call" || !near(*rows[0].Measured, 10) || !near(*rows[0].Ratio, 20) {
		t.Fatalf("%+v, want 10 ms, 20 pgbench transactions", rows)
	}
	if rows := cpuPerCallFigures("history page", Summary{}, u, PgbenchResult{}, bu, true); len(rows) != 0 {
		t.Errorf("no call made a row: %+v", rows)
	}

	charges := []RPCStat{{Service: "transfers", Method: "CreateTransfer", Count: 10}, {Service: "paymentmethods", Method: "Charge", Count: 500}}
	rows = catchUpFigures(2500*time.Millisecond, 0, charges, CPUUsage{Wall: 2.5, Cores: map[string]float64{"transfers": 1, PgbenchDB: 0.5}})
	if len(rows) != 2 || rows[0].Text != "2.5 s" || !near(*rows[1].Measured, 5) {
		t.Fatalf("%+v, want 2.5 s and 1 core × 2.5 s / 500 charges = 5 ms", rows)
	}
	if rows := catchUpFigures(120*time.Second, 7, nil, CPUUsage{}); len(rows) != 1 || rows[0].Text != "7 still unfinished after 120 s" {
		t.Errorf("%+v", rows)
	}
}

func TestBaselineFigures(t *testing.T) {
	t.Parallel()
	transfer := PgbenchResult{Summary: Summary{TPS: 4000, P50ms: 1.25, P99ms: 6}}
	if f := transferBaselineFigure(transfer); f.Text != "4000 tps, p50 1.2 ms, p99 6.0 ms" || f.Result != Info {
		t.Errorf("1a: %q %s", f.Text, f.Result)
	}
	if f := historyBaselineFigure(transfer); f.Name != "1b. pgbench 10-newest read (baseline)" || f.Text != "4000 tps, p50 1.25 ms, p99 6.00 ms" {
		t.Errorf("1b: %q %q", f.Name, f.Text)
	}
	if f := notifyFigure(PgbenchResult{Summary: Summary{TPS: 3000}}, transfer); !near(*f.Ratio, 0.75) || f.Result != Info {
		t.Errorf("notify ratio %v %s, want 0.75 info", *f.Ratio, f.Result)
	}
}

func TestSignInFigure(t *testing.T) {
	t.Parallel()
	argon := Summary{Count: 25, P50ms: 40}
	f := signInFigure(Summary{Count: 25, P50ms: 50}, argon, 0)
	if !near(*f.Ratio, 1.25) || f.Result != Pass {
		t.Errorf("ratio %v %s, want 1.25 PASS", *f.Ratio, f.Result)
	}
	if f := signInFigure(Summary{Count: 24, P50ms: 50}, argon, 1); f.Result != Miss {
		t.Errorf("a failed sign-in: %s, want MISS", f.Result)
	}
	if f := signInFigure(Summary{Count: 25, P50ms: 70}, argon, 0); f.Result != Miss {
		t.Errorf("ratio 1.75: %s, want MISS", f.Result)
	}
	if f := signInFigure(Summary{}, argon, 27); f.Result != Error || f.Error != "27 sign-ins failed" {
		t.Errorf("no sign-in: %s %q", f.Result, f.Error)
	}
}

func TestLandingJSFigure(t *testing.T) {
	t.Parallel()
	files := []JSFile{{Path: "assets/index.js", GzipBytes: 100000, How: "module script"}, {Path: "assets/vendor.js", GzipBytes: 60000, How: "modulepreload"}}
	f := landingJSFigure(files, 160000)
	if !near(*f.Measured, 160) || f.Result != Miss || f.Detail != "assets/index.js 100.0 kB (module script), assets/vendor.js 60.0 kB (modulepreload)" {
		t.Errorf("%v %s %q, want 160 MISS", *f.Measured, f.Result, f.Detail)
	}
	if f := landingJSFigure(files[:1], 100000); f.Result != Pass {
		t.Errorf("100 kB: %s, want PASS", f.Result)
	}
}

func TestMemoryFigures(t *testing.T) {
	t.Parallel()
	idle, after := map[string]int64{}, map[string]int64{}
	for _, name := range goProcesses {
		idle[name], after[name] = 20<<20, 30<<20
	}
	after["transfers"] = 80 << 20
	delete(idle, "fees")
	rows := memoryFigures(idle, after, map[string]int64{"bff": 100 << 20})
	if len(rows) != len(goProcesses) {
		t.Fatalf("%d rows, want one per Go process (%d)", len(rows), len(goProcesses))
	}
	for _, f := range rows {
		switch f.Name {
		case "7. memory transfers":
			if !near(*f.Measured, 80) || f.Result != Miss || f.Text != "idle 20.0 / after 80.0 MiB" {
				t.Errorf("transfers: %v %s %q, want the larger, 80, MISS", *f.Measured, f.Result, f.Text)
			}
		case "7. memory fees":
			if f.Result != Error {
				t.Errorf("fees without an idle reading: %s, want ERROR", f.Result)
			}
		case "   memory bff":
			if f.Result != Pass || f.Text != "idle 20.0 / after 30.0 MiB (100.0 with the streams open)" || f.Detail == "" {
				t.Errorf("bff: %s %q %q", f.Result, f.Text, f.Detail)
			}
		default:
			if f.Result != Pass {
				t.Errorf("%s: %s, want PASS", f.Name, f.Result)
			}
		}
	}
}
