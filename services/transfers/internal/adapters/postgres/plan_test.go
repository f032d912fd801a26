package postgres_test

import (
	"testing"

	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/pgtest"
	"github.com/thumela/thumela/services/transfers/internal/adapters/postgres"
)

// checkPlans checks cases on a new transfers schema (pgtest.CheckPlans).
func checkPlans(t *testing.T, cases []pgtest.PlanCase) {
	t.Helper()
	pgtest.CheckPlans(t, pgtest.NewPool(t, "transfers", outbox.Migrations, postgres.Migrations), cases...)
}

// TestWorkerPlansUseTheirIndexes: the worker's probe (a statement per pass) reads the first
// entries of the partial indexes of the vouchers to expire and to remind, not every voucher
// awaiting collection through transfers_uncollected_idx, which the generic plan of its earlier
// form (min(voucher_expires_at), and an EXISTS of the reminders) walked on a new table: the costs
// of both indexes are equal there. The prune finds the unknown numbers' counts to delete through
// the index of their age and deletes them through the primary key, where its "IN (SELECT …
// LIMIT $2)" was a hash semi-join over a sequential scan of the table.
func TestWorkerPlansUseTheirIndexes(t *testing.T) {
	t.Parallel()
	checkPlans(t, []pgtest.PlanCase{{
		Name: "due work", SQL: postgres.DueWorkSQL, Params: "timestamptz, timestamptz, interval",
		Args: "'2025-01-01 10:00+02', '2025-01-02 10:00+02', '1 day'",
		Want: []string{"transfers_expiry_due_idx", "transfers_reminder_due_idx", "transfers_refund_due_idx"},
		Not:  []string{"Seq Scan", "transfers_uncollected_idx"},
	}, {
		Name: "prune collection records", SQL: postgres.PruneCollectionRecordsSQL, Params: "timestamptz, integer",
		Args: "'2025-01-01 10:00+02', 1000",
		Want: []string{"unknown_voucher_numbers_updated_idx", "Index Cond: (number_digest = ANY"},
		Not:  []string{"Seq Scan on unknown_voucher_numbers"},
	}})
}

// TestReconciliationPlansUseTheirIndexes: the reconciliation's page of transfers walks
// transfers_updated_idx from the last row read, in its order, and stops at the page's end; the
// unbalanced movements are those of the window's entries (credit_entries_created_idx), each read
// through the movement's key. Their generic plans on new tables were a sequential scan and a sort
// of every transfer for each page, and a walk of the whole ledger's key twice; without the
// settings they run under (SET LOCAL, in their own transaction) they still would be.
func TestReconciliationPlansUseTheirIndexes(t *testing.T) {
	t.Parallel()
	checkPlans(t, []pgtest.PlanCase{{
		Name: "transfers page", SQL: postgres.ReconcileTransfersSQL, Params: "timestamptz, uuid, integer",
		Args: "'2025-01-01 10:00+02', '00000000-0000-0000-0000-000000000000', 500", Settings: postgres.ReconcileSettings,
		Want: []string{"Index Scan using transfers_updated_idx", "credit_entries_transfer_idx"},
		Not:  []string{"Seq Scan", "Sort"},
	}, {
		Name: "unbalanced movements", SQL: postgres.UnbalancedMovementsSQL, Params: "timestamptz, integer",
		Args: "'2025-01-01 10:00+02', 100", Settings: postgres.ReconcileSettings,
		Want: []string{"credit_entries_created_idx", "Index Cond: (movement_id = ANY"},
		Not:  []string{"Seq Scan", "Join"},
	}})
}

// TestOneTransferPlansUseThePrimaryKey: a sender's transfer looked up by its id (the details, a
// cancel, a resend, a phone change) goes through the primary key, and the vouchers a freeze
// cancels through transfers_uncollected_idx. On new tables their generic plans walked
// transfers_user_created_idx over the sender's whole history instead, and kept doing so as it
// grew: a look-up that cost more the more a sender had sent.
func TestOneTransferPlansUseThePrimaryKey(t *testing.T) {
	t.Parallel()
	const ids = "'00000000-0000-0000-0000-000000000001', '00000000-0000-0000-0000-000000000002'"
	checkPlans(t, []pgtest.PlanCase{{
		Name: "get", SQL: postgres.GetSQL, Params: "uuid, uuid", Args: ids,
		Want: []string{"transfers_pkey"}, Not: []string{"transfers_user_created_idx", "Seq Scan"},
	}, {
		Name: "lock for update", SQL: postgres.LockOwnedSQL, Params: "uuid, uuid", Args: ids,
		Want: []string{"transfers_pkey"}, Not: []string{"transfers_user_created_idx", "Seq Scan"},
	}, {
		Name: "awaiting collection", SQL: postgres.AwaitingCollectionSQL, Params: "uuid", Args: "'00000000-0000-0000-0000-000000000001'",
		Want: []string{"transfers_uncollected_idx"}, Not: []string{"transfers_user_created_idx", "Seq Scan"},
	}})
}
