package grpcport

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	"github.com/thumela/thumela/services/paymentmethods/internal/app"
	"github.com/thumela/thumela/services/paymentmethods/internal/domain"
)

// ListProcessorRecords answers with the card processor's own records of the keys (transfers
// service only, for reconciliation). Records carry amounts and ids, never card data.
func (s *Server) ListProcessorRecords(ctx context.Context, req *paymentmethodsv1.ListProcessorRecordsRequest) (*paymentmethodsv1.ListProcessorRecordsResponse, error) {
	recs, err := s.app.ListProcessorRecords(ctx, req.GetIdempotencyKeys())
	if err != nil {
		return nil, s.toStatus(ctx, err, MsgChargeNotFound)
	}
	out := make([]*paymentmethodsv1.ProcessorRecord, len(recs))
	for i, r := range recs {
		out[i] = processorRecord(r)
	}
	return &paymentmethodsv1.ListProcessorRecordsResponse{Records: out}, nil
}

func processorRecord(r app.ProcessorRecord) *paymentmethodsv1.ProcessorRecord {
	pr := &paymentmethodsv1.ProcessorRecord{
		IdempotencyKey: r.IdempotencyKey,
		ChargeId:       r.ChargeID,
		AmountCents:    r.Amount.Cents(),
		CreatedAt:      timestamppb.New(r.CreatedAt),
	}
	switch r.Kind {
	case app.RecordCharge:
		pr.Kind = paymentmethodsv1.ProcessorRecordKind_PROCESSOR_RECORD_KIND_CHARGE
	case app.RecordRefund:
		pr.Kind = paymentmethodsv1.ProcessorRecordKind_PROCESSOR_RECORD_KIND_REFUND
	}
	switch r.Status {
	case domain.StatusApproved:
		pr.Status = paymentmethodsv1.ChargeStatus_CHARGE_STATUS_APPROVED
	case domain.StatusDeclined:
		pr.Status = paymentmethodsv1.ChargeStatus_CHARGE_STATUS_DECLINED
	}
	return pr
}
