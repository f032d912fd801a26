// Package rpcerr turns what the services answer into what the browser is told. The gRPC and
// Connect codes are the same numbers, so a service's NotFound stays NotFound and its message
// and details (weak-password reasons, retry-after, which limit) pass through. Internal errors
// and anything that is not a status are logged and answered with a generic message.
package rpcerr

import (
	"context"
	"errors"
	"log/slog"

	"connectrpc.com/connect"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
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
		logger.WarnContext(ctx, "a service is unavailable", "err", err)
		return connect.NewError(connect.CodeUnavailable, errors.New("the service is temporarily unavailable, please try again"))
	}
	cerr := connect.NewError(connect.Code(st.Code()), errors.New(st.Message()))
	for _, d := range st.Proto().GetDetails() {
		if m, err := d.UnmarshalNew(); err == nil {
			if detail, err := connect.NewErrorDetail(m); err == nil {
				cerr.AddDetail(detail)
			}
		}
	}
	return cerr
}

// Internal logs the cause and answers a generic message: the browser never sees internals.
func Internal(ctx context.Context, logger *slog.Logger, err error) error {
	logger.ErrorContext(ctx, "internal error", "err", err)
	return connect.NewError(connect.CodeInternal, errors.New("something went wrong, please try again"))
}

// Unauthenticated is the answer to a call that needs a session and has none.
func Unauthenticated() error {
	return connect.NewError(connect.CodeUnauthenticated, errors.New("you must be logged in to perform this action"))
}

// InvalidArgument is a validation failure found at the edge.
func InvalidArgument(msg string) error {
	return connect.NewError(connect.CodeInvalidArgument, errors.New(msg))
}
