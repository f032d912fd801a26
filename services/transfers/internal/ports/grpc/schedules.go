package grpcport

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// CreateSchedule sets up a recurring send for the caller.
func (s *Server) CreateSchedule(ctx context.Context, req *transfersv1.CreateScheduleRequest) (*transfersv1.CreateScheduleResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	sch, err := s.app.CreateSchedule(ctx, c, domain.ScheduleInput{
		IdempotencyKey:          req.GetIdempotencyKey(),
		RecipientName:           req.GetRecipientName(),
		RecipientPhone:          req.GetRecipientPhone(),
		Bank:                    bankFromProto(req.GetBank()),
		AmountCents:             req.GetAmountCents(),
		PaymentMethodID:         req.GetPaymentMethodId(),
		Frequency:               frequencyFromProto(req.GetFrequency()),
		StartDate:               req.GetStartDate(),
		EndDate:                 req.GetEndDate(),
		RecipientKnownConfirmed: req.GetRecipientKnownConfirmed(),
	})
	if err != nil {
		return nil, s.scheduleStatus(ctx, err)
	}
	return &transfersv1.CreateScheduleResponse{Schedule: schedule(sch, s.app.Today())}, nil
}

// ListSchedules returns the caller's schedules with their latest occurrences.
func (s *Server) ListSchedules(ctx context.Context, _ *transfersv1.ListSchedulesRequest) (*transfersv1.ListSchedulesResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	list, err := s.app.ListSchedules(ctx, c)
	if err != nil {
		return nil, s.scheduleStatus(ctx, err)
	}
	today := s.app.Today()
	res := &transfersv1.ListSchedulesResponse{Schedules: make([]*transfersv1.Schedule, 0, len(list))}
	for _, sch := range list {
		res.Schedules = append(res.Schedules, schedule(sch, today))
	}
	return res, nil
}

// PauseSchedule pauses one of the caller's schedules.
func (s *Server) PauseSchedule(ctx context.Context, req *transfersv1.PauseScheduleRequest) (*transfersv1.PauseScheduleResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	sch, err := s.app.PauseSchedule(ctx, c, req.GetScheduleId())
	if err != nil {
		return nil, s.scheduleStatus(ctx, err)
	}
	return &transfersv1.PauseScheduleResponse{Schedule: schedule(sch, s.app.Today())}, nil
}

// ResumeSchedule resumes one of the caller's schedules.
func (s *Server) ResumeSchedule(ctx context.Context, req *transfersv1.ResumeScheduleRequest) (*transfersv1.ResumeScheduleResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	sch, err := s.app.ResumeSchedule(ctx, c, req.GetScheduleId())
	if err != nil {
		return nil, s.scheduleStatus(ctx, err)
	}
	return &transfersv1.ResumeScheduleResponse{Schedule: schedule(sch, s.app.Today())}, nil
}

// DeleteSchedule deletes one of the caller's schedules.
func (s *Server) DeleteSchedule(ctx context.Context, req *transfersv1.DeleteScheduleRequest) (*transfersv1.DeleteScheduleResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.app.DeleteSchedule(ctx, c, req.GetScheduleId()); err != nil {
		return nil, s.scheduleStatus(ctx, err)
	}
	return &transfersv1.DeleteScheduleResponse{}, nil
}

// scheduleStatus maps the schedules' own errors; the rest (validation, limits, step-up, the
// first-payment question, the card) as CreateTransfer's.
func (s *Server) scheduleStatus(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, domain.ErrScheduleNotFound), errors.Is(err, domain.ErrNotFound):
		return status.Error(codes.NotFound, "Scheduled send not found.")
	case errors.Is(err, domain.ErrScheduleEnded):
		return status.Error(codes.FailedPrecondition, domain.MsgScheduleEnded)
	case errors.Is(err, domain.ErrIdempotencyConflict):
		return status.Error(codes.AlreadyExists, "This idempotency key was already used for a different scheduled send.")
	default:
		return s.toStatus(ctx, err)
	}
}
