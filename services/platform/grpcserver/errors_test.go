package grpcserver_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/platform/logging"
)

func TestUnexpected(t *testing.T) {
	t.Parallel()
	tp := sdktrace.NewTracerProvider()
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	ctx, span := tp.Tracer("test").Start(context.Background(), "op")
	defer span.End()

	logs := &syncBuffer{}
	err := grpcserver.Unexpected(ctx, logging.New("test", logs, slog.LevelInfo), errors.New("pgx: connection refused to db:5432"))
	st := status.Convert(err)
	if st.Code() != codes.Internal || st.Message() != "internal error" {
		t.Fatalf("got %v", err)
	}
	out := logs.String()
	if !strings.Contains(out, "connection refused") || !strings.Contains(out, span.SpanContext().TraceID().String()) {
		t.Fatalf("cause or trace id missing from log: %s", out)
	}
}

// sqlStateError stands for a database driver's server error (pgx's PgError): what the
// classification reads of it is its SQLState method.
type sqlStateError string

func (e sqlStateError) Error() string    { return "FATAL: server said so (SQLSTATE " + string(e) + ")" }
func (e sqlStateError) SQLState() string { return string(e) }

// A lost database or a stopped peer is a dependency outage: the caller hears Unavailable with a
// retry hint and nothing of the cause, which is logged at warn. Anything else stays Internal.
func TestInternalTellsAnOutageFromAFault(t *testing.T) {
	t.Parallel()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	tests := []struct {
		name string
		err  error
		want codes.Code
	}{
		{"connection refused", fmt.Errorf("postgres: begin: failed to connect to `user=transfers`: %w", refused), codes.Unavailable},
		{"admin shutdown", fmt.Errorf("list transfers: %w", sqlStateError("57P01")), codes.Unavailable},
		{"starting up", sqlStateError("57P03"), codes.Unavailable},
		{"connection exception class", sqlStateError("08006"), codes.Unavailable},
		{"too many connections", sqlStateError("53300"), codes.Unavailable},
		{"cut mid-message", fmt.Errorf("failed to receive message: %w", io.ErrUnexpectedEOF), codes.Unavailable},
		{"peer unavailable", fmt.Errorf("charge: %w", status.Error(codes.Unavailable, "connection refused")), codes.Unavailable},
		{"unique violation", sqlStateError("23505"), codes.Internal},
		{"peer internal", status.Error(codes.Internal, "internal error"), codes.Internal},
		{"a bug", errors.New("nil map"), codes.Internal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			logs := &syncBuffer{}
			err := grpcserver.Unexpected(context.Background(), logging.New("test", logs, slog.LevelInfo), tt.err)
			st := status.FromProto(status.Convert(err).Proto())
			if st.Code() != tt.want {
				t.Fatalf("code = %v, want %v", st.Code(), tt.want)
			}
			var retry time.Duration
			for _, d := range st.Details() {
				if info, ok := d.(*errdetails.RetryInfo); ok {
					retry = info.GetRetryDelay().AsDuration()
				}
			}
			wantMsg, wantLevel, wantRetry := "internal error", `"level":"ERROR"`, time.Duration(0)
			if tt.want == codes.Unavailable {
				wantMsg, wantLevel, wantRetry = "temporarily unavailable, please try again", `"level":"WARN"`, 5*time.Second
			}
			if st.Message() != wantMsg || retry != wantRetry {
				t.Errorf("answer %q retry %v, want %q retry %v", st.Message(), retry, wantMsg, wantRetry)
			}
			if out := logs.String(); !strings.Contains(out, wantLevel) || !strings.Contains(out, tt.err.Error()) {
				t.Errorf("log lacks %s or the cause: %s", wantLevel, out)
			}
		})
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
