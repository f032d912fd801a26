// Package telemetry sets up OpenTelemetry for a Thumela process: the global tracer provider,
// meter provider and W3C propagators, configured from the standard OTEL_* variables.
//
// Tracing is off the network by default: unless an OTLP endpoint is configured (or
// OTEL_TRACES_EXPORTER=otlp), spans are created and carry ids, so logs and propagated headers
// still link requests, but nothing is recorded or exported. Metrics are pulled, not pushed: a Prometheus
// exporter on a private registry served by MetricsHandler, which MetricsServer serves on a
// listener of its own (<SERVICE>_METRICS_ADDR).
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// ErrUnsupported is returned by Setup when an OTEL_* variable asks for an exporter or protocol
// this package does not build; failing at start beats silently exporting nothing.
var ErrUnsupported = errors.New("telemetry: unsupported setting")

// Option adjusts Setup.
type Option func(*settings)

type settings struct {
	spanExporter sdktrace.SpanExporter
	logger       *slog.Logger
	lookup       func(string) (string, bool)
}

// WithSpanExporter makes Setup export spans to exp synchronously, as each span ends, instead of
// choosing an exporter from the environment. Intended for tests (with tracetest's in-memory
// exporter), where batching would make assertions racy.
func WithSpanExporter(exp sdktrace.SpanExporter) Option {
	return func(s *settings) { s.spanExporter = exp }
}

// WithErrorLogger routes errors that OpenTelemetry reports in the background (an unreachable
// collector, a dropped batch) to logger at warn level instead of the SDK's default stderr
// logger, so they reach the same log pipeline as everything else.
func WithErrorLogger(logger *slog.Logger) Option {
	return func(s *settings) { s.logger = logger }
}

// registry is the Prometheus registry of the latest Setup, read by MetricsHandler.
var registry atomic.Pointer[prometheus.Registry]

// Setup installs the global tracer provider, meter provider and TraceContext+Baggage
// propagator for service at version, and returns a shutdown function that flushes and stops
// them; call it with a deadline on the way out.
//
// Traces go over OTLP when OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT is
// set, or OTEL_TRACES_EXPORTER=otlp; the protocol is OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or
// OTEL_EXPORTER_OTLP_PROTOCOL ("grpc" or "http/protobuf", the default). The exporters read
// their own endpoint, headers and TLS settings from the same variables. OTEL_TRACES_EXPORTER=none
// or OTEL_SDK_DISABLED=true keep spans local. Sampling follows OTEL_TRACES_SAMPLER (parent-based
// always-on by default when spans are exported; when they are not, spans are not recorded
// unless OTEL_TRACES_SAMPLER asks) and the resource OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES.
//
// Setup does not connect anywhere: OTLP clients connect lazily on the first export.
func Setup(ctx context.Context, service, version string, opts ...Option) (shutdown func(context.Context) error, err error) {
	s := settings{lookup: os.LookupEnv}
	for _, opt := range opts {
		opt(&s)
	}

	res, err := resource.New(ctx,
		resource.WithAttributes(
			attribute.String("service.name", service),
			attribute.String("service.version", version),
		),
		resource.WithFromEnv(), // after ours, so OTEL_SERVICE_NAME wins as the spec says
		resource.WithTelemetrySDK(),
		resource.WithHost(),
		resource.WithProcessRuntimeName(),
		resource.WithProcessRuntimeVersion(),
	)
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	}

	tpOpts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	if s.spanExporter != nil {
		tpOpts = append(tpOpts, sdktrace.WithSyncer(s.spanExporter))
	} else {
		exp, err := newTraceExporter(ctx, s.lookup)
		if err != nil {
			return nil, err
		}
		if exp != nil {
			tpOpts = append(tpOpts, sdktrace.WithBatcher(exp))
		} else if sampler, set := s.lookup("OTEL_TRACES_SAMPLER"); !set || sampler == "" {
			// Nothing leaves the process, so recording spans is work thrown away at their end:
			// about a tenth of a service's CPU under load (the SDK builds every span with its
			// attributes, then drops it). Unrecorded spans keep their ids, so logs and the
			// headers passed on still link a request's lines across services. They are passed on
			// as not sampled: give every process the same OTEL_* settings, as the stack does.
			tpOpts = append(tpOpts, sdktrace.WithSampler(sdktrace.NeverSample()))
		}
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	promExp, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, fmt.Errorf("telemetry: prometheus exporter: %w", err)
	}

	tp := sdktrace.NewTracerProvider(tpOpts...)
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithReader(promExp))
	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(mp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(
		propagation.TraceContext{}, propagation.Baggage{},
	))
	if s.logger != nil {
		logger := s.logger
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
			logger.Warn("opentelemetry error", "error", err)
		}))
	}
	registry.Store(reg)

	return func(ctx context.Context) error {
		// Traces first: the batcher may still be exporting the spans of the last requests.
		return errors.Join(tp.Shutdown(ctx), mp.Shutdown(ctx))
	}, nil
}

// MetricsHandler serves the metrics of the latest Setup in the Prometheus text format. It can be
// mounted before Setup runs; until then it answers 503.
func MetricsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reg := registry.Load()
		if reg == nil {
			http.Error(w, "telemetry not set up", http.StatusServiceUnavailable)
			return
		}
		promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(w, r)
	})
}

// exporterKind is what the environment asks for.
type exporterKind int

const (
	exportNone exporterKind = iota
	exportOTLPGRPC
	exportOTLPHTTP
)

// chooseTraceExporter applies the OTEL_* rules described on Setup.
func chooseTraceExporter(lookup func(string) (string, bool)) (exporterKind, error) {
	get := func(name string) string {
		v, _ := lookup(name)
		return strings.TrimSpace(v)
	}
	if strings.EqualFold(get("OTEL_SDK_DISABLED"), "true") {
		return exportNone, nil
	}
	wantOTLP := false
	if names := get("OTEL_TRACES_EXPORTER"); names != "" {
		for name := range strings.SplitSeq(names, ",") {
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "otlp":
				wantOTLP = true
			case "none", "":
			default:
				return exportNone, fmt.Errorf("%w: OTEL_TRACES_EXPORTER=%q (want otlp or none)", ErrUnsupported, name)
			}
		}
		if !wantOTLP {
			return exportNone, nil
		}
	} else {
		wantOTLP = get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" || get("OTEL_EXPORTER_OTLP_ENDPOINT") != ""
	}
	if !wantOTLP {
		return exportNone, nil
	}
	protocol := get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if protocol == "" {
		protocol = get("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch strings.ToLower(protocol) {
	case "", "http/protobuf":
		return exportOTLPHTTP, nil
	case "grpc":
		return exportOTLPGRPC, nil
	default:
		return exportNone, fmt.Errorf("%w: OTLP protocol %q (want grpc or http/protobuf)", ErrUnsupported, protocol)
	}
}

func newTraceExporter(ctx context.Context, lookup func(string) (string, bool)) (sdktrace.SpanExporter, error) {
	kind, err := chooseTraceExporter(lookup)
	if err != nil {
		return nil, err
	}
	var exp sdktrace.SpanExporter
	switch kind {
	case exportOTLPGRPC:
		exp, err = otlptracegrpc.New(ctx)
	case exportOTLPHTTP:
		exp, err = otlptracehttp.New(ctx)
	default:
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("telemetry: OTLP trace exporter: %w", err)
	}
	return exp, nil
}
