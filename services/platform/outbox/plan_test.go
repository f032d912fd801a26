package outbox_test

import (
	"strings"
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
	for _, tc := range []struct {
		name, sql, params, args string
	}{
		{"mark published", outbox.MarkPublishedSQL(table), "bigint[]", "'{1,2}'"},
		{"prune", outbox.PruneSQL(table), "bigint, integer", "86400000000, 10000"},
	} {
		plan := pgtest.GenericPlan(t, pool, tc.sql, tc.params, tc.args)
		if strings.Contains(plan, "Seq Scan") || strings.Contains(plan, "Join") ||
			!strings.Contains(plan, "outbox_pkey") {
			t.Errorf("%s: the plan on a new outbox:\n%s", tc.name, plan)
		}
	}
}
