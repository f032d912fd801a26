package app

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/thumela/thumela/services/notifications/internal/domain"
)

// InstrumentationName names the service's tracer and meter.
const InstrumentationName = "github.com/thumela/thumela/services/notifications"

// Outcomes of a send (the sends metric's outcome attribute).
const (
	OutcomeSent   = "sent"
	OutcomeFailed = "failed"
	OutcomeRetry  = "retry"
)

// Telemetry is the service's tracer and instruments. Their attributes are the channel, the
// provider, the outcome or the failure's kind: never a recipient, a text or a request id (a
// metric series per request would be unbounded anyway).
type Telemetry struct {
	tracer   trace.Tracer
	meter    metric.Meter
	sends    metric.Int64Counter
	retries  metric.Int64Counter
	failures metric.Int64Counter
}

// NewTelemetry builds the instruments on mp and the tracer on tp (nil: the global ones).
func NewTelemetry(tp trace.TracerProvider, mp metric.MeterProvider) (*Telemetry, error) {
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	t := &Telemetry{tracer: tp.Tracer(InstrumentationName), meter: mp.Meter(InstrumentationName)}
	var err error
	if t.sends, err = t.meter.Int64Counter("thumela.notifications.sends", metric.WithUnit("{message}"),
		metric.WithDescription("Hand-overs to a provider, by channel, provider and outcome (sent, failed, retry).")); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if t.retries, err = t.meter.Int64Counter("thumela.notifications.retries", metric.WithUnit("{message}"),
		metric.WithDescription("Transient failures that will be retried, by channel and provider.")); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if t.failures, err = t.meter.Int64Counter("thumela.notifications.failures", metric.WithUnit("{message}"),
		metric.WithDescription("Deliveries failed for good, by channel, provider and kind (permanent, retry_window, invalid, expired, report).")); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	return t, nil
}

// ObserveOldestQueued registers the gauge thumela.notifications.oldest_queued_age: how long
// the oldest delivery still queued (received, not handed to a provider) has waited, 0 when
// none waits. oldest is asked at every collection.
func (t *Telemetry) ObserveOldestQueued(oldest func(ctx context.Context) (time.Time, bool, error), now func() time.Time) error {
	_, err := t.meter.Float64ObservableGauge("thumela.notifications.oldest_queued_age", metric.WithUnit("s"),
		metric.WithDescription("Age of the oldest undelivered (queued) notification request."),
		metric.WithFloat64Callback(func(ctx context.Context, o metric.Float64Observer) error {
			ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			at, ok, err := oldest(ctx)
			if err != nil {
				return err
			}
			age := 0.0
			if ok {
				age = max(now().Sub(at).Seconds(), 0)
			}
			o.Observe(age)
			return nil
		}))
	return err
}

func (t *Telemetry) send(ctx context.Context, ch domain.Channel, provider, outcome string) {
	t.sends.Add(ctx, 1, metric.WithAttributes(
		attribute.String("channel", string(ch)), attribute.String("provider", provider), attribute.String("outcome", outcome)))
}

func (t *Telemetry) retry(ctx context.Context, ch domain.Channel, provider string) {
	t.retries.Add(ctx, 1, metric.WithAttributes(attribute.String("channel", string(ch)), attribute.String("provider", provider)))
}

func (t *Telemetry) failure(ctx context.Context, ch domain.Channel, provider, kind string) {
	t.failures.Add(ctx, 1, metric.WithAttributes(
		attribute.String("channel", string(ch)), attribute.String("provider", provider), attribute.String("kind", kind)))
}
