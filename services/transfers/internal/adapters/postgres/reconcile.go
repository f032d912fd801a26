package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	platformpg "github.com/thumela/thumela/services/platform/postgres"
	"github.com/thumela/thumela/services/transfers/internal/app"
)

// Reconciliation is app.ReconcileStore: reads with bounded cost (the window's pages by
// transfers_updated_idx, the ledger's by credit_entries_created_idx; migration 0014) and the
// runs table.
type Reconciliation struct{ pool *pgxpool.Pool }

// NewReconciliation returns the store over pool (search_path = transfers).
func NewReconciliation(pool *pgxpool.Pool) *Reconciliation { return &Reconciliation{pool: pool} }

var _ app.ReconcileStore = (*Reconciliation)(nil)

// reconcileLockKey is the advisory lock one reconciliation holds across every replica.
var reconcileLockKey = platformpg.AdvisoryKey("thumela/transfers/reconciliation")

// LockReconciliation implements app.ReconcileStore with a session-level advisory lock on a
// connection kept for the run. A process that dies mid-run loses its session, and the lock
// with it.
func (s *Reconciliation) LockReconciliation(ctx context.Context) (func(), bool, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, false, wrapReconcile("acquire a connection for the reconciliation lock", err)
	}
	var locked bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, reconcileLockKey).Scan(&locked); err != nil {
		conn.Release()
		return nil, false, wrapReconcile("take the reconciliation lock", err)
	}
	if !locked {
		conn.Release()
		return nil, false, nil
	}
	return func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(uctx, `SELECT pg_advisory_unlock($1)`, reconcileLockKey); err != nil {
			// Closing the session is what frees the lock for sure.
			_ = conn.Conn().Close(uctx)
		}
		conn.Release()
	}, true, nil
}

// LastCleanRun implements app.ReconcileStore.
func (s *Reconciliation) LastCleanRun(ctx context.Context) (time.Time, bool, error) {
	var at time.Time
	err := s.pool.QueryRow(ctx, `SELECT started_at FROM reconciliation_runs WHERE clean ORDER BY started_at DESC LIMIT 1`).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, false, nil
	}
	return at, err == nil, wrapReconcile("read the last clean reconciliation", err)
}

// factsSelect reads one transfer for the checks, with what its credit movements moved for
// the sender (credit_entries_transfer_idx).
const factsSelect = `SELECT t.id, t.status, coalesce(t.collection_status, ''), coalesce(t.refund_status, ''),
	t.charge_id, t.refund_id, t.total_cents, t.card_charge_cents, t.credit_applied_cents,
	coalesce((SELECT -sum(e.amount_cents) FROM credit_entries e
		WHERE e.transfer_id = t.id AND e.kind = 'spent' AND e.account LIKE 'user:%'), 0),
	coalesce((SELECT sum(e.amount_cents) FROM credit_entries e
		WHERE e.transfer_id = t.id AND e.kind = 'returned' AND e.account LIKE 'user:%'), 0),
	t.updated_at
	FROM transfers t `

func scanFacts(row pgx.CollectableRow) (app.ReconcileFacts, error) {
	var f app.ReconcileFacts
	err := row.Scan(&f.ID, &f.Status, &f.CollectionStatus, &f.RefundStatus, &f.ChargeID, &f.RefundID,
		&f.Total, &f.CardCharge, &f.CreditApplied, &f.CreditSpent, &f.CreditReturned, &f.UpdatedAt)
	return f, err
}

// indexOnly are the settings the reads of a reconciliation's window run under (SET LOCAL, in a
// transaction of their own): no sequential scan, no sort. Both reads take a parameter the
// generic plan cannot see (where the window or the page starts), and pgx prepares them: a page
// is the same statement run once per 500 transfers, so it comes to its generic plan within a
// run. Planned on new, empty tables (a fresh deploy, never analysed), that plan sorted a
// sequential scan of every finished transfer for each page, and walked the whole ledger's key
// twice for the movements; PostgreSQL keeps a generic plan as the tables grow, until an ANALYZE.
// With these off, the page can only walk transfers_updated_idx in its order from the last row
// read, stopping at the page's end, and the movements are found through
// credit_entries_created_idx and then their key (TestReconciliationPlansUseTheirIndexes).
var indexOnly = []string{`SET LOCAL enable_seqscan = off`, `SET LOCAL enable_sort = off`}

// readIndexOnly runs sql with args under indexOnly, in a transaction of its own (BEGIN, the
// settings and the statement in one round trip, then COMMIT), and collects its rows with scan.
func readIndexOnly[T any](ctx context.Context, pool *pgxpool.Pool, sql string, args []any, scan pgx.RowToFunc[T]) ([]T, error) {
	var out []T
	err := platformpg.InTx(ctx, pool, func(tx pgx.Tx) (err error) {
		out, err = platformpg.QueryUnder(ctx, tx, indexOnly, sql, args, scan)
		return err
	})
	return out, err
}

// reconcileTransfersSQL is ReconcileTransfers' page ($1, $2 the last row read, $3 the limit).
const reconcileTransfersSQL = factsSelect + `
		WHERE (t.updated_at, t.id) > ($1, $2) AND t.status IN ('completed', 'failed')
		ORDER BY t.updated_at, t.id LIMIT $3`

// ReconcileTransfers implements app.ReconcileStore: a keyset page of transfers_updated_idx,
// read under indexOnly.
func (s *Reconciliation) ReconcileTransfers(ctx context.Context, from, afterAt time.Time, afterID uuid.UUID, limit int) ([]app.ReconcileFacts, error) {
	if afterAt.Before(from) {
		afterAt, afterID = from, uuid.Nil
	}
	facts, err := readIndexOnly(ctx, s.pool, reconcileTransfersSQL, []any{afterAt, afterID, limit}, scanFacts)
	return facts, wrapReconcile("read transfers to reconcile", err)
}

