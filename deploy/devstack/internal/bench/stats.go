// Package bench measures Thumela's performance targets against a running dev stack: PostgreSQL's
// own limit with pgbench, then the same kinds of work through the whole stack, the live event
// latency, sign-in against one argon2id hash, the landing page's JavaScript and the services'
// memory. Run brings up a throw-away stack, runs the phases in order (run.go, measure.go, then
// one file per phase) and prints the table; thumela-bench (deploy/devstack/cmd/thumela-bench)
// calls it with its flags. docs/benchmarks.md explains every figure.
package bench

import (
	"math"
	"slices"
	"time"
)

// Summary is what one load phase measured: completed operations per second over the measured
// window, and their latency.
type Summary struct {
	Count   int     `json:"count"`
	Errors  int     `json:"errors"`
	Seconds float64 `json:"seconds"`
	TPS     float64 `json:"tps"`
	P50ms   float64 `json:"p50_ms"`
	P90ms   float64 `json:"p90_ms"`
	P99ms   float64 `json:"p99_ms"`
	MaxMs   float64 `json:"max_ms"`
	// Total counts every successful call of a closed loop, warm-up and stragglers included.
	Total int `json:"total_including_warmup,omitempty"`
	// ErrorSamples are a few distinct error messages, for the report.
	ErrorSamples []string `json:"error_samples,omitempty"`
}

// Summarize computes the summary of latencies measured over a window of the given length.
func Summarize(lat []time.Duration, window time.Duration, errors int, samples []string) Summary {
	s := Summary{Count: len(lat), Errors: errors, Seconds: window.Seconds(), ErrorSamples: samples}
	if window > 0 {
		s.TPS = float64(len(lat)) / window.Seconds()
	}
	if len(lat) == 0 {
		return s
	}
	sorted := slices.Clone(lat)
	slices.Sort(sorted)
	s.P50ms = ms(Percentile(sorted, 50))
	s.P90ms = ms(Percentile(sorted, 90))
	s.P99ms = ms(Percentile(sorted, 99))
	s.MaxMs = ms(sorted[len(sorted)-1])
	return s
}

// Percentile is the nearest-rank percentile of sorted (ascending): the smallest value such that
// at least p % of the values are at or below it.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// errorSampler keeps the first few distinct error messages.
type errorSampler struct {
	seen    map[string]bool
	samples []string
}

func (e *errorSampler) add(err error) {
	if e.seen == nil {
		e.seen = map[string]bool{}
	}
	msg := err.Error()
	if len(msg) > 200 {
		msg = msg[:200] + "…"
	}
	if e.seen[msg] || len(e.samples) >= 5 {
		return
	}
	e.seen[msg] = true
	e.samples = append(e.samples, msg)
}

func durationsMs(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d.Microseconds()) / 1000
	}
	return out
}
