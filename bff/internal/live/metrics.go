package live

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
)

// metrics are the live streams' instruments (names agreed in the team's metrics list).
type metrics struct {
	subscribers metric.Int64UpDownCounter
	delivered   metric.Int64Counter
	latency     metric.Float64Histogram
}

// latencyBuckets (seconds) resolve the targets (10 ms at p50, 50 ms at p99) and a backlog.
var latencyBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

func newMetrics() metrics {
	meter := otel.Meter("github.com/thumela/thumela/bff/internal/live")
	var m metrics
	m.subscribers, _ = meter.Int64UpDownCounter("thumela.bff.stream.subscribers",
		metric.WithDescription("Live event streams (browser tabs) open on this process."),
		metric.WithUnit("{stream}"))
	m.delivered, _ = meter.Int64Counter("thumela.bff.stream.delivered",
		metric.WithDescription("Events sent to live event streams."),
		metric.WithUnit("{event}"))
	m.latency, _ = meter.Float64Histogram("thumela.bff.stream.delivery.latency",
		metric.WithDescription("From JetStream storing an event to its sending on a live stream."),
		metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(latencyBuckets...))
	// These fixed names are valid, and an instrument comes back even with a warning; should one
	// not, metrics are not worth failing the live streams for: no-op instruments instead.
	var none noop.Meter
	if m.subscribers == nil {
		m.subscribers, _ = none.Int64UpDownCounter("")
	}
	if m.delivered == nil {
		m.delivered, _ = none.Int64Counter("")
	}
	if m.latency == nil {
		m.latency, _ = none.Float64Histogram("")
	}
	return m
}
