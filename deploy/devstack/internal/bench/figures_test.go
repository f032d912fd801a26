package bench

import (
	"math"
	"testing"
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
