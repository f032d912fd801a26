package telemetry

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestMetricsHandlerBeforeSetup is not parallel: it clears the package's registry for a moment.
func TestMetricsHandlerBeforeSetup(t *testing.T) {
	old := registry.Swap(nil)
	defer registry.Store(old)
	rec := httptest.NewRecorder()
	MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("metrics before setup: %d, want 503", rec.Code)
	}
}

func TestChooseTraceExporter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		want    exporterKind
		wantErr bool
	}{
		{name: "nothing set: no network", env: nil, want: exportNone},
		{name: "endpoint set: http by default", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, want: exportOTLPHTTP},
		{name: "traces endpoint, grpc", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, want: exportOTLPGRPC},
		{name: "traces protocol wins", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"}, want: exportOTLPHTTP},
		{name: "exporter otlp without endpoint", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, want: exportOTLPHTTP},
		{name: "exporter none beats endpoint", env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, want: exportNone},
		{name: "sdk disabled", env: map[string]string{"OTEL_SDK_DISABLED": "TRUE", "OTEL_TRACES_EXPORTER": "otlp"}, want: exportNone},
		{name: "unknown exporter", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, wantErr: true},
		{name: "unknown protocol", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "x", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := chooseTraceExporter(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
			if tt.wantErr {
				if !errors.Is(err, ErrUnsupported) {
					t.Fatalf("got %v, want ErrUnsupported", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}
