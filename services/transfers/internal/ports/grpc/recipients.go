package grpcport

import (
	"context"
	"errors"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// ListRecipients returns the caller's saved recipients, most recently paid first.
func (s *Server) ListRecipients(ctx context.Context, req *transfersv1.ListRecipientsRequest) (*transfersv1.ListRecipientsResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	list, err := s.app.ListRecipients(ctx, c, req.GetQuery())
	if err != nil {
		return nil, s.recipientStatus(ctx, err)
	}
	res := &transfersv1.ListRecipientsResponse{Recipients: make([]*transfersv1.Recipient, 0, len(list))}
	for _, r := range list {
		res.Recipients = append(res.Recipients, recipient(r))
	}
	return res, nil
}

// UpdateRecipient edits one of the caller's saved recipients.
func (s *Server) UpdateRecipient(ctx context.Context, req *transfersv1.UpdateRecipientRequest) (*transfersv1.UpdateRecipientResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.app.UpdateRecipient(ctx, c, req.GetRecipientId(), req.GetName(), req.GetPhone(),
		bankFromProto(req.GetBank()))
	if err != nil {
		return nil, s.recipientStatus(ctx, err)
	}
	return &transfersv1.UpdateRecipientResponse{Recipient: recipient(r)}, nil
}

// DeleteRecipient deletes one of the caller's saved recipients.
func (s *Server) DeleteRecipient(ctx context.Context, req *transfersv1.DeleteRecipientRequest) (*transfersv1.DeleteRecipientResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.app.DeleteRecipient(ctx, c, req.GetRecipientId()); err != nil {
		return nil, s.recipientStatus(ctx, err)
	}
	return &transfersv1.DeleteRecipientResponse{}, nil
}

// recipientStatus maps the recipients' own errors; the rest as every other RPC's.
func (s *Server) recipientStatus(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, domain.ErrRecipientNotFound), errors.Is(err, domain.ErrNotFound):
		return status.Error(codes.NotFound, MsgRecipientNotFound)
	case errors.Is(err, domain.ErrRecipientPhoneTaken):
		// AlreadyExists with the field, so that the edit dialog shows it under the phone.
		st := status.New(codes.AlreadyExists, domain.MsgRecipientPhoneTaken)
		if d, derr := st.WithDetails(&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{
			{Field: "phone", Description: domain.MsgRecipientPhoneTaken}}}); derr == nil {
			st = d
		}
		return st.Err()
	default:
		return s.toStatus(ctx, err)
	}
}
