package sandbox

import (
	"testing"

	"github.com/thumela/thumela/services/paymentmethods/internal/adapters/postgres"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/pgtest"
)

// TestFindPlanProbesEachKey: the records of a reconciliation page's keys, planned as pgx prepares
// the statement (a generic plan) on a new, empty sandbox_processor_records, as a fresh deploy
// first plans it, are probed key by key in sandbox_processor_records_key_idx: the table, a row
// per charge and refund the sandbox ever made, is not scanned for each page. The generic plan of
// its earlier form, "idempotency_key = ANY($1)", was a sequential scan on a new table (an index
// probe per array element looked dearer), kept as the table grew.
func TestFindPlanProbesEachKey(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t, "paymentmethods", outbox.Migrations, postgres.Migrations)
	pgtest.CheckPlans(t, pool, pgtest.PlanCase{Name: "find", SQL: findSQL, Params: "text[]", Args: `'{"transfer-1","transfer-1:refund"}'`,
		Want: []string{"Index Cond: (idempotency_key = "}, Not: []string{"Seq Scan"}})
}
