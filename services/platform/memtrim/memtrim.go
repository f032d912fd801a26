// Package memtrim gives a process's idle heap back to the operating system once a burst is
// over. Every service runs it (platform/service), and the BFF.
//
// Go frees dead objects only at a garbage collection, and a collection runs when the heap has
// grown by GOGC % since the last one. After a burst (a load of requests, or thousands of live
// streams that then close) the process goes quiet with the heap goal set by the burst: nothing
// triggers the next collection, the dead streams are never freed, and the runtime's background
// scavenger keeps the pages it thinks the next cycle will need. The process then sits at its
// burst's size for minutes (the BFF at 81–90 MiB resident after `make bench`, against 22 MiB
// idle; identity at 131 MiB after a burst of sign-ins, each argon2id hash 19 MiB).
//
// The trimmer watches the allocation rate and the goroutines. Once the process has been quiet
// for a tick after enough allocation, or after many goroutines (streams) ended, it collects and
// returns the free pages at once (debug.FreeOSMemory).
// Under load it does nothing: the allocation rate is far above the quiet bound, so it never
// adds a collection to the runtime's own. Idle, it does nothing either: no allocation, no
// trim. Its cost is one forced collection of a small heap per burst.
package memtrim

import (
	"context"
	"log/slog"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Config tunes the trimmer; zero values take the defaults.
type Config struct {
	// Interval is how often the allocation rate is read (default 1 s).
	Interval time.Duration
	// QuietBytes: a tick that allocated less than this is quiet (default 1 MiB).
	QuietBytes uint64
	// MinBytes is how much must have been allocated since the last trim for another (default
	// 16 MiB): a process under light traffic trims at most once per that much allocation.
	MinBytes uint64
	// QuietTicks is how many quiet ticks in a row make the process quiet (default 3). A process
	// starved of CPU allocates slowly too; one slow second must not pass for the end of a burst.
	QuietTicks int
	// MinInterval is the least time between two trims for allocation alone (default 30 s); the
	// end of many goroutines is not held back by it, nor is a burst of BurstBytes.
	MinInterval time.Duration
	// BurstBytes of allocation since the last trim make a burst whose end is trimmed however
	// soon after the last trim it comes (default 256 MiB): MinInterval keeps light traffic from
	// forcing a collection every few seconds, but a burst of this size (a dozen argon2id
	// hashes) leaves a heap worth giving back at once.
	BurstBytes uint64
}

func (c Config) withDefaults() Config {
	if c.Interval <= 0 {
		c.Interval = time.Second
	}
	if c.QuietBytes == 0 {
		c.QuietBytes = 1 << 20
	}
	if c.MinBytes == 0 {
		c.MinBytes = 16 << 20
	}
	if c.QuietTicks <= 0 {
		c.QuietTicks = 3
	}
	if c.MinInterval <= 0 {
		c.MinInterval = 30 * time.Second
	}
	if c.BurstBytes == 0 {
		c.BurstBytes = 256 << 20
	}
	return c
}

// Metrics the trimmer reads once per tick.
var samples = []string{"/gc/heap/allocs:bytes", "/sched/goroutines:goroutines"}

func read() (allocated, goroutines uint64) {
	s := make([]metrics.Sample, len(samples))
	for i, name := range samples {
		s[i].Name = name
	}
	metrics.Read(s)
	out := [2]uint64{}
	for i := range s {
		if s[i].Value.Kind() == metrics.KindUint64 {
			out[i] = s[i].Value.Uint64()
		}
	}
	return out[0], out[1]
}

// Trimmer decides when to trim from the cumulative bytes allocated and the goroutines alive,
// read once per tick.
type Trimmer struct {
	cfg       Config
	last      uint64 // allocated at the previous tick
	trimmedAt uint64 // allocated at the last trim
	peak      uint64 // most goroutines seen since the last trim
	quiet     int    // quiet ticks in a row
	ticks     int    // ticks since the last trim
}

// New returns a trimmer that starts counting from allocatedNow.
func New(cfg Config, allocatedNow uint64) *Trimmer {
	return &Trimmer{cfg: cfg.withDefaults(), last: allocatedNow, trimmedAt: allocatedNow}
}

// Tick takes the bytes allocated so far and the goroutines alive, and reports whether to trim
// now: once QuietTicks quiet ticks in a row follow MinBytes of allocation since the last trim
// (and MinInterval has passed since it, or BurstBytes were allocated), or on the first quiet
// tick after a quarter of the goroutines (at least 100) ended since their peak. The second is
// what closing streams looks like: it frees much and allocates little, so allocation alone
// would not see it.
func (t *Trimmer) Tick(allocatedNow, goroutines uint64) bool {
	t.ticks++
	if allocatedNow-t.last < t.cfg.QuietBytes {
		t.quiet++
	} else {
		t.quiet = 0
	}
	t.last = allocatedNow
	t.peak = max(t.peak, goroutines)
	ended := t.peak-goroutines >= 100 && goroutines*4 < t.peak*3
	since := allocatedNow - t.trimmedAt
	enough := since >= t.cfg.MinBytes &&
		(time.Duration(t.ticks)*t.cfg.Interval >= t.cfg.MinInterval || since >= t.cfg.BurstBytes)
	// The end of many goroutines needs one quiet tick only: unlike a low allocation rate, it
	// cannot come from the process being starved of CPU.
	if (t.quiet >= t.cfg.QuietTicks && enough) || (t.quiet >= 1 && ended) {
		t.trimmedAt, t.peak, t.ticks = allocatedNow, goroutines, 0
		return true
	}
	return false
}

// Run trims until ctx ends.
func Run(ctx context.Context, cfg Config, logger *slog.Logger) error {
	allocated, _ := read()
	t := New(cfg, allocated)
	tick := time.NewTicker(t.cfg.Interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			if t.Tick(read()) {
				began := time.Now()
				// Two collections: the first moves the sync.Pools' contents (net/http's
				// per-stream response buffers, 4 KiB each; Connect's and gzip's buffers) to
				// their victim caches, the second frees them; FreeOSMemory then returns every
				// free page. One collection left ≈ 60 MiB of pooled buffers after 10,000
				// streams closed.
				runtime.GC()
				debug.FreeOSMemory()
				logger.Debug("returned the idle heap to the system", "took", time.Since(began))
			}
		}
	}
}
