package iso

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

const instrumentation = "github.com/thumela/thumela/services/cashout/internal/ports/iso"

// Instrument names; the Prometheus exporter adds _total and the unit:
// thumela_cashout_approvals_total, thumela_cashout_declines_total{response_code},
// thumela_cashout_reversals_total{outcome}, thumela_cashout_request_duration_seconds{mti,response_code},
// thumela_cashout_connections, thumela_cashout_connections_refused_total.
const (
	metricApprovals          = "thumela.cashout.approvals"
	metricDeclines           = "thumela.cashout.declines"
	metricReversals          = "thumela.cashout.reversals"
	metricDuration           = "thumela.cashout.request.duration"
	metricConnections        = "thumela.cashout.connections"
	metricConnectionsRefused = "thumela.cashout.connections.refused"
)

// durationBuckets: an approval is a few milliseconds of gateway plus one transfers call; the
// top buckets reach past the request timeout.
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30}

type telemetry struct {
	tracer    trace.Tracer
	approvals metric.Int64Counter
	declines  metric.Int64Counter
	reversals metric.Int64Counter
	duration  metric.Float64Histogram
	conns     metric.Int64UpDownCounter
	refused   metric.Int64Counter
}

func newTelemetry() (*telemetry, error) {
	meter := otel.Meter(instrumentation)
	t := &telemetry{tracer: otel.Tracer(instrumentation)}
	var err error
	if t.approvals, err = meter.Int64Counter(metricApprovals,
		metric.WithDescription("Withdrawals approved (response code 00): the ATM dispenses."),
		metric.WithUnit("{withdrawal}")); err != nil {
		return nil, fmt.Errorf("iso: metric %s: %w", metricApprovals, err)
	}
	if t.declines, err = meter.Int64Counter(metricDeclines,
		metric.WithDescription("Withdrawals declined, by ISO 8583 response code (docs/cashout.md)."),
		metric.WithUnit("{withdrawal}")); err != nil {
		return nil, fmt.Errorf("iso: metric %s: %w", metricDeclines, err)
	}
	if t.reversals, err = meter.Int64Counter(metricReversals,
		metric.WithDescription("Reversal advices from the switch, by outcome: reversed (the voucher is collectable again), repeat_or_nothing (a repeat, or a request that collected nothing), failed (transfers unreachable: answered 91)."),
		metric.WithUnit("{reversal}")); err != nil {
		return nil, fmt.Errorf("iso: metric %s: %w", metricReversals, err)
	}
	if t.duration, err = meter.Float64Histogram(metricDuration,
		metric.WithDescription("Time from reading an ISO 8583 request to having its answer, by MTI and response code."),
		metric.WithUnit("s"), metric.WithExplicitBucketBoundaries(durationBuckets...)); err != nil {
		return nil, fmt.Errorf("iso: metric %s: %w", metricDuration, err)
	}
	if t.conns, err = meter.Int64UpDownCounter(metricConnections,
		metric.WithDescription("Switch connections open on the ISO 8583 listener."),
		metric.WithUnit("{connection}")); err != nil {
		return nil, fmt.Errorf("iso: metric %s: %w", metricConnections, err)
	}
	if t.refused, err = meter.Int64Counter(metricConnectionsRefused,
		metric.WithDescription("Connections closed as soon as accepted because the listener had CASHOUT_ISO_MAX_CONNECTIONS open."),
		metric.WithUnit("{connection}")); err != nil {
		return nil, fmt.Errorf("iso: metric %s: %w", metricConnectionsRefused, err)
	}
	return t, nil
}

func (t *telemetry) recordConnection(ctx context.Context, delta int64) { t.conns.Add(ctx, delta) }

func (t *telemetry) recordConnectionRefused(ctx context.Context) { t.refused.Add(ctx, 1) }

func (t *telemetry) recordApproval(ctx context.Context) { t.approvals.Add(ctx, 1) }

func (t *telemetry) recordDecline(ctx context.Context, code string) {
	t.declines.Add(ctx, 1, metric.WithAttributes(attribute.String("response_code", code)))
}

func (t *telemetry) recordReversal(ctx context.Context, outcome string) {
	t.reversals.Add(ctx, 1, metric.WithAttributes(attribute.String("outcome", outcome)))
}

func (t *telemetry) recordRequest(ctx context.Context, mti, code string, took time.Duration) {
	t.duration.Record(ctx, took.Seconds(), metric.WithAttributes(
		attribute.String("mti", mti), attribute.String("response_code", code)))
}
