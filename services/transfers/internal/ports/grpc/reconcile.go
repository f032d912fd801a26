package grpcport

import (
	"context"
	"errors"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/transfers/internal/app"
)

// MsgReconciliationRunning answers a Reconcile while another run holds the lock.
const MsgReconciliationRunning = "A reconciliation is running right now. Try again in a minute."

// retryAfterReconcile is the wait suggested when the processor's records cannot be read.
const retryAfterReconcile = time.Minute

// ReconcilingServer is the Server with the on-call service's Reconcile.
type ReconcilingServer struct {
	*Server
	rec *app.Reconciler
}

// WithReconciler adds Reconcile (only the service "oncall": Policy) to s.
func WithReconciler(s *Server, rec *app.Reconciler) *ReconcilingServer {
	return &ReconcilingServer{Server: s, rec: rec}
}

// Reconcile runs the money checks now and answers the run.
func (s *ReconcilingServer) Reconcile(ctx context.Context, req *transfersv1.ReconcileRequest) (*transfersv1.ReconcileResponse, error) {
	run, err := s.rec.Reconcile(ctx, req.GetFull())
	switch {
	case err == nil:
	case errors.Is(err, app.ErrReconciliationRunning):
		return nil, status.Error(codes.FailedPrecondition, MsgReconciliationRunning)
	case errors.Is(err, app.ErrUnavailable):
		return nil, grpcserver.WithRetryInfo(codes.Unavailable, "The payment processor's records cannot be read right now. Try again in a minute.", retryAfterReconcile)
	default:
		return nil, grpcserver.Unexpected(ctx, s.logger, err)
	}
	out := &transfersv1.ReconciliationRun{
		Id:               run.ID.String(),
		Full:             run.Full,
		StartedAt:        timestamppb.New(run.StartedAt),
		FinishedAt:       timestamppb.New(run.FinishedAt),
		TransfersChecked: run.TransfersChecked,
	}
	if !run.WindowFrom.IsZero() {
		out.WindowFrom = timestamppb.New(run.WindowFrom)
	}
	for _, m := range run.Mismatches {
		out.Mismatches = append(out.Mismatches, &transfersv1.Mismatch{Kind: m.Kind, TransferIds: m.TransferIDs, Detail: m.Detail})
	}
	return &transfersv1.ReconcileResponse{Run: out}, nil
}
