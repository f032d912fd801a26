package bench

import (
	"context"
	"sync"
	"time"
)

// Op is one operation of a closed-loop load: worker w's i-th call (i counts from 0, warm-up
// calls included).
type Op func(ctx context.Context, w, i int) error

// ClosedLoop runs workers that each call op back to back: a warm-up, whose calls are not
// counted, then the measured window. A call counts when it started and ended inside the window;
// the throughput is those calls over the window's length, as pgbench -T counts its
// transactions. Latency is measured on the monotonic clock.
func ClosedLoop(ctx context.Context, workers int, warmup, duration time.Duration, op Op) Summary {
	begin := time.Now()
	start := begin.Add(warmup)
	end := start.Add(duration)
	type result struct {
		lat     []time.Duration
		all     int
		errors  int
		sampler errorSampler
	}
	results := make([]result, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := &results[w]
			r.lat = make([]time.Duration, 0, 4096)
			for i := 0; ; i++ {
				t0 := time.Now()
				if !t0.Before(end) || ctx.Err() != nil {
					return
				}
				err := op(ctx, w, i)
				t1 := time.Now()
				if err == nil {
					r.all++
				}
				if t0.Before(start) || t1.After(end) {
					continue
				}
				if err != nil {
					r.errors++
					r.sampler.add(err)
					continue
				}
				r.lat = append(r.lat, t1.Sub(t0))
			}
		}()
	}
	wg.Wait()
	var lat []time.Duration
	var errors, all int
	var sampler errorSampler
	for _, r := range results {
		all += r.all
		lat = append(lat, r.lat...)
		errors += r.errors
		for _, s := range r.sampler.samples {
			sampler.add(errorString(s))
		}
	}
	s := Summarize(lat, duration, errors, sampler.samples)
	s.Total = all
	return s
}

type errorString string

func (e errorString) Error() string { return string(e) }
