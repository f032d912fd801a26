package outbox_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/thumela/thumela/services/platform/outbox"
)

// meters is a MeterProvider read on demand, plus the Prometheus registry telemetry.Setup
// would export the same instruments through.
type meters struct {
	provider *sdkmetric.MeterProvider
	reader   *sdkmetric.ManualReader
	prom     *prometheus.Registry
}

func newMeters(tb testing.TB) *meters {
	tb.Helper()
	m := &meters{reader: sdkmetric.NewManualReader(), prom: prometheus.NewRegistry()}
	exp, err := otelprom.New(otelprom.WithRegisterer(m.prom))
	if err != nil {
		tb.Fatal(err)
	}
	m.provider = sdkmetric.NewMeterProvider(sdkmetric.WithReader(m.reader), sdkmetric.WithReader(exp))
	tb.Cleanup(func() { _ = m.provider.Shutdown(context.Background()) })
	return m
}

// point is one data point: a counter's or gauge's value, or a histogram's count and sum.
type point struct {
	value float64
	count uint64
}

// find collects and returns the point of instrument name with exactly attrs; ok is false when
// there is none.
func (m *meters) find(tb testing.TB, name string, attrs ...attribute.KeyValue) (p point, ok bool) {
	tb.Helper()
	var rm metricdata.ResourceMetrics
	if err := m.reader.Collect(context.Background(), &rm); err != nil {
		tb.Fatal(err)
	}
	want := attribute.NewSet(attrs...)
	for _, sm := range rm.ScopeMetrics {
		for _, md := range sm.Metrics {
			if md.Name != name {
				continue
			}
			switch data := md.Data.(type) {
			case metricdata.Sum[int64]:
				for _, dp := range data.DataPoints {
					if dp.Attributes.Equals(&want) {
						return point{value: float64(dp.Value)}, true
					}
				}
			case metricdata.Gauge[int64]:
				for _, dp := range data.DataPoints {
					if dp.Attributes.Equals(&want) {
						return point{value: float64(dp.Value)}, true
					}
				}
			case metricdata.Gauge[float64]:
				for _, dp := range data.DataPoints {
					if dp.Attributes.Equals(&want) {
						return point{value: dp.Value}, true
					}
				}
			case metricdata.Histogram[float64]:
				for _, dp := range data.DataPoints {
					if dp.Attributes.Equals(&want) {
						return point{value: dp.Sum, count: dp.Count}, true
					}
				}
			default:
				tb.Fatalf("%s: unexpected data type %T", name, md.Data)
			}
		}
	}
	return point{}, false
}

// value is find's value, failing the test when the point does not exist.
func (m *meters) value(tb testing.TB, name string, attrs ...attribute.KeyValue) float64 {
	tb.Helper()
	p, ok := m.find(tb, name, attrs...)
	if !ok {
		tb.Fatalf("no %s point with %v", name, attrs)
	}
	return p.value
}

// promNames are the metric families the Prometheus exporter serves.
func (m *meters) promNames(tb testing.TB) []string {
	tb.Helper()
	families, err := m.prom.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	var names []string
	for _, f := range families {
		names = append(names, f.GetName())
	}
	return names
}

