package grpcserver

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net"
	"slices"
	"strings"
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

// unavailableMessage is all a caller learns when a dependency is down: not which one, nor why.
const unavailableMessage = "temporarily unavailable, please try again"

// dependencyRetryAfter is the retry hint sent with unavailableMessage: about what a restart of
// PostgreSQL or of a peer takes, so a client's next try is not wasted on the same outage.
const dependencyRetryAfter = 5 * time.Second

// Unexpected logs err (with the trace ids carried by ctx), records it on the current span, and
// returns a gRPC error with a generic message. The ports layer calls it for every error it has
// no specific code for, so causes never leak to callers. That is Internal for a fault of the
// service, and Unavailable with a retry hint when err says a dependency is down (see
// dependencyDown): the caller may try again, and the BFF tells the person so.
func Unexpected(ctx context.Context, logger *slog.Logger, err error) error {
	span := trace.SpanFromContext(ctx)
	span.RecordError(err)
	if dependencyDown(err) {
		logger.WarnContext(ctx, "a dependency is unavailable", "error", err)
		span.SetStatus(otelcodes.Error, unavailableMessage)
		return WithRetryInfo(codes.Unavailable, unavailableMessage, dependencyRetryAfter)
	}
	logger.ErrorContext(ctx, "internal error", "error", err)
	span.SetStatus(otelcodes.Error, internalMessage)
	return status.Error(codes.Internal, internalMessage)
}

// dependencyDown reports whether err says that something the service needs could not be
// reached or went away mid-call (its database stopping or restarting, a peer service stopped),
// rather than that the service is wrong. It goes by what the error is, not by which driver made
// it, so this package needs none (the BFF links it too):
//   - a gRPC Unavailable status anywhere in the chain: a peer service is down;
//   - an SQLSTATE (the SQLState method of pgx's PgError) of class 08, connection exception, or
//     57P01-57P03, the server shutting down or not yet accepting connections, or 53300, too
//     many connections;
//   - a failed network operation (*net.OpError: a refused, reset or timed-out connection; pgx's
//     connect errors wrap one) or a connection cut mid-message (io.ErrUnexpectedEOF).
func dependencyDown(err error) bool {
	if status.Code(err) == codes.Unavailable {
		return true
	}
	var sqlErr interface{ SQLState() string }
	if errors.As(err, &sqlErr) {
		return unavailableSQLState(sqlErr.SQLState())
	}
	var opErr *net.OpError
	return errors.As(err, &opErr) || errors.Is(err, io.ErrUnexpectedEOF)
}

// unavailableSQLState: https://www.postgresql.org/docs/current/errcodes-appendix.html
func unavailableSQLState(code string) bool {
	switch code {
	case "57P01", "57P02", "57P03", "53300":
		return true
	}
	return strings.HasPrefix(code, "08")
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