// StuckRefunds implements app.ReconcileStore (transfers_refund_due_idx: the owed refunds).
func (s *Reconciliation) StuckRefunds(ctx context.Context, before time.Time, limit int) ([]app.ReconcileFacts, error) {
	rows, err := s.pool.Query(ctx, factsSelect+`
		WHERE t.refund_status = 'pending' AND t.updated_at < $1 ORDER BY t.updated_at, t.id LIMIT $2`, before, limit)
	if err != nil {
		return nil, wrapReconcile("read stuck refunds", err)
	}
	facts, err := pgx.CollectRows(rows, scanFacts)
	return facts, wrapReconcile("read stuck refunds", err)
}

// unbalancedMovementsSQL is UnbalancedMovements' statement for a window ($1 from, $2 the limit):
// the window's movements go as an array of keys (= ANY(ARRAY(…))), read from
// credit_entries_created_idx, each then summed over its entries through the movement's key. Its
// earlier form, "movement_id IN (SELECT …)", was planned as a merge semi-join of two walks of
// that key over the whole ledger; see indexOnly, which it runs under.
const unbalancedMovementsSQL = `SELECT movement_id, count(*), sum(amount_cents),
		coalesce(array_agg(DISTINCT transfer_id::text) FILTER (WHERE transfer_id IS NOT NULL), '{}')
		FROM credit_entries
		WHERE movement_id = ANY(ARRAY(SELECT movement_id FROM credit_entries WHERE created_at >= $1))
		GROUP BY movement_id HAVING count(*) <> 2 OR sum(amount_cents) <> 0
		ORDER BY movement_id LIMIT $2`

// unbalancedLedgerSQL is UnbalancedMovements' statement for the whole history ($1 the limit):
// every movement, read whichever way PostgreSQL finds cheapest, since it reads them all.
const unbalancedLedgerSQL = `SELECT movement_id, count(*), sum(amount_cents),
		coalesce(array_agg(DISTINCT transfer_id::text) FILTER (WHERE transfer_id IS NOT NULL), '{}')
		FROM credit_entries
		GROUP BY movement_id HAVING count(*) <> 2 OR sum(amount_cents) <> 0
		ORDER BY movement_id LIMIT $1`

// UnbalancedMovements implements app.ReconcileStore: the movements with an entry written at
// or after from (credit_entries_created_idx), each summed over all its entries (the unique
// index on movement_id, account), read under indexOnly; every movement when from is zero (the
// whole history).
func (s *Reconciliation) UnbalancedMovements(ctx context.Context, from time.Time, limit int) ([]app.UnbalancedMovement, error) {
	scan := func(row pgx.CollectableRow) (app.UnbalancedMovement, error) {
		var m app.UnbalancedMovement
		err := row.Scan(&m.MovementID, &m.Entries, &m.Sum, &m.TransferIDs)
		return m, err
	}
	if from.IsZero() {
		rows, err := s.pool.Query(ctx, unbalancedLedgerSQL, limit)
		if err != nil {
			return nil, wrapReconcile("read credit movements", err)
		}
		moves, err := pgx.CollectRows(rows, scan)
		return moves, wrapReconcile("read credit movements", err)
	}
	moves, err := readIndexOnly(ctx, s.pool, unbalancedMovementsSQL, []any{from, limit}, scan)
	return moves, wrapReconcile("read credit movements", err)
}

// LedgerTotals implements app.ReconcileStore: the whole ledger, for a full pass.
func (s *Reconciliation) LedgerTotals(ctx context.Context) (app.LedgerTotals, error) {
	var lt app.LedgerTotals
	err := s.pool.QueryRow(ctx, `SELECT
		(SELECT coalesce(sum(balance_cents), 0) FROM credit_accounts),
		(SELECT count(*) FROM credit_accounts a WHERE a.balance_cents <>
			coalesce((SELECT sum(e.amount_cents) FROM credit_entries e WHERE e.account = a.account), 0)),
		coalesce((SELECT balance_cents FROM credit_accounts WHERE account = 'system:credit_spent'), 0),
		(SELECT coalesce(sum(credit_applied_cents), 0) FROM transfers
			WHERE credit_applied_cents > 0 AND transfers_usage_counts(status, collection_status))`).
		Scan(&lt.Balances, &lt.AccountsOff, &lt.CreditSpent, &lt.CreditHeld)
	return lt, wrapReconcile("read the credit ledger's totals", err)
}

type mismatchJSON struct {
	Kind        string   `json:"kind"`
	TransferIDs []string `json:"transfer_ids"`
	Detail      string   `json:"detail"`
}

// SaveRun implements app.ReconcileStore.
func (s *Reconciliation) SaveRun(ctx context.Context, run app.ReconciliationRun) error {
	ms := make([]mismatchJSON, len(run.Mismatches))
	for i, m := range run.Mismatches {
		ids := m.TransferIDs
		if ids == nil {
			ids = []string{}
		}
		ms[i] = mismatchJSON{Kind: m.Kind, TransferIDs: ids, Detail: m.Detail}
	}
	doc, err := json.Marshal(ms)
	if err != nil {
		return err
	}
	var from *time.Time
	if !run.WindowFrom.IsZero() {
		from = &run.WindowFrom
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO reconciliation_runs
		(id, full_pass, window_from, started_at, finished_at, transfers_checked, mismatches)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		run.ID, run.Full, from, run.StartedAt, run.FinishedAt, run.TransfersChecked, doc)
	return wrapReconcile("record the reconciliation run", err)
}

// wrapReconcile adds what was being done to an error; nil stays nil.
func wrapReconcile(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}
