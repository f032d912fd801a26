package handlers

import (
	"context"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"

	"github.com/thumela/thumela/bff/internal/rpcerr"
)

// Recipients implements thumela.bff.v1.RecipientsService: the sender's saved recipients.
// transfers keeps them (a completed transfer saves its recipient) and scopes them to the
// session's user; the BFF forwards.
type Recipients struct {
	// Unimplemented answers CodeUnimplemented for an RPC not written yet.
	bffv1connect.UnimplementedRecipientsServiceHandler
	*Deps
}

var _ bffv1connect.RecipientsServiceHandler = (*Recipients)(nil)

func (r *Recipients) ListRecipients(ctx context.Context, req *bffv1.ListRecipientsRequest) (*bffv1.ListRecipientsResponse, error) {
	res, err := forward(ctx, r.Deps, r.Deps.Transfers.ListRecipients, &transfersv1.ListRecipientsRequest{Query: req.GetQuery()})
	if err != nil {
		return nil, err
	}
	out := &bffv1.ListRecipientsResponse{Recipients: make([]*bffv1.Recipient, 0, len(res.GetRecipients()))}
	for _, rec := range res.GetRecipients() {
		out.Recipients = append(out.Recipients, recipientToBFF(rec))
	}
	return out, nil
}

func (r *Recipients) UpdateRecipient(ctx context.Context, req *bffv1.UpdateRecipientRequest) (*bffv1.UpdateRecipientResponse, error) {
	res, err := forward(ctx, r.Deps, r.Deps.Transfers.UpdateRecipient, &transfersv1.UpdateRecipientRequest{
		RecipientId: req.GetRecipientId(), Name: req.GetName(), Phone: req.GetPhone(), Bank: banks.toService(req.GetBank()),
	})
	if err != nil {
		return nil, err
	}
	return &bffv1.UpdateRecipientResponse{Recipient: recipientToBFF(res.GetRecipient())}, nil
}

func (r *Recipients) DeleteRecipient(ctx context.Context, req *bffv1.DeleteRecipientRequest) (*bffv1.DeleteRecipientResponse, error) {
	ctx, _, err := r.authed(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := r.Deps.Transfers.DeleteRecipient(ctx, &transfersv1.DeleteRecipientRequest{RecipientId: req.GetRecipientId()}); err != nil {
		return nil, rpcerr.FromService(ctx, r.Logger, err)
	}
	return &bffv1.DeleteRecipientResponse{}, nil
}

func recipientToBFF(r *transfersv1.Recipient) *bffv1.Recipient {
	if r == nil {
		return nil
	}
	return &bffv1.Recipient{
		Id: r.GetId(), Name: r.GetName(), Phone: r.GetPhone(), Bank: banks.toBFF(r.GetBank()),
		CreatedAt: r.GetCreatedAt(), UpdatedAt: r.GetUpdatedAt(), LastPaidAt: r.GetLastPaidAt(),
	}
}
