package grpcserver_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/platform/logging"
)

func TestInternal(t *testing.T) {
	t.Parallel()
	tp := sdktrace.NewTracerProvider()
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	ctx, span := tp.Tracer("test").Start(context.Background(), "op")
	defer span.End()

	logs := &syncBuffer{}
	err := grpcserver.Internal(ctx, logging.New("test", logs, slog.LevelInfo), errors.New("pgx: connection refused to db:5432"))
	st := status.Convert(err)
	if st.Code() != codes.Internal || st.Message() != "internal error" {
		t.Fatalf("got %v", err)
	}
	out := logs.String()
	if !strings.Contains(out, "connection refused") || !strings.Contains(out, span.SpanContext().TraceID().String()) {
		t.Fatalf("cause or trace id missing from log: %s", out)
	}
}

func TestErrorDetails(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		err        error
		wantCode   codes.Code
		wantMsg    string
		wantFields []string // "field: description", in order
		wantRetry  time.Duration
	}{
		{
			name:      "retry info",
			err:       grpcserver.WithRetryInfo(codes.ResourceExhausted, "too many codes requested", 60*time.Second),
			wantCode:  codes.ResourceExhausted,
			wantMsg:   "too many codes requested",
			wantRetry: time.Minute,
		},
		{
			name: "bad request sorted by field",
			err: grpcserver.BadRequest("invalid card", map[string][]string{
				"number": {"Card number is invalid"},
				"cvv":    {"CVV must be 3 digits", "CVV is required"},
			}),
			wantCode:   codes.InvalidArgument,
			wantMsg:    "invalid card",
			wantFields: []string{"cvv: CVV must be 3 digits", "cvv: CVV is required", "number: Card number is invalid"},
		},
		{
			name: "bad request in the caller's order",
			err: grpcserver.BadRequestOrdered("", grpcserver.FieldViolation{Field: "password", Description: "too short"},
				grpcserver.FieldViolation{Field: "email", Description: "invalid"}),
			wantCode:   codes.InvalidArgument,
			wantMsg:    "invalid request",
			wantFields: []string{"password: too short", "email: invalid"},
		},
		{
			name:     "details cannot ride on OK",
			err:      grpcserver.WithRetryInfo(codes.OK, "", time.Second),
			wantCode: codes.OK,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Round-trip through the wire form, as a client would see it.
			st := status.FromProto(status.Convert(tt.err).Proto())
			if st.Code() != tt.wantCode || st.Message() != tt.wantMsg {
				t.Fatalf("status = %v %q", st.Code(), st.Message())
			}
			var fields []string
			var retry time.Duration
			for _, d := range st.Details() {
				switch d := d.(type) {
				case *errdetails.BadRequest:
					for _, v := range d.GetFieldViolations() {
						fields = append(fields, v.GetField()+": "+v.GetDescription())
					}
				case *errdetails.RetryInfo:
					retry = d.GetRetryDelay().AsDuration()
				}
			}
			if strings.Join(fields, "|") != strings.Join(tt.wantFields, "|") {
				t.Errorf("fields = %v, want %v", fields, tt.wantFields)
			}
			if retry != tt.wantRetry {
				t.Errorf("retry = %v, want %v", retry, tt.wantRetry)
			}
		})
	}
}
