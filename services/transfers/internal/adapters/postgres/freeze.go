package postgres

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// awaitingCollectionSQL lists a sender's vouchers awaiting collection ($1), oldest first.
// transfers_uncollected_idx (0008) holds exactly these rows per sender; they are found there
// and then sorted. Asked in one statement with the ORDER BY, the plan walked
// transfers_user_created_idx in its order instead, through the sender's whole history, to
// spare a sort of a few rows; the OFFSET 0 keeps the search apart from the order
// (TestOneTransferPlansUseThePrimaryKey).
const awaitingCollectionSQL = `SELECT id FROM (
		SELECT id, created_at FROM transfers WHERE user_id = $1 AND collection_status = 'awaiting_collection' OFFSET 0
	) AS awaiting ORDER BY created_at, id`

// AwaitingCollection implements app.Repository. It reads without locking: each id is then
// cancelled through Update, which locks the row and decides on what it finds there, so a
// voucher collected (or expired) since this read is left alone rather than cancelled.
func (r *Transfers) AwaitingCollection(ctx context.Context, userID uuid.UUID) ([]uuid.UUID, error) {
	rows, err := r.pool.Query(ctx, awaitingCollectionSQL, userID)
	if err != nil {
		return nil, fmt.Errorf("vouchers awaiting collection: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return nil, fmt.Errorf("vouchers awaiting collection: %w", err)
	}
	return ids, nil
}
