package handlers

import (
	"context"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"

	"github.com/thumela/thumela/bff/internal/rpcerr"
)

// Schedules implements thumela.bff.v1.SchedulesService: the sender's recurring sends. transfers
// keeps them, runs them and scopes them to the session's user (another user's schedule answers
// NotFound); the BFF forwards.
type Schedules struct {
	// Unimplemented answers CodeUnimplemented for an RPC not written yet.
	bffv1connect.UnimplementedSchedulesServiceHandler
	*Deps
}

var _ bffv1connect.SchedulesServiceHandler = (*Schedules)(nil)

func (s *Schedules) CreateSchedule(ctx context.Context, req *bffv1.CreateScheduleRequest) (*bffv1.CreateScheduleResponse, error) {
	callCtx := ctx
	ctx, g, err := s.authed(ctx)
	if err != nil {
		return nil, err
	}
	in := &transfersv1.CreateScheduleRequest{
		IdempotencyKey:  req.GetIdempotencyKey(),
		RecipientName:   req.GetRecipientName(),
		RecipientPhone:  req.GetRecipientPhone(),
		Bank:            banks.toService(req.GetBank()),
		AmountCents:     req.GetAmountCents(),
		PaymentMethodId: req.GetPaymentMethodId(),
		Frequency:       scheduleFrequencies.toService(req.GetFrequency()),
		StartDate:       req.GetStartDate(),
		EndDate:         req.GetEndDate(),
		// The consent the occurrences rely on: transfers asks the first-payment question here
		// (RECIPIENT_CONFIRMATION_REQUIRED) and never again for the occurrences.
		RecipientKnownConfirmed: req.GetRecipientKnownConfirmed(),
	}
	res, err := s.Deps.Transfers.CreateSchedule(ctx, in)
	// A schedule is consented to once, so it is held to CreateTransfer's step-up rule; a
	// step-up made through another replica needs the fresh grant here too.
	if err != nil && stepUpRequired(err) {
		if retryCtx, ok := s.freshGrant(callCtx, g); ok {
			res, err = s.Deps.Transfers.CreateSchedule(retryCtx, in)
		}
	}
	if err != nil {
		return nil, rpcerr.FromService(ctx, s.Logger, err)
	}
	return &bffv1.CreateScheduleResponse{Schedule: scheduleToBFF(res.GetSchedule())}, nil
}

func (s *Schedules) ListSchedules(ctx context.Context, _ *bffv1.ListSchedulesRequest) (*bffv1.ListSchedulesResponse, error) {
	res, err := forward(ctx, s.Deps, s.Deps.Transfers.ListSchedules, &transfersv1.ListSchedulesRequest{})
	if err != nil {
		return nil, err
	}
	out := &bffv1.ListSchedulesResponse{Schedules: make([]*bffv1.Schedule, 0, len(res.GetSchedules()))}
	for _, sc := range res.GetSchedules() {
		out.Schedules = append(out.Schedules, scheduleToBFF(sc))
	}
	return out, nil
}

func (s *Schedules) PauseSchedule(ctx context.Context, req *bffv1.PauseScheduleRequest) (*bffv1.PauseScheduleResponse, error) {
	res, err := forward(ctx, s.Deps, s.Deps.Transfers.PauseSchedule, &transfersv1.PauseScheduleRequest{ScheduleId: req.GetScheduleId()})
	if err != nil {
		return nil, err
	}
	return &bffv1.PauseScheduleResponse{Schedule: scheduleToBFF(res.GetSchedule())}, nil
}

func (s *Schedules) ResumeSchedule(ctx context.Context, req *bffv1.ResumeScheduleRequest) (*bffv1.ResumeScheduleResponse, error) {
	res, err := forward(ctx, s.Deps, s.Deps.Transfers.ResumeSchedule, &transfersv1.ResumeScheduleRequest{ScheduleId: req.GetScheduleId()})
	if err != nil {
		return nil, err
	}
	return &bffv1.ResumeScheduleResponse{Schedule: scheduleToBFF(res.GetSchedule())}, nil
}

func (s *Schedules) DeleteSchedule(ctx context.Context, req *bffv1.DeleteScheduleRequest) (*bffv1.DeleteScheduleResponse, error) {
	ctx, _, err := s.authed(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := s.Deps.Transfers.DeleteSchedule(ctx, &transfersv1.DeleteScheduleRequest{ScheduleId: req.GetScheduleId()}); err != nil {
		return nil, rpcerr.FromService(ctx, s.Logger, err)
	}
	return &bffv1.DeleteScheduleResponse{}, nil
}
