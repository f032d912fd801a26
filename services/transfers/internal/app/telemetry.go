package app

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// instrumentationName names the worker's tracer and meter.
const instrumentationName = "github.com/thumela/thumela/services/transfers/internal/app"

// Steps of the worker: each runs in a span "transfers.worker.<step>" and is counted in
// thumela.transfers.worker.steps / .step.duration (docs/operations.md, metrics).
const (
	// StepClaimCharge: a pending transfer becomes processing (or a lapsed lease is taken over).
	StepClaimCharge = "claim_charge"
	// StepCharge: paymentmethods charges the card; a decline fails the transfer.
	StepCharge = "charge"
	// StepIssueVoucher: the voucher is drawn and the transfer completes with it.
	StepIssueVoucher = "issue_voucher"
	// StepExpire: an unclaimed voucher expires and its refund becomes owed.
	StepExpire = "expire"
	// StepRemind: the recipient's reminder SMS is asked for, 24 hours before the expiry.
	StepRemind = "remind"
	// StepClaimRefund: an owed refund is claimed.
	StepClaimRefund = "claim_refund"
	// StepRefund: paymentmethods refunds the whole total.
	StepRefund = "refund"
)

// Outcomes of a step (the metrics' outcome attribute).
const (
	// OutcomeOK: the step did what it is for.
	OutcomeOK = "ok"
	// OutcomeRetry: it did not, for a reason that may pass; the job is tried again (after a
	// backoff, at the next pass, or when its lease passes).
	OutcomeRetry = "retry"
	// OutcomeFailed: it ended for good without success (a declined card fails the transfer).
	OutcomeFailed = "failed"
)

// traceContextPropagator reads and writes the trace context saved with a transfer: the W3C
// trace context only (traceparent, tracestate), whatever the process's global propagator also
// carries; baggage, which may hold anything, is never stored.
var traceContextPropagator = propagation.TraceContext{}

// TraceContextOf returns the W3C trace context of ctx's span as headers, nil when ctx has no
// valid span context.
func TraceContextOf(ctx context.Context) map[string]string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	carrier := propagation.MapCarrier{}
	traceContextPropagator.Inject(ctx, carrier)
	if len(carrier) == 0 {
		return nil
	}
	return carrier
}

// workerTelemetry is the worker's tracer and instruments.
type workerTelemetry struct {
	tracer   trace.Tracer
	steps    metric.Int64Counter
	duration metric.Float64Histogram
}

func newWorkerTelemetry(tp trace.TracerProvider, mp metric.MeterProvider) (workerTelemetry, error) {
	meter := mp.Meter(instrumentationName)
	steps, err := meter.Int64Counter("thumela.transfers.worker.steps",
		metric.WithUnit("{step}"), metric.WithDescription("Steps run by the transfers worker, by step and outcome."))
	if err != nil {
		return workerTelemetry{}, fmt.Errorf("worker metrics: %w", err)
	}
	duration, err := meter.Float64Histogram("thumela.transfers.worker.step.duration",
		metric.WithUnit("s"), metric.WithDescription("Duration of the transfers worker's steps, by step and outcome."))
	if err != nil {
		return workerTelemetry{}, fmt.Errorf("worker metrics: %w", err)
	}
	return workerTelemetry{tracer: tp.Tracer(instrumentationName), steps: steps, duration: duration}, nil
}

// stepRun is one step in progress.
type stepRun struct {
	tel   *workerTelemetry
	ctx   context.Context
	name  string
	span  trace.Span
	start time.Time
	ended bool
}

// beginStep starts step name on transfer t, in a span parented by the trace context saved with
// t at its creation (a new trace when there is none), so that the step joins the trace of the
// request that created the transfer. The returned context carries the span: the step's calls
// to other services and its outbox writes must use it.
func (tel *workerTelemetry) beginStep(ctx context.Context, name string, t *domain.Transfer) (context.Context, *stepRun) {
	// Drop any span ctx carries: the parent is the saved context or nothing.
	parent := trace.ContextWithSpanContext(ctx, trace.SpanContext{})
	if tc := t.TraceContext(); len(tc) > 0 {
		parent = traceContextPropagator.Extract(parent, propagation.MapCarrier(tc))
	}
	sctx, span := tel.tracer.Start(parent, "transfers.worker."+name, trace.WithAttributes(
		attribute.String("transfer.id", t.ID().String()),
		attribute.String("step", name),
	))
	return sctx, &stepRun{tel: tel, ctx: sctx, name: name, span: span, start: time.Now()}
}

// end records the step's outcome: the span's status (an error for anything but ok, with err
// recorded), the counter and the duration. Only the first call counts.
func (s *stepRun) end(outcome string, err error) {
	if s.ended {
		return
	}
	s.ended = true
	s.span.SetAttributes(attribute.String("outcome", outcome))
	if err != nil {
		s.span.RecordError(err)
	}
	if outcome != OutcomeOK {
		desc := outcome
		if err != nil {
			desc = err.Error()
		}
		s.span.SetStatus(codes.Error, desc)
	}
	s.span.End()
	attrs := metric.WithAttributeSet(attribute.NewSet(attribute.String("step", s.name), attribute.String("outcome", outcome)))
	s.tel.steps.Add(s.ctx, 1, attrs)
	s.tel.duration.Record(s.ctx, time.Since(s.start).Seconds(), attrs)
}

// around is a Step for the repository: change runs as step name of t, ok unless it fails
// (the transaction then rolls back and the job stays due: retry).
func (tel *workerTelemetry) around(name string) Step {
	return func(ctx context.Context, t *domain.Transfer, change func(context.Context) error) error {
		sctx, step := tel.beginStep(ctx, name, t)
		err := change(sctx)
		if err != nil {
			step.end(OutcomeRetry, err)
		} else {
			step.end(OutcomeOK, nil)
		}
		return err
	}
}
