// Package rpcerr turns what the services answer into what the browser is told. The gRPC and
// Connect codes are the same numbers, so a service's NotFound stays NotFound and its message
// and details (weak-password reasons, retry-after, which limit) pass through. Internal errors
// and anything that is not a status are logged and answered with a generic message; Unavailable
// (a service stopped, or one whose database or peer is down) with the one message a person
// sees while the payment system cannot be reached.
package rpcerr

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"strconv"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
)

// FromService converts an error returned by a gRPC client call.
func FromService(ctx context.Context, logger *slog.Logger, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) {
		return connect.NewError(connect.CodeCanceled, err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return connect.NewError(connect.CodeDeadlineExceeded, errors.New("the request took too long"))
	}
	st, ok := status.FromError(err)
	if !ok {
		return Internal(ctx, logger, err)
	}
	switch st.Code() {
	case codes.Internal, codes.Unknown, codes.DataLoss:
		return Internal(ctx, logger, err)
	case codes.Unavailable:
		return unavailable(ctx, logger, st)
	}
	cerr := connect.NewError(connect.Code(st.Code()), errors.New(st.Message()))
	addDetails(cerr, st)
	if st.Code() == codes.ResourceExhausted {
		retryAfter(cerr, st)
	}
	return cerr
}

// retryAfter sets the Retry-After header of a service's throttle (identity's sign-in and code
// back-off) from its google.rpc.RetryInfo, as the BFF's own rate limits set it.
func retryAfter(cerr *connect.Error, st *status.Status) {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.RetryInfo); ok && info.GetRetryDelay() != nil {
			SetRetryAfter(cerr, info.GetRetryDelay().AsDuration())
			return
		}
	}
}

// RetrySeconds is wait in whole seconds, rounded up and at least 1, so that a client that
// waits as told is never early.
func RetrySeconds(wait time.Duration) int {
	return max(1, int(math.Ceil(wait.Seconds())))
}

// SetRetryAfter sets cerr's Retry-After header to wait (RetrySeconds): every refusal that says
// when to come back, the BFF's own rate limits and the services' throttles, says it so.
func SetRetryAfter(cerr *connect.Error, wait time.Duration) {
	cerr.Meta().Set("Retry-After", strconv.Itoa(RetrySeconds(wait)))
}

// UnavailableMessage is what a person is told while a service, or what it depends on (its
// database, another service), cannot be reached: the words, shown by the web as a
// banner. The service's own message is not passed on: it may name what is down.
const UnavailableMessage = "We can't reach our payment system right now. Your money is safe; try again in a minute."

// defaultRetryAfter is the retry hint when the service gave none: a stopped service cannot
// answer at all, and gRPC's own Unavailable carries no RetryInfo.
const defaultRetryAfter = 5 * time.Second

// unavailable answers Unavailable with UnavailableMessage and a retry hint: the service's
// google.rpc.RetryInfo when it sent one, else defaultRetryAfter.
func unavailable(ctx context.Context, logger *slog.Logger, st *status.Status) error {
	logger.WarnContext(ctx, "a service is unavailable", "err", st.Err())
	cerr := connect.NewError(connect.CodeUnavailable, errors.New(UnavailableMessage)) //nolint:staticcheck // ST1005: a sentence shown to the person as it is
	hinted := false
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.RetryInfo); ok {
			hinted = true
			addDetail(cerr, info)
		}
	}
	if !hinted {
		addDetail(cerr, &errdetails.RetryInfo{RetryDelay: durationpb.New(defaultRetryAfter)})
	}
	return cerr
}

// addDetails passes every detail of st on (weak-password reasons, retry-after, which limit).
func addDetails(cerr *connect.Error, st *status.Status) {
	for _, d := range st.Proto().GetDetails() {
		if m, err := d.UnmarshalNew(); err == nil {
			addDetail(cerr, m)
		}
	}
}

func addDetail(cerr *connect.Error, m proto.Message) {
	if detail, err := connect.NewErrorDetail(m); err == nil {
		cerr.AddDetail(detail)
	}
}

// The spec's sentences for a failure with nothing more to say and for a call without a session.
const (
	MsgInternal        = "Something went wrong. Please try again."
	MsgUnauthenticated = "You must be logged in to perform this action"
)

// Internal logs the cause and answers a generic message: the browser never sees internals.
func Internal(ctx context.Context, logger *slog.Logger, err error) error {
	logger.ErrorContext(ctx, "internal error", "err", err)
	return connect.NewError(connect.CodeInternal, errors.New(MsgInternal)) //nolint:staticcheck // ST1005: a sentence shown to the person as it is
}

// Unauthenticated is the answer to a call that needs a session and has none.
func Unauthenticated() error {
	return connect.NewError(connect.CodeUnauthenticated, errors.New(MsgUnauthenticated)) //nolint:staticcheck // ST1005: a sentence shown to the person as it is
}

// MsgTooLarge is the answer to a request bigger than the BFF reads: it says what is wrong and
// nothing of the limit.
const MsgTooLarge = "The request is too large."

// TooLarge is the answer to a request over the BFF's read limit: InvalidArgument, since sending
// the same request again can never succeed (ResourceExhausted would tell a client to retry).
func TooLarge() error {
	return InvalidArgument(MsgTooLarge)
}

// MsgTooSlow is the answer to a request whose body took longer to arrive than the BFF waits.
const MsgTooSlow = "The request took too long to arrive. Please try again."

// TooSlow is the answer to a request whose body did not arrive in time: DeadlineExceeded,
// since the same request over a better connection can succeed.
func TooSlow() error {
	return connect.NewError(connect.CodeDeadlineExceeded, errors.New(MsgTooSlow)) //nolint:staticcheck // ST1005: a sentence shown to the person as it is
}

// InvalidArgument is a validation failure found at the edge.
func InvalidArgument(msg string) error {
	return connect.NewError(connect.CodeInvalidArgument, errors.New(msg))
}
