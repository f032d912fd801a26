package outbox_test

import (
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/pgtest"
)

// TestRelayStatementPlansUseTheIndexes: the relay's statements that find rows by seq, planned as
// pgx prepares them (a generic plan) on a new, empty outbox, as a fresh deploy first plans them,
// find them through the primary key and never scan the table, which grows with every event
// (24 hours of them are kept). The batch's mark ("seq = ANY($1)") always did. Prune's delete
// did not: its earlier form, "seq IN (SELECT seq … LIMIT $2)", was planned as a hash semi-join
// whose outer side scanned the whole outbox, once per chunk of 10,000 rows.
func TestRelayStatementPlansUseTheIndexes(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t, schema, outbox.Migrations)
	table := pgx.Identifier{schema, "outbox"}.Sanitize()
	want, not := []string{"outbox_pkey"}, []string{"Seq Scan", "Join"}
	pgtest.CheckPlans(t, pool,
		pgtest.PlanCase{Name: "mark published", SQL: outbox.MarkPublishedSQL(table), Params: "bigint[]", Args: "'{1,2}'", Want: want, Not: not},
		pgtest.PlanCase{Name: "prune", SQL: outbox.PruneSQL(table), Params: "bigint, integer", Args: "86400000000, 10000", Want: want, Not: not})
}
