package paymentmethodsgrpc

import (
	"context"

	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

var _ app.ProcessorRecords = (*Client)(nil)

// ListProcessorRecords implements app.ProcessorRecords with the service token: the card
// processor's own records of the keys, read through paymentmethods.
func (c *Client) ListProcessorRecords(ctx context.Context, keys []string) ([]app.ProcessorRecord, error) {
	res, err := c.c.ListProcessorRecords(serviceContext(ctx), &paymentmethodsv1.ListProcessorRecordsRequest{IdempotencyKeys: keys})
	if err != nil {
		return nil, unavailable("list processor records", err)
	}
	out := make([]app.ProcessorRecord, 0, len(res.GetRecords()))
	for _, r := range res.GetRecords() {
		out = append(out, app.ProcessorRecord{
			IdempotencyKey: r.GetIdempotencyKey(),
			Refund:         r.GetKind() == paymentmethodsv1.ProcessorRecordKind_PROCESSOR_RECORD_KIND_REFUND,
			Approved:       r.GetStatus() == paymentmethodsv1.ChargeStatus_CHARGE_STATUS_APPROVED,
			Amount:         domain.Cents(r.GetAmountCents()),
		})
	}
	return out, nil
}
