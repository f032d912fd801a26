package memtrim

import "testing"

func TestTrimsOnceAfterABurst(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	tr := New(Config{}, 0)
	type step struct {
		allocated, goroutines uint64
		want                  bool
	}
	var steps []step
	at := func(allocated, goroutines uint64, n int, wantLast bool) {
		for i := range n {
			steps = append(steps, step{allocated + uint64(i), goroutines, wantLast && i == n-1})
		}
	}
	at(0, 50, 40, false)            // idle from the start: nothing to give back
	at(40*mib, 50, 1, false)        // a burst
	at(80*mib, 50, 1, false)        // still busy
	at(80*mib+1000, 50, 3, true)    // three quiet ticks after enough allocation: trim
	at(80*mib+2000, 50, 40, false)  // still quiet: already trimmed
	at(90*mib, 50, 1, false)        // light traffic
	at(90*mib+10, 50, 40, false)    // quiet, but under MinBytes since the trim
	at(110*mib, 50, 1, false)       // busy again
	at(110*mib+10, 50, 1, false)    // one slow second is not the end of a burst
	at(112*mib, 50, 1, false)       // busy
	at(112*mib+10, 50, 3, true)     // quiet: trim
	at(200*mib, 10050, 1, false)    // 10,000 streams open
	at(200*mib+10, 10050, 3, false) // quiet, but under MinInterval since the last trim
	at(202*mib, 60, 1, false)       // the streams closed, 2 MiB allocated
	at(202*mib+10, 60, 1, true)     // the first quiet tick: trim at once
	at(202*mib+20, 100, 3, false)   // a few goroutines come and go: nothing
	at(202*mib+30, 20, 3, false)
	at(300*mib, 20, 1, false)    // 98 MiB within MinInterval of the last trim
	at(300*mib+10, 20, 5, false) // quiet, but neither MinInterval nor BurstBytes
	at(600*mib, 20, 1, false)    // a burst of step-ups: argon2id, 19 MiB a hash
	at(600*mib+10, 20, 3, true)  // quiet after BurstBytes: trim, MinInterval or not
	at(600*mib+20, 20, 40, false)
	for i, s := range steps {
		if got := tr.Tick(s.allocated, s.goroutines); got != s.want {
			t.Fatalf("step %d (%d bytes, %d goroutines): trim = %v, want %v", i, s.allocated, s.goroutines, got, s.want)
		}
	}
}
