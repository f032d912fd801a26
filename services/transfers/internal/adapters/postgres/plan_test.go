package postgres_test

import (
	"strings"
	"testing"

	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/pgtest"
	"github.com/thumela/thumela/services/transfers/internal/adapters/postgres"
)

// planCase is a statement whose generic plan, on a new and empty schema, must use the indexes
// named in want and nothing named in not.
type planCase struct {
	name, sql, params, args string
	settings                []string
	want, not               []string
}

// checkPlans plans every case as pgx prepares it (a generic plan) on pool's new, empty tables,
// as a fresh deploy first plans them and keeps the plans while the tables grow, and reports the
// plans that miss an index they need or use what they must not.
func checkPlans(t *testing.T, cases []planCase) {
	t.Helper()
	pool := pgtest.NewPool(t, "transfers", outbox.Migrations, postgres.Migrations)
	for _, tc := range cases {
		plan := pgtest.GenericPlan(t, pool, tc.sql, tc.params, tc.args, tc.settings...)
		var wrong []string
		for _, w := range tc.want {
			if !strings.Contains(plan, w) {
				wrong = append(wrong, "no "+w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(plan, n) {
				wrong = append(wrong, n)
			}
		}
		if len(wrong) > 0 {
			t.Errorf("%s: %s, in the plan on new tables:\n%s", tc.name, strings.Join(wrong, "; "), plan)
		}
		if len(tc.settings) > 0 {
			t.Logf("%s without %v, the planner's guess for new tables:\n%s", tc.name, tc.settings,
				pgtest.GenericPlan(t, pool, tc.sql, tc.params, tc.args))
		}
	}
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
	checkPlans(t, []planCase{{
		name: "due work", sql: postgres.DueWorkSQL, params: "timestamptz, timestamptz, interval",
		args: "'2025-01-01 10:00+02', '2025-01-02 10:00+02', '1 day'",
		want: []string{"transfers_expiry_due_idx", "transfers_reminder_due_idx", "transfers_refund_due_idx"},
		not:  []string{"Seq Scan", "transfers_uncollected_idx"},
	}, {
		name: "prune collection records", sql: postgres.PruneCollectionRecordsSQL, params: "timestamptz, integer",
		args: "'2025-01-01 10:00+02', 1000",
		want: []string{"unknown_voucher_numbers_updated_idx", "Index Cond: (number_digest = ANY"},
		not:  []string{"Seq Scan on unknown_voucher_numbers"},
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
	checkPlans(t, []planCase{{
		name: "transfers page", sql: postgres.ReconcileTransfersSQL, params: "timestamptz, uuid, integer",
		args: "'2025-01-01 10:00+02', '00000000-0000-0000-0000-000000000000', 500", settings: postgres.ReconcileSettings,
		want: []string{"Index Scan using transfers_updated_idx", "credit_entries_transfer_idx"},
		not:  []string{"Seq Scan", "Sort"},
	}, {
		name: "unbalanced movements", sql: postgres.UnbalancedMovementsSQL, params: "timestamptz, integer",
		args: "'2025-01-01 10:00+02', 100", settings: postgres.ReconcileSettings,
		want: []string{"credit_entries_created_idx", "Index Cond: (movement_id = ANY"},
		not:  []string{"Seq Scan", "Join"},
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
	checkPlans(t, []planCase{{
		name: "get", sql: postgres.GetSQL, params: "uuid, uuid", args: ids,
		want: []string{"transfers_pkey"}, not: []string{"transfers_user_created_idx", "Seq Scan"},
	}, {
		name: "lock for update", sql: postgres.LockOwnedSQL, params: "uuid, uuid", args: ids,
		want: []string{"transfers_pkey"}, not: []string{"transfers_user_created_idx", "Seq Scan"},
	}, {
		name: "awaiting collection", sql: postgres.AwaitingCollectionSQL, params: "uuid", args: "'00000000-0000-0000-0000-000000000001'",
		want: []string{"transfers_uncollected_idx"}, not: []string{"transfers_user_created_idx", "Seq Scan"},
	}})
}