func TestRelayMetrics(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	m := newMeters(t)
	e.startRelay(t, nil, outbox.WithMeterProvider(m.provider), outbox.WithPublishTimeout(time.Second))
	bySchema := attribute.String("schema", schema)

	// Before anything is written: an empty backlog, which is 0, not absent.
	if got := m.value(t, "thumela.outbox.pending", bySchema); got != 0 {
		t.Errorf("pending with an empty outbox = %v", got)
	}
	if got := m.value(t, "thumela.outbox.lag", bySchema); got != 0 {
		t.Errorf("lag with an empty outbox = %v", got)
	}

	// N messages published, in two transactions (so at least one batch each or one for both).
	const n = 5
	e.write(t, t.Context(), message(t, "u1", "a"), message(t, "u1", "b"))
	e.write(t, t.Context(), message(t, "u1", "c"), message(t, "u1", "d"), message(t, "u1", "e"))
	eventually(t, 10*time.Second, "the rows marked published", func() bool { return e.unpublished(t) == 0 })
	// The counter is added right after the marking transaction commits.
	eventually(t, 5*time.Second, "published = n", func() bool {
		p, ok := m.find(t, "thumela.outbox.published", bySchema)
		return ok && p.value == n
	})
	d, ok := m.find(t, "thumela.outbox.publish.duration", bySchema)
	if !ok || d.count < 1 || d.count > n || d.value <= 0 {
		t.Errorf("publish.duration = %d batches taking %v s in all, want 1 to %d batches of some time", d.count, d.value, n)
	}
	if got := m.value(t, "thumela.outbox.pending", bySchema); got != 0 {
		t.Errorf("pending after publishing = %v", got)
	}

	// A backlog: NATS down, three rows waiting, the oldest written 90 s ago.
	e.nats.Shutdown()
	e.write(t, t.Context(), message(t, "u1", "f"), message(t, "u1", "g"), message(t, "u1", "h"))
	if _, err := e.pool.Exec(t.Context(), `UPDATE outbox SET created_at = now() - interval '90 seconds'
		WHERE seq = (SELECT min(seq) FROM outbox WHERE published_at IS NULL)`); err != nil {
		t.Fatal(err)
	}
	if got := m.value(t, "thumela.outbox.pending", bySchema); got != 3 {
		t.Errorf("pending during the outage = %v, want 3", got)
	}
	if got := m.value(t, "thumela.outbox.lag", bySchema); got < 90 || got > 3600 {
		t.Errorf("lag during the outage = %v s, want the oldest row's age, 90 s and a bit", got)
	}
	if got := m.value(t, "thumela.outbox.published", bySchema); got != n {
		t.Errorf("published during the outage = %v, want still %d", got, n)
	}

	e.nats.Restart()
	eventually(t, 15*time.Second, "the backlog published", func() bool { return e.unpublished(t) == 0 })
	eventually(t, 5*time.Second, "published = n+3", func() bool {
		return m.value(t, "thumela.outbox.published", bySchema) == n+3
	})
	if got := m.value(t, "thumela.outbox.pending", bySchema); got != 0 {
		t.Errorf("pending after the outage = %v", got)
	}
	if got := m.value(t, "thumela.outbox.lag", bySchema); got != 0 {
		t.Errorf("lag after the outage = %v", got)
	}

	// The names dashboards and alerts use, as telemetry.Setup's exporter serves them.
	names := m.promNames(t)
	for _, want := range []string{
		"thumela_outbox_published_total",
		"thumela_outbox_publish_duration_seconds",
		"thumela_outbox_lag_seconds",
		"thumela_outbox_pending",
	} {
		if !slices.Contains(names, want) {
			t.Errorf("Prometheus has no %s; it has %v", want, names)
		}
	}
}

func TestRelayStopsReportingBacklogWhenStopped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	m := newMeters(t)
	r, err := outbox.NewRelay(e.pool, e.js, schema, discard, outbox.WithMeterProvider(m.provider))
	if err != nil {
		t.Fatal(err)
	}
	bySchema := attribute.String("schema", schema)
	if _, ok := m.find(t, "thumela.outbox.pending", bySchema); ok {
		t.Error("a relay that never ran reports a backlog")
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	eventually(t, 5*time.Second, "the backlog gauge", func() bool {
		_, ok := m.find(t, "thumela.outbox.pending", bySchema)
		return ok
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The replica that stopped no longer speaks for the backlog; the running ones do.
	if _, ok := m.find(t, "thumela.outbox.pending", bySchema); ok {
		t.Error("a stopped relay still reports a backlog")
	}
}
