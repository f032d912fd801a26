package rpcerr

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

func TestFromService(t *testing.T) {
	t.Parallel()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	weak, _ := status.New(codes.InvalidArgument, "password is too weak").WithDetails(&errdetails.BadRequest{
		FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "password", Description: "is a common password"}},
	})
	tests := []struct {
		name        string
		in          error
		wantCode    connect.Code
		wantMsg     string
		wantDetails int
	}{
		{"not found keeps its code and message", status.Error(codes.NotFound, "payment method not found"), connect.CodeNotFound, "payment method not found", 0},
		{"details pass through", weak.Err(), connect.CodeInvalidArgument, "password is too weak", 1},
		{"internal is hidden", status.Error(codes.Internal, "pq: relation does not exist"), connect.CodeInternal, MsgInternal, 0},
		{"not a status is internal", errors.New("boom"), connect.CodeInternal, MsgInternal, 0},
		{"unavailable is friendly and hints a retry", status.Error(codes.Unavailable, "connection refused"), connect.CodeUnavailable, UnavailableMessage, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := FromService(context.Background(), logger, tt.in)
			var ce *connect.Error
			if !errors.As(err, &ce) {
				t.Fatalf("not a connect error: %v", err)
			}
			if ce.Code() != tt.wantCode || ce.Message() != tt.wantMsg || len(ce.Details()) != tt.wantDetails {
				t.Fatalf("got %v %q %d details", ce.Code(), ce.Message(), len(ce.Details()))
			}
		})
	}
}

// transfers' step-up refusal reaches the browser as it left transfers: FailedPrecondition, the
// message, and the ErrorInfo whose reason the wizard reads to open "Confirm it's you".
func TestFromServiceKeepsTheStepUpErrorInfo(t *testing.T) {
	t.Parallel()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, err := status.New(codes.FailedPrecondition, "Please confirm it's you before sending this money.").WithDetails(
		&errdetails.ErrorInfo{Reason: "STEP_UP_REQUIRED", Domain: "transfers.thumela.co.za"})
	if err != nil {
		t.Fatal(err)
	}
	var ce *connect.Error
	if !errors.As(FromService(context.Background(), logger, st.Err()), &ce) {
		t.Fatal("not a connect error")
	}
	if ce.Code() != connect.CodeFailedPrecondition || ce.Message() != "Please confirm it's you before sending this money." {
		t.Fatalf("%v %q", ce.Code(), ce.Message())
	}
	var info *errdetails.ErrorInfo
	for _, d := range ce.Details() {
		if m, err := d.Value(); err == nil {
			if i, ok := m.(*errdetails.ErrorInfo); ok {
				info = i
			}
		}
	}
	if info.GetReason() != "STEP_UP_REQUIRED" || info.GetDomain() != "transfers.thumela.co.za" || len(ce.Details()) != 1 {
		t.Fatalf("details %v, want the one STEP_UP_REQUIRED ErrorInfo", ce.Details())
	}
}

// While a service cannot be reached (stopped: gRPC's own Unavailable; or its database is down:
// the service's Unavailable with a RetryInfo), the browser hears the same sentence, never the
// cause, and a retry hint: the service's when it gave one, else the BFF's default.
func TestFromServiceUnavailable(t *testing.T) {
	t.Parallel()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	dbDown, err := status.New(codes.Unavailable, "temporarily unavailable, please try again").WithDetails(
		&errdetails.RetryInfo{RetryDelay: durationpb.New(2 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		in        error
		wantRetry time.Duration
	}{
		{"service stopped", status.Error(codes.Unavailable, "connection error: desc = \"transport: Error while dialing: dial tcp 127.0.0.1:41003: connect: connection refused\""), defaultRetryAfter},
		{"service's database down", dbDown.Err(), 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var ce *connect.Error
			if !errors.As(FromService(context.Background(), logger, tt.in), &ce) {
				t.Fatal("not a connect error")
			}
			if ce.Code() != connect.CodeUnavailable || ce.Message() != "We can't reach our payment system right now. Your money is safe; try again in a minute." {
				t.Fatalf("%v %q", ce.Code(), ce.Message())
			}
			var retries []time.Duration
			for _, d := range ce.Details() {
				if m, err := d.Value(); err == nil {
					if info, ok := m.(*errdetails.RetryInfo); ok {
						retries = append(retries, info.GetRetryDelay().AsDuration())
					}
				}
			}
			if len(retries) != 1 || retries[0] != tt.wantRetry || len(ce.Details()) != 1 {
				t.Fatalf("retry hints %v among %d details, want only %v", retries, len(ce.Details()), tt.wantRetry)
			}
		})
	}
}

// identity's sign-in back-off reaches the browser with its RetryInfo and a Retry-After header,
// as the BFF's own limits answer; a throttle without a RetryInfo gets no header.
func TestFromServiceSetsRetryAfterForAThrottle(t *testing.T) {
	t.Parallel()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, err := status.New(codes.ResourceExhausted, "Too many sign-in attempts. Please try again in 2 seconds.").WithDetails(
		&errdetails.RetryInfo{RetryDelay: durationpb.New(1500 * time.Millisecond)})
	if err != nil {
		t.Fatal(err)
	}
	var ce *connect.Error
	if !errors.As(FromService(context.Background(), logger, st.Err()), &ce) {
		t.Fatal("not a connect error")
	}
	if ce.Code() != connect.CodeResourceExhausted || len(ce.Details()) != 1 || ce.Meta().Get("Retry-After") != "2" {
		t.Errorf("got %v, %d details, Retry-After %q; want ResourceExhausted, the RetryInfo and 2", ce.Code(), len(ce.Details()), ce.Meta().Get("Retry-After"))
	}
	if !errors.As(FromService(context.Background(), logger, status.Error(codes.ResourceExhausted, "quota")), &ce) {
		t.Fatal("not a connect error")
	}
	if got := ce.Meta().Get("Retry-After"); got != "" {
		t.Errorf("Retry-After %q without a RetryInfo", got)
	}
}
