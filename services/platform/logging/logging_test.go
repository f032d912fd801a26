package logging_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/thumela/thumela/services/platform/logging"
)

func TestTraceIDs(t *testing.T) {
	t.Parallel()
	tp := sdktrace.NewTracerProvider() // no exporter: spans still get ids
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	spanCtx, span := tp.Tracer("test").Start(context.Background(), "op")
	defer span.End()
	wantTrace, wantSpan := span.SpanContext().TraceID().String(), span.SpanContext().SpanID().String()

	tests := []struct {
		name     string
		ctx      context.Context
		log      func(l *slog.Logger, ctx context.Context)
		wantIDs  bool
		wantPath []string // a nested key that must hold "v"
	}{
		{
			name:    "span in context",
			ctx:     spanCtx,
			log:     func(l *slog.Logger, ctx context.Context) { l.InfoContext(ctx, "hi", "k", "v") },
			wantIDs: true, wantPath: []string{"k"},
		},
		{
			name:    "no span",
			ctx:     context.Background(),
			log:     func(l *slog.Logger, ctx context.Context) { l.InfoContext(ctx, "hi", "k", "v") },
			wantIDs: false, wantPath: []string{"k"},
		},
		{
			name:    "context-free call has no ids",
			ctx:     spanCtx,
			log:     func(l *slog.Logger, _ context.Context) { l.Info("hi", "k", "v") },
			wantIDs: false, wantPath: []string{"k"},
		},
		{
			name: "ids stay top level under groups",
			ctx:  spanCtx,
			log: func(l *slog.Logger, ctx context.Context) {
				l.With("a", "1").WithGroup("req").With("b", "2").WithGroup("inner").InfoContext(ctx, "hi", "k", "v")
			},
			wantIDs: true, wantPath: []string{"req", "inner", "k"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			tt.log(logging.New("transfers", &buf, slog.LevelDebug), tt.ctx)
			var rec map[string]any
			if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
				t.Fatalf("not one JSON record: %q: %v", buf.String(), err)
			}
			if rec["service"] != "transfers" {
				t.Errorf("service = %v", rec["service"])
			}
			if tt.wantIDs {
				if rec["trace_id"] != wantTrace || rec["span_id"] != wantSpan {
					t.Errorf("ids = %v/%v, want %s/%s", rec["trace_id"], rec["span_id"], wantTrace, wantSpan)
				}
			} else if _, ok := rec["trace_id"]; ok {
				t.Errorf("unexpected trace_id in %s", buf.String())
			}
			var cur any = rec
			for _, k := range tt.wantPath {
				m, ok := cur.(map[string]any)
				if !ok {
					t.Fatalf("path %v missing in %s", tt.wantPath, buf.String())
				}
				cur = m[k]
			}
			if cur != "v" {
				t.Errorf("path %v = %v in %s", tt.wantPath, cur, buf.String())
			}
		})
	}
}

func TestGroupsKeepAttributes(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	logging.New("x", &buf, slog.LevelInfo).
		With("a", "1").WithGroup("g").With("b", "2").Info("hi", "c", "3")
	const want = `"service":"x","a":"1","g":{"b":"2","c":"3"}}`
	if !bytes.Contains(buf.Bytes(), []byte(want)) {
		t.Fatalf("got %s, want it to contain %s", buf.String(), want)
	}
}

func TestLevelFilters(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	l := logging.New("x", &buf, slog.LevelWarn)
	l.Info("dropped")
	l.Warn("kept")
	if bytes.Contains(buf.Bytes(), []byte("dropped")) || !bytes.Contains(buf.Bytes(), []byte("kept")) {
		t.Fatalf("got %s", buf.String())
	}
}

func TestParseLevel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    slog.Level
		wantErr bool
	}{
		{"", slog.LevelInfo, false},
		{"debug", slog.LevelDebug, false},
		{"INFO", slog.LevelInfo, false},
		{" Warn ", slog.LevelWarn, false},
		{"warning", slog.LevelWarn, false},
		{"error", slog.LevelError, false},
		{"info+2", slog.LevelInfo + 2, false},
		{"verbose", slog.LevelInfo, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := logging.ParseLevel(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("ParseLevel(%q) = %v, %v", tt.in, got, err)
			}
			if err != nil && !errors.Is(err, logging.ErrUnknownLevel) {
				t.Fatalf("error %v is not ErrUnknownLevel", err)
			}
		})
	}
}
