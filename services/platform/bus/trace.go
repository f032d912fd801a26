package bus

import (
	"context"

	"github.com/nats-io/nats.go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
)

// HeaderCarrier adapts nats.Header to OpenTelemetry's propagation.TextMapCarrier. NATS
// headers are case-sensitive; the W3C propagator reads and writes lower-case keys
// (traceparent, tracestate), which is what every Thumela process uses.
type HeaderCarrier nats.Header

var _ propagation.TextMapCarrier = HeaderCarrier(nil)

// Get returns the first value for key.
func (c HeaderCarrier) Get(key string) string { return nats.Header(c).Get(key) }

// Set replaces the values for key.
func (c HeaderCarrier) Set(key, value string) { nats.Header(c).Set(key, value) }

// Keys lists the header names.
func (c HeaderCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}

// InjectTrace writes ctx's trace context into h with the global propagator, so a consumer's
// spans join the publisher's trace. h must be non-nil (use nats.Header{} or nats.NewMsg).
func InjectTrace(ctx context.Context, h nats.Header) {
	otel.GetTextMapPropagator().Inject(ctx, HeaderCarrier(h))
}

// ExtractTrace returns ctx carrying the trace context found in h, if any.
func ExtractTrace(ctx context.Context, h nats.Header) context.Context {
	return otel.GetTextMapPropagator().Extract(ctx, HeaderCarrier(h))
}
