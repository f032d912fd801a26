package outbox

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Instrument names. The Prometheus exporter adds the unit and _total suffixes:
// thumela_outbox_published_total, thumela_outbox_publish_duration_seconds,
// thumela_outbox_lag_seconds, thumela_outbox_pending, thumela_consumer_handled_total,
// thumela_consumer_duration_seconds.
const (
	metricPublished       = "thumela.outbox.published"
	metricPublishDuration = "thumela.outbox.publish.duration"
	metricLag             = "thumela.outbox.lag"
	metricPending         = "thumela.outbox.pending"
	metricHandled         = "thumela.consumer.handled"
	metricHandleDuration  = "thumela.consumer.duration"
)

// Consumer outcomes (the outcome attribute of the consumer metrics).
const (
	OutcomeAck        = "ack"        // the handler succeeded; the message was acked
	OutcomeRetry      = "retry"      // the handler failed or panicked; the message was nak'ed
	OutcomeTerminated = "terminated" // the handler returned a Permanent error
)

// PendingCountCap bounds the thumela.outbox.pending gauge: counting a backlog is linear in it,
// so the gauge reads at most this many rows and stays flat above it, where the lag gauge says
// more anyway.
const PendingCountCap = 10_000

// backlogQueryTimeout bounds the gauges' query, so a slow database cannot hang a scrape.
const backlogQueryTimeout = 2 * time.Second

// durationBuckets are the histograms' bucket bounds in seconds: a batch publish or a handler
// call normally takes milliseconds; the top buckets catch outages (the publish timeout is
// 5 s).
var durationBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// relayMetrics are one relay's instruments, all with the schema attribute.
type relayMetrics struct {
	meter     metric.Meter
	schema    metric.MeasurementOption
	published metric.Int64Counter
	duration  metric.Float64Histogram
	lag       metric.Float64ObservableGauge
	pending   metric.Int64ObservableGauge
}

func newRelayMetrics(mp metric.MeterProvider, schema string) (*relayMetrics, error) {
	m := &relayMetrics{
		meter:  mp.Meter(tracerName),
		schema: metric.WithAttributeSet(attribute.NewSet(attribute.String("schema", schema))),
	}
	var err error
	if m.published, err = m.meter.Int64Counter(metricPublished,
		metric.WithDescription("Outbox rows published to JetStream (acknowledged, duplicates dropped by JetStream included) and marked published; each row counts once."),
		metric.WithUnit("{message}")); err != nil {
		return nil, fmt.Errorf("outbox: metric %s: %w", metricPublished, err)
	}
	if m.duration, err = m.meter.Float64Histogram(metricPublishDuration,
		metric.WithDescription("Time to publish one drain batch: select, publish, wait for the acks, mark, commit (the wait for the drain lock excluded)."),
		metric.WithUnit("s"), metric.WithExplicitBucketBoundaries(durationBuckets...)); err != nil {
		return nil, fmt.Errorf("outbox: metric %s: %w", metricPublishDuration, err)
	}
	if m.lag, err = m.meter.Float64ObservableGauge(metricLag,
		metric.WithDescription("Age of the oldest unpublished outbox row (0 when there is none); every replica of a service reports the same value."),
		metric.WithUnit("s")); err != nil {
		return nil, fmt.Errorf("outbox: metric %s: %w", metricLag, err)
	}
	if m.pending, err = m.meter.Int64ObservableGauge(metricPending,
		metric.WithDescription(fmt.Sprintf("Unpublished outbox rows, counted up to %d; every replica of a service reports the same value.", PendingCountCap)),
		metric.WithUnit("{row}")); err != nil {
		return nil, fmt.Errorf("outbox: metric %s: %w", metricPending, err)
	}
	return m, nil
}

// consumerMetrics are one Consume call's instruments. The attribute sets are built once per
// outcome: they are the same for every message.
type consumerMetrics struct {
	handled  metric.Int64Counter
	duration metric.Float64Histogram
	attrs    map[string]metric.MeasurementOption // by outcome
}

func newConsumerMetrics(mp metric.MeterProvider, consumer string) (*consumerMetrics, error) {
	meter := mp.Meter(tracerName)
	m := &consumerMetrics{attrs: map[string]metric.MeasurementOption{}}
	var err error
	if m.handled, err = meter.Int64Counter(metricHandled,
		metric.WithDescription("Messages handled by an outbox consumer, by outcome: ack, retry (nak with delay) or terminated."),
		metric.WithUnit("{message}")); err != nil {
		return nil, fmt.Errorf("outbox: metric %s: %w", metricHandled, err)
	}
	if m.duration, err = meter.Float64Histogram(metricHandleDuration,
		metric.WithDescription("Time an outbox consumer's handler took for one message, by outcome."),
		metric.WithUnit("s"), metric.WithExplicitBucketBoundaries(durationBuckets...)); err != nil {
		return nil, fmt.Errorf("outbox: metric %s: %w", metricHandleDuration, err)
	}
	for _, outcome := range []string{OutcomeAck, OutcomeRetry, OutcomeTerminated} {
		m.attrs[outcome] = metric.WithAttributeSet(attribute.NewSet(
			attribute.String("consumer", consumer), attribute.String("outcome", outcome)))
	}
	return m, nil
}

func (m *consumerMetrics) record(ctx context.Context, outcome string, took time.Duration) {
	attrs := m.attrs[outcome]
	m.handled.Add(ctx, 1, attrs)
	m.duration.Record(ctx, took.Seconds(), attrs)
}
