package outbox

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"

	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/lifecycle"
)

// Handler processes one message. It must be idempotent: JetStream delivers at least once.
// Return nil to ack, an error to have the message redelivered later, or Permanent(err) to
// give up on it.
type Handler func(ctx context.Context, msg jetstream.Msg) error

type consumeConfig struct {
	logger          *slog.Logger
	nakBase, nakMax time.Duration
	meterProvider   metric.MeterProvider
	metrics         *consumerMetrics
}

// ConsumeOption tunes Consume.
type ConsumeOption func(*consumeConfig)

// WithConsumeLogger sets the logger for failed messages (default slog.Default()).
func WithConsumeLogger(l *slog.Logger) ConsumeOption {
	return func(c *consumeConfig) { c.logger = l }
}

// WithRedeliveryDelay sets the delay before a failed message comes back: base after the first
// failure, doubling per delivery up to ceiling (defaults 1 s and 1 min), so a failing
// dependency is not hammered.
func WithRedeliveryDelay(base, ceiling time.Duration) ConsumeOption {
	return func(c *consumeConfig) { c.nakBase, c.nakMax = base, ceiling }
}

// WithConsumeMeterProvider sets where the consumer's metrics go (default: the global
// MeterProvider, which telemetry.Setup installs): thumela.consumer.handled and
// thumela.consumer.duration, with the consumer and outcome attributes.
func WithConsumeMeterProvider(mp metric.MeterProvider) ConsumeOption {
	return func(c *consumeConfig) { c.meterProvider = mp }
}

// Consume creates or updates the durable or ephemeral consumer cfg on stream and calls h for
// each message, in a context carrying the publisher's trace context and ctx's values. It acks
// on success, naks with a growing delay on error, and terminates on a Permanent error; a
// panicking handler counts as an error. Consumption stops when ctx is cancelled; call
// Drain() on the returned ConsumeContext to finish in-flight messages first.
//
// Every message is counted in the consumer metrics under its outcome (OutcomeAck, OutcomeRetry,
// OutcomeTerminated) and the consumer attribute: cfg.Durable, else cfg.Name, else
// "ephemeral" (a server-chosen name would be a new metric series on every start).
func Consume(ctx context.Context, js jetstream.JetStream, stream string, cfg jetstream.ConsumerConfig, h Handler, opts ...ConsumeOption) (jetstream.ConsumeContext, error) {
	cc := consumeConfig{logger: slog.Default(), nakBase: time.Second, nakMax: time.Minute}
	for _, opt := range opts {
		opt(&cc)
	}
	if cc.meterProvider == nil {
		cc.meterProvider = otel.GetMeterProvider()
	}
	var err error
	if cc.metrics, err = newConsumerMetrics(cc.meterProvider, consumerLabel(cfg)); err != nil {
		return nil, err
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, stream, cfg)
	if err != nil {
		return nil, fmt.Errorf("outbox: consumer on %s: %w", stream, err)
	}
	tracer := otel.Tracer(tracerName)
	consumeCtx, err := cons.Consume(func(msg jetstream.Msg) {
		handle(ctx, tracer, &cc, h, msg)
	})
	if err != nil {
		return nil, fmt.Errorf("outbox: consume %s: %w", stream, err)
	}
	context.AfterFunc(ctx, consumeCtx.Stop)
	return consumeCtx, nil
}

// ConsumeUntilDone is Consume for the life of a service's component: it consumes until ctx
// ends. While NATS cannot be reached it keeps trying to create the consumer, logging notYet
// (what the service does without it); the events wait in the stream meanwhile.
func ConsumeUntilDone(ctx context.Context, js jetstream.JetStream, stream string, cfg jetstream.ConsumerConfig, h Handler,
	logger *slog.Logger, notYet string) error {
	return lifecycle.KeepTrying(ctx, logger, notYet, 500*time.Millisecond, func(ctx context.Context) error {
		cc, err := Consume(ctx, js, stream, cfg, h, WithConsumeLogger(logger))
		if err != nil {
			return err
		}
		<-ctx.Done()
		cc.Stop()
		return nil
	})
}

// Decode reads msg into ev, an event of one generated type. ok is false, with no error, when the
// message's HeaderEventType names another type (a subject that carries several kinds: not the
// handler's to read); a payload that does not unmarshal is a Permanent error, since redelivering
// it cannot help.
func Decode(msg jetstream.Msg, ev proto.Message) (ok bool, err error) {
	if typ := msg.Headers().Get(HeaderEventType); typ != "" && typ != string(ev.ProtoReflect().Descriptor().FullName()) {
		return false, nil
	}
	if err := proto.Unmarshal(msg.Data(), ev); err != nil {
		return false, Permanent(err)
	}
	return true, nil
}

// consumerLabel is the consumer attribute of the metrics.
func consumerLabel(cfg jetstream.ConsumerConfig) string {
	switch {
	case cfg.Durable != "":
		return cfg.Durable
	case cfg.Name != "":
		return cfg.Name
	default:
		return "ephemeral"
	}
}

func handle(ctx context.Context, tracer trace.Tracer, cc *consumeConfig, h Handler, msg jetstream.Msg) {
	mctx, span := tracer.Start(bus.ExtractTrace(ctx, msg.Headers()), "outbox.consume",
		trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(
			attribute.String("messaging.system", "nats"),
			attribute.String("messaging.operation.type", "process"),
			attribute.String("messaging.destination.name", msg.Subject()),
			attribute.String("messaging.message.id", msg.Headers().Get(jetstream.MsgIDHeader)),
		))
	defer span.End()

	start := time.Now()
	err := safeCall(mctx, h, msg)
	took := time.Since(start)
	if err == nil {
		cc.metrics.record(mctx, OutcomeAck, took)
		if ackErr := msg.Ack(); ackErr != nil {
			cc.logger.WarnContext(mctx, "ack failed; the message will be redelivered", "subject", msg.Subject(), "error", ackErr)
		}
		return
	}
	span.RecordError(err)
	span.SetStatus(codes.Error, "handler failed")
	if IsPermanent(err) {
		cc.metrics.record(mctx, OutcomeTerminated, took)
		cc.logger.ErrorContext(mctx, "message rejected permanently", "subject", msg.Subject(), "error", err)
		_ = msg.TermWithReason(err.Error())
		return
	}
	delay := cc.nakBase
	if md, mdErr := msg.Metadata(); mdErr == nil && md.NumDelivered > 1 {
		delay = cc.nakBase << min(md.NumDelivered-1, 20)
	}
	delay = min(delay, cc.nakMax)
	cc.metrics.record(mctx, OutcomeRetry, took)
	cc.logger.WarnContext(mctx, "message failed; redelivering", "subject", msg.Subject(), "delay", delay, "error", err)
	_ = msg.NakWithDelay(delay)
}

// safeCall turns a handler panic into an error: a poison message must not crash the service.
func safeCall(ctx context.Context, h Handler, msg jetstream.Msg) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("outbox: handler panicked: %v", p)
		}
	}()
	return h(ctx, msg)
}
