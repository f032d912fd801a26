package postgres

import (
	"testing"

	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/pgtest"
)

// TestUsageLookupPlansUseThePrimaryKey: whether a method has a use, asked by every transfer's
// status event (MarkUsedByTransfer) and by Delete, planned as pgx prepares it (a generic plan) on
// a new, empty payment_method_usage, as a fresh deploy first plans it, probes the table's primary
// key and does not scan the table, which holds a row per method ever used. Asked as EXISTS, the
// planner's guess for a new table was a sequential scan that stops at the first row found (a
// few rows per method on an assumed ten pages look near), kept as the table grew.
func TestUsageLookupPlansUseThePrimaryKey(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t, "paymentmethods", outbox.Migrations, Migrations)
	const method = `'0196b3c4-0000-7000-8000-000000000001'`
	want, not := []string{"payment_method_usage_pkey"}, []string{"Seq Scan"}
	pgtest.CheckPlans(t, pool,
		pgtest.PlanCase{Name: "mark used", SQL: markUsedSQL, Params: "uuid, uuid, text",
			Args: method + `, '0196b3c4-0000-7000-8000-000000000002', 't-1'`, Want: want, Not: not},
		pgtest.PlanCase{Name: "used", SQL: methodUsedSQL, Params: "uuid", Args: method, Want: want, Not: not})
}
