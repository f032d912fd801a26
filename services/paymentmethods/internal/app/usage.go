package app

import (
	"context"

	"github.com/google/uuid"
)

// RecordTransferUsage notes that a transfer uses a method, from the transfers service's
// events. Ids that cannot name a method are ignored: there is nothing to protect.
func (s *Service) RecordTransferUsage(ctx context.Context, userID, paymentMethodID, transferID string) error {
	uid, err1 := uuid.Parse(userID)
	mid, err2 := uuid.Parse(paymentMethodID)
	if err1 != nil || err2 != nil || transferID == "" {
		return nil
	}
	return s.repo.MarkUsedByTransfer(ctx, uid, mid, transferID)
}
