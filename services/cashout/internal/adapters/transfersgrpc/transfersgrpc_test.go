package transfersgrpc

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/cashout/internal/domain"
)

func refusal(code codes.Code, reason transfersv1.CollectionRefused_Reason) error {
	st, err := status.New(code, "refused").WithDetails(&transfersv1.CollectionRefused{Reason: reason, AttemptsLeft: 3})
	if err != nil {
		panic(err)
	}
	return st.Err()
}

func TestCollectError(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// The detail decides, whatever the code.
	for reason, want := range reasons {
		var refused *domain.RefusedError
		if err := collectError(ctx, refusal(codes.FailedPrecondition, reason)); !errors.As(err, &refused) || refused.Reason != want {
			t.Errorf("%v: %v, want %v", reason, err, want)
		}
	}
	var refused *domain.RefusedError
	if err := collectError(ctx, refusal(codes.PermissionDenied, transfersv1.CollectionRefused_REASON_WRONG_CREDENTIALS)); !errors.As(err, &refused) || refused.AttemptsLeft != 3 {
		t.Errorf("attempts left not carried: %v", err)
	}
	// Without a detail (or with an unspecified reason), the code decides.
	for code, want := range map[codes.Code]domain.Reason{
		codes.PermissionDenied:   domain.ReasonWrongCredentials,
		codes.ResourceExhausted:  domain.ReasonLocked,
		codes.FailedPrecondition: domain.ReasonNotPermitted,
		codes.NotFound:           domain.ReasonInvalidVoucher,
		codes.AlreadyExists:      domain.ReasonReferenceReused,
	} {
		for _, err := range []error{status.Error(code, "x"), refusal(code, transfersv1.CollectionRefused_REASON_UNSPECIFIED)} {
			var refused *domain.RefusedError
			if got := collectError(ctx, err); !errors.As(got, &refused) || refused.Reason != want {
				t.Errorf("%v: %v, want %v", err, got, want)
			}
		}
	}
	var format *domain.FormatError
	if err := collectError(ctx, status.Error(codes.InvalidArgument, "bad")); !errors.As(err, &format) {
		t.Errorf("InvalidArgument: %v", err)
	}
	for _, err := range []error{status.Error(codes.Unavailable, "down"), status.Error(codes.DeadlineExceeded, "slow"), context.DeadlineExceeded} {
		if got := collectError(ctx, err); !errors.Is(got, domain.ErrIssuerUnavailable) {
			t.Errorf("%v: %v, want ErrIssuerUnavailable", err, got)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if got := collectError(cancelled, status.Error(codes.Internal, "x")); !errors.Is(got, domain.ErrIssuerUnavailable) {
		t.Errorf("our context ended: %v, want ErrIssuerUnavailable", got)
	}
	for _, code := range []codes.Code{codes.Internal, codes.Unauthenticated, codes.Unknown} {
		got := collectError(ctx, status.Error(code, "x"))
		var refused *domain.RefusedError
		if errors.Is(got, domain.ErrIssuerUnavailable) || errors.As(got, &refused) {
			t.Errorf("%v: %v, want a fault", code, got)
		}
	}
}
