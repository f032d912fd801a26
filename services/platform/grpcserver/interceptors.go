package grpcserver

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	otelcodes "go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Log attribute keys, shared with services that log about RPCs themselves.
const (
	MethodKey   = "grpc.method"
	CodeKey     = "grpc.code"
	DurationKey = "grpc.duration_ms"
)

// levelFor puts server faults at error, caller mistakes and refusals at warn, success at info.
// Health checks log at debug: probes run every few seconds and would drown everything else.
func levelFor(method string, code codes.Code) slog.Level {
	switch code {
	case codes.OK:
		if strings.HasPrefix(method, "/grpc.health.v1.Health/") {
			return slog.LevelDebug
		}
		return slog.LevelInfo
	case codes.Internal, codes.Unknown, codes.DataLoss, codes.Unimplemented,
		codes.Unavailable, codes.DeadlineExceeded:
		return slog.LevelError
	default:
		return slog.LevelWarn
	}
}

// logRPC writes the one line per RPC: method, code, duration, and for failures the status
// message (written by our handlers for callers, so safe to log). Requests and responses are
// never logged: they carry card numbers, passwords and personal data.
func logRPC(ctx context.Context, logger *slog.Logger, method string, began time.Time, err error) {
	st := status.Convert(err)
	level := levelFor(method, st.Code())
	if !logger.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{
		slog.String(MethodKey, method),
		slog.String(CodeKey, st.Code().String()),
		slog.Float64(DurationKey, float64(time.Since(began).Microseconds())/1000),
	}
	if st.Code() != codes.OK {
		attrs = append(attrs, slog.String("grpc.message", st.Message()))
	}
	logger.LogAttrs(ctx, level, "rpc", attrs...)
}

func unaryLogging(logger *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		began := time.Now()
		resp, err := handler(ctx, req)
		logRPC(ctx, logger, info.FullMethod, began, err)
		return resp, err
	}
}

func streamLogging(logger *slog.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		began := time.Now()
		err := handler(srv, ss)
		logRPC(ss.Context(), logger, info.FullMethod, began, err)
		return err
	}
}

// recovered logs a handler's panic with its stack, marks the span, and returns the generic
// Internal error: the panic value may hold data the caller must not see.
func recovered(ctx context.Context, logger *slog.Logger, method string, r any) error {
	stack := string(debug.Stack())
	logger.ErrorContext(ctx, "panic in gRPC handler",
		MethodKey, method, "panic", fmt.Sprint(r), "stack", stack)
	span := trace.SpanFromContext(ctx)
	span.RecordError(fmt.Errorf("panic: %v", r))
	span.SetStatus(otelcodes.Error, "panic")
	return status.Error(codes.Internal, internalMessage)
}

func unaryRecovery(logger *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
		defer func() {
			if r := recover(); r != nil {
				resp, err = nil, recovered(ctx, logger, info.FullMethod, r)
			}
		}()
		return handler(ctx, req)
	}
}

func streamRecovery(logger *slog.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = recovered(ss.Context(), logger, info.FullMethod, r)
			}
		}()
		return handler(srv, ss)
	}
}
