package app

import (
	"context"
	"fmt"

	"github.com/thumela/thumela/services/paymentmethods/internal/domain"
)

// MaxProcessorRecordKeys bounds one ListProcessorRecords request.
const MaxProcessorRecordKeys = 1000

// ListProcessorRecords reads the processor's own records of the charges and refunds made
// under keys (the transfers service's idempotency keys), through the processor's API: what
// the processor says happened, whatever this service's tables say.
func (s *Service) ListProcessorRecords(ctx context.Context, keys []string) ([]ProcessorRecord, error) {
	if len(keys) > MaxProcessorRecordKeys {
		return nil, &domain.ValidationError{Violations: []domain.FieldViolation{{
			Field: "idempotency_keys", Message: fmt.Sprintf("At most %d idempotency keys", MaxProcessorRecordKeys),
		}}}
	}
	for _, k := range keys {
		if _, v := domain.ParseIdempotencyKey(k); v != nil {
			v.Field = "idempotency_keys"
			return nil, &domain.ValidationError{Violations: []domain.FieldViolation{*v}}
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	pctx, cancel := context.WithTimeout(ctx, s.processorTimeout)
	defer cancel()
	recs, err := s.processor.Records(pctx, keys)
	if err != nil {
		return nil, fmt.Errorf("%w: records: %w", domain.ErrProcessorUnavailable, err)
	}
	return recs, nil
}
