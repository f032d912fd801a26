package postgres

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// AwaitingCollection implements app.Repository. It reads without locking: each id is then
// cancelled through Update, which locks the row and decides on what it finds there, so a
// voucher collected (or expired) since this read is left alone rather than cancelled.
func (r *Transfers) AwaitingCollection(ctx context.Context, userID uuid.UUID) ([]uuid.UUID, error) {
	// transfers_uncollected_idx (0008) holds exactly these rows per sender.
	rows, err := r.pool.Query(ctx, `SELECT id FROM transfers
		WHERE user_id = $1 AND collection_status = 'awaiting_collection'
		ORDER BY created_at, id`, userID)
	if err != nil {
		return nil, fmt.Errorf("vouchers awaiting collection: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return nil, fmt.Errorf("vouchers awaiting collection: %w", err)
	}
	return ids, nil
}
