package grpcport

import (
	"context"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/transfers/internal/events"
)

// The first-payment question's refusal, as transfers.proto documents it: like the step-up's,
// the BFF passes the ErrorInfo through and the wizard, seeing the reason, asks "Do you know
// {name} personally?" and sends the same request again with the sender's tick.
const (
	ReasonRecipientConfirmationRequired = "RECIPIENT_CONFIRMATION_REQUIRED"
	msgRecipientConfirmationRequired    = "Please confirm that you know the recipient personally before sending this money."
)

func recipientConfirmationStatus() error {
	st := status.New(codes.FailedPrecondition, msgRecipientConfirmationRequired)
	if d, err := st.WithDetails(&errdetails.ErrorInfo{Reason: ReasonRecipientConfirmationRequired, Domain: ErrorDomain}); err == nil {
		st = d
	}
	return st.Err()
}

// FreezeVouchers pauses the caller's active schedules and cancels every one of their vouchers
// awaiting collection; the refunds follow as for a single cancellation.
func (s *Server) FreezeVouchers(ctx context.Context, _ *transfersv1.FreezeVouchersRequest) (*transfersv1.FreezeVouchersResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	cancelled, paused, err := s.app.FreezeVouchers(ctx, c)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	res := &transfersv1.FreezeVouchersResponse{PausedSchedules: int32(paused)} //nolint:gosec // a user's schedules, far below 2^31
	for _, t := range cancelled {
		res.Cancelled = append(res.Cancelled, events.Transfer(t))
	}
	return res, nil
}
