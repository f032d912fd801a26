package postgres

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/thumela/thumela/services/fees/internal/app"
	"github.com/thumela/thumela/services/fees/internal/domain"
)

// TransferHistory implements app.TransferHistory over the sender_transfers table.
type TransferHistory struct{ pool *pgxpool.Pool }

// NewTransferHistory returns the projection over pool (search_path = fees).
func NewTransferHistory(pool *pgxpool.Pool) *TransferHistory { return &TransferHistory{pool: pool} }

var _ app.TransferHistory = (*TransferHistory)(nil)

// HasTransferred implements app.TransferHistory. A subject that is not a user id has no
// transfers.
func (h *TransferHistory) HasTransferred(ctx context.Context, userID string) (bool, error) {
	id, err := uuid.Parse(userID)
	if err != nil {
		return false, nil
	}
	var before bool
	if err := h.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM sender_transfers WHERE user_id = $1 AND status <> 'failed')`,
		id).Scan(&before); err != nil {
		return false, fmt.Errorf("transfer history: %w", err)
	}
	return before, nil
}

// Record implements app.TransferHistory. A transfer's row is inserted at the first event heard
// of it and updated only when it fails: the waiver reads failed or not, so the steps between
// (processing, completed) change nothing and are not written (two writes per transfer fewer;
// a statement that writes nothing commits without a WAL flush). A failure is final: an older
// event redelivered after it changes nothing.
func (h *TransferHistory) Record(ctx context.Context, transferID, userID string, status domain.TransferStatus) error {
	tid, err := uuid.Parse(transferID)
	if err != nil {
		return fmt.Errorf("%w: transfer id %q", app.ErrInvalidEvent, transferID)
	}
	uid, err := uuid.Parse(userID)
	if err != nil {
		return fmt.Errorf("%w: user id %q", app.ErrInvalidEvent, userID)
	}
	_, err = h.pool.Exec(ctx, `INSERT INTO sender_transfers (transfer_id, user_id, status) VALUES ($1, $2, $3)
		ON CONFLICT (transfer_id) DO UPDATE SET status = EXCLUDED.status, updated_at = now()
		WHERE EXCLUDED.status = 'failed' AND sender_transfers.status <> 'failed'`,
		tid, uid, string(status))
	if err != nil {
		return fmt.Errorf("record transfer: %w", err)
	}
	return nil
}
