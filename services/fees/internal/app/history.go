package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/thumela/thumela/services/fees/internal/domain"
)

// ErrInvalidEvent is returned by RecordTransfer for an event that can never be recorded.
var ErrInvalidEvent = errors.New("invalid transfer event")

// RecordTransfer records a transfer's status from the transfers service's events.
func (s *Service) RecordTransfer(ctx context.Context, transferID, userID string, status domain.TransferStatus) error {
	if transferID == "" || userID == "" || !status.Known() {
		return fmt.Errorf("%w: transfer %q of user %q with status %q", ErrInvalidEvent, transferID, userID, status)
	}
	if s.history == nil {
		return nil
	}
	return s.history.Record(ctx, transferID, userID, status)
}
