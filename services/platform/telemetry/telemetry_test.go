package telemetry_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/thumela/thumela/services/platform/telemetry"
)

// TestSetup is deliberately not parallel: Setup replaces process-wide OpenTelemetry globals.
func TestSetup(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	ctx := context.Background()
	shutdown, err := telemetry.Setup(ctx, "transfers", "1.2.3", telemetry.WithSpanExporter(exp))
	if err != nil {
		t.Fatalf("Setup: %v", err)
	}

	_, span := otel.Tracer("test").Start(ctx, "op")
	if !span.SpanContext().IsValid() {
		t.Fatal("span has no ids")
	}
	span.End()
	spans := exp.GetSpans()
	if len(spans) != 1 || spans[0].Name != "op" {
		t.Fatalf("exported %v", spans)
	}
	attrs := map[string]string{}
	for _, kv := range spans[0].Resource.Attributes() {
		attrs[string(kv.Key)] = kv.Value.String()
	}
	if attrs["service.name"] != "transfers" || attrs["service.version"] != "1.2.3" {
		t.Errorf("resource = %v", attrs)
	}

	carrier := propagation.MapCarrier{}
	spanCtx, span2 := otel.Tracer("test").Start(ctx, "op2")
	otel.GetTextMapPropagator().Inject(spanCtx, carrier)
	span2.End()
	if !strings.HasPrefix(carrier.Get("traceparent"), "00-"+span2.SpanContext().TraceID().String()) {
		t.Errorf("traceparent = %q", carrier.Get("traceparent"))
	}

	counter, err := otel.Meter("test").Int64Counter("thumela_test_requests")
	if err != nil {
		t.Fatal(err)
	}
	counter.Add(ctx, 3)
	rec := get(t, telemetry.MetricsHandler())
	body, _ := io.ReadAll(rec.Body)
	if rec.Code != http.StatusOK || !strings.Contains(string(body), "thumela_test_requests_total") ||
		!strings.Contains(string(body), "go_goroutines") {
		t.Fatalf("metrics %d:\n%s", rec.Code, body)
	}

	if err := shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}

// Without an exporter nothing is recorded, yet spans carry ids, so logs and the traceparent
// passed on still link a request; OTEL_TRACES_SAMPLER, when set, still decides.
func TestSetupWithoutAnExporterRecordsNothing(t *testing.T) {
	for _, tt := range []struct {
		sampler   string
		recording bool
	}{{"", false}, {"always_on", true}} {
		t.Setenv("OTEL_TRACES_EXPORTER", "none")
		t.Setenv("OTEL_TRACES_SAMPLER", tt.sampler)
		shutdown, err := telemetry.Setup(context.Background(), "transfers", "1.2.3")
		if err != nil {
			t.Fatalf("Setup: %v", err)
		}
		ctx, span := otel.Tracer("test").Start(context.Background(), "op")
		carrier := propagation.MapCarrier{}
		otel.GetTextMapPropagator().Inject(ctx, carrier)
		if span.IsRecording() != tt.recording || !span.SpanContext().IsValid() ||
			!strings.HasPrefix(carrier.Get("traceparent"), "00-"+span.SpanContext().TraceID().String()) {
			t.Errorf("sampler %q: recording %v (want %v), ids valid %v, traceparent %q", tt.sampler,
				span.IsRecording(), tt.recording, span.SpanContext().IsValid(), carrier.Get("traceparent"))
		}
		span.End()
		if err := shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

func get(t *testing.T, h http.Handler) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	return rec
}

// The metrics listener fails the process's start when its address is taken, rather than
// running without metrics.
func TestMetricsServerAddressInUse(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	c := telemetry.MetricsServer(taken.Addr().String(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := c.Start(t.Context()); err == nil || !strings.Contains(err.Error(), taken.Addr().String()) {
		t.Fatalf("start on a taken address: %v", err)
	}
}
