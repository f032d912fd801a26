package outbox_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/outbox"
)

func TestPermanent(t *testing.T) {
	t.Parallel()
	base := errors.New("bad payload")
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", outbox.Permanent(nil), false},
		{"plain", base, false},
		{"permanent", outbox.Permanent(base), true},
		{"wrapped permanent", errors.Join(errors.New("ctx"), outbox.Permanent(base)), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := outbox.IsPermanent(tt.err); got != tt.want {
				t.Fatalf("IsPermanent = %v, want %v", got, tt.want)
			}
		})
	}
	if !errors.Is(outbox.Permanent(base), base) {
		t.Fatal("Permanent hides its cause from errors.Is")
	}
}

func TestConsumeAcksRetriesAndTerminates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.startRelay(t, nil)
	m := newMeters(t)

	var mu sync.Mutex
	deliveries := map[string]int{}
	traceIDs := map[string]trace.TraceID{}
	handled := make(chan string, 16)
	handler := func(ctx context.Context, msg jetstream.Msg) error {
		var v wrapperspb.StringValue
		if err := proto.Unmarshal(msg.Data(), &v); err != nil {
			return outbox.Permanent(err)
		}
		mu.Lock()
		deliveries[v.Value]++
		n := deliveries[v.Value]
		traceIDs[v.Value] = trace.SpanContextFromContext(ctx).TraceID()
		mu.Unlock()
		defer func() { handled <- v.Value }()
		switch {
		case v.Value == "flaky" && n == 1:
			return errors.New("dependency down")
		case v.Value == "poison":
			return outbox.Permanent(errors.New("cannot apply"))
		case v.Value == "panics" && n == 1:
			panic("bug")
		}
		return nil
	}
	cc, err := outbox.Consume(t.Context(), e.js, bus.StreamEvents, jetstream.ConsumerConfig{
		Durable:    "test",
		AckPolicy:  jetstream.AckExplicitPolicy,
		AckWait:    30 * time.Second, // redelivery must come from the Nak delay, not the ack timeout
		MaxDeliver: 5,
	}, handler, outbox.WithConsumeLogger(discard), outbox.WithRedeliveryDelay(10*time.Millisecond, 50*time.Millisecond),
		outbox.WithConsumeMeterProvider(m.provider))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Stop()

	ctx, span := otel.Tracer("test").Start(t.Context(), "writer")
	e.write(t, ctx, message(t, "u1", "ok"), message(t, "u1", "flaky"), message(t, "u1", "poison"), message(t, "u1", "panics"))
	span.End()

	// ok 1 + flaky 2 + poison 1 + panics 2 = 6 handler calls.
	for range 6 {
		select {
		case <-handled:
		case <-time.After(10 * time.Second):
			t.Fatalf("handler calls so far: %v", deliveries)
		}
	}
	select {
	case v := <-handled:
		t.Fatalf("unexpected extra delivery of %q (a terminated or acked message came back)", v)
	case <-time.After(300 * time.Millisecond):
	}
	// ok and the second deliveries of flaky and panics were acked, their first deliveries
	// retried, poison terminated.
	wantOutcomes := map[string]int{outbox.OutcomeAck: 3, outbox.OutcomeRetry: 2, outbox.OutcomeTerminated: 1}
	for outcome, n := range wantOutcomes {
		attrs := []attribute.KeyValue{attribute.String("consumer", "test"), attribute.String("outcome", outcome)}
		// Recorded right after the handler returns, so possibly just after it signalled.
		eventually(t, 5*time.Second, fmt.Sprintf("%d %s outcomes counted and timed", n, outcome), func() bool {
			handled, ok := m.find(t, "thumela.consumer.handled", attrs...)
			took, timed := m.find(t, "thumela.consumer.duration", attrs...)
			return ok && timed && handled.value == float64(n) && took.count == uint64(n)
		})
	}
	names := m.promNames(t)
	for _, want := range []string{"thumela_consumer_handled_total", "thumela_consumer_duration_seconds"} {
		if !slices.Contains(names, want) {
			t.Errorf("Prometheus has no %s; it has %v", want, names)
		}
	}

	mu.Lock()
	defer mu.Unlock()
	want := map[string]int{"ok": 1, "flaky": 2, "poison": 1, "panics": 2}
	for k, n := range want {
		if deliveries[k] != n {
			t.Errorf("%s delivered %d times, want %d", k, deliveries[k], n)
		}
		if traceIDs[k] != span.SpanContext().TraceID() {
			t.Errorf("%s handled in trace %s, want the writer's %s", k, traceIDs[k], span.SpanContext().TraceID())
		}
	}
}
