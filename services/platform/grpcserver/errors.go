package grpcserver

import (
	"cmp"
	"context"
	"log/slog"
	"maps"
	"slices"
	"time"

	otelcodes "go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"
)

// internalMessage is all a caller learns about a server fault; the cause stays in the log and
// the trace, found by the trace id.
const internalMessage = "internal error"

// Internal logs err (with the trace ids carried by ctx), records it on the current span, and
// returns a gRPC Internal error with a generic message. The ports layer calls it for every
// error it has no specific code for, so causes never leak to callers.
func Internal(ctx context.Context, logger *slog.Logger, err error) error {
	logger.ErrorContext(ctx, "internal error", "error", err)
	span := trace.SpanFromContext(ctx)
	span.RecordError(err)
	span.SetStatus(otelcodes.Error, internalMessage)
	return status.Error(codes.Internal, internalMessage)
}

// WithRetryInfo returns a status error with code and msg that tells the caller, through
// google.rpc.RetryInfo, how long to wait before retrying (rate limits, a dependency
// recovering). Typical codes: ResourceExhausted, Unavailable.
func WithRetryInfo(code codes.Code, msg string, retryAfter time.Duration) error {
	return withDetails(status.New(code, msg), &errdetails.RetryInfo{RetryDelay: durationpb.New(retryAfter)})
}

// FieldViolation is one invalid field of a request. Field is a path in the request message,
// e.g. "card.expiry_month"; Description is the message the user sees.
type FieldViolation struct {
	Field       string
	Description string
}

// BadRequest returns InvalidArgument with msg and a google.rpc.BadRequest listing violations
// per field (fields sorted, so responses are stable). The BFF turns these into per-field form
// errors.
func BadRequest(msg string, violations map[string][]string) error {
	var list []FieldViolation
	for _, field := range slices.Sorted(maps.Keys(violations)) {
		for _, d := range violations[field] {
			list = append(list, FieldViolation{Field: field, Description: d})
		}
	}
	return BadRequestOrdered(msg, list...)
}

// BadRequestOrdered is BadRequest keeping the caller's order, e.g. the order of the form's
// fields.
func BadRequestOrdered(msg string, violations ...FieldViolation) error {
	br := &errdetails.BadRequest{}
	for _, v := range violations {
		br.FieldViolations = append(br.FieldViolations, &errdetails.BadRequest_FieldViolation{
			Field: v.Field, Description: v.Description,
		})
	}
	return withDetails(status.New(codes.InvalidArgument, cmp.Or(msg, "invalid request")), br)
}

// withDetails attaches details to st; should that fail (it only does for codes.OK), the
// status without details still carries the right code and message.
func withDetails(st *status.Status, details ...protoadapt.MessageV1) error {
	if withD, err := st.WithDetails(details...); err == nil {
		return withD.Err()
	}
	return st.Err()
}
