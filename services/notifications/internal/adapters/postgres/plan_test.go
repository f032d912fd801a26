package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/thumela/thumela/services/platform/pgtest"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
)

// TestSMSReportBatchPlanUsesTheIndexes: the delivery reports' lock statement, planned as pgx
// prepares it (a generic plan) on a new, empty deliveries table, as a fresh database first plans
// it, probes the provider id's index and the primary key, and neither scans the table nor walks
// every SMS delivery (lockSMSDeliveries). Without the statement's SET LOCAL the same generic plan
// is two sequential scans; it is logged, not asserted, since it is the planner's guess.
func TestSMSReportBatchPlanUsesTheIndexes(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t, "notifications", Migrations)
	ctx := context.Background()
	plan := func(settings ...string) string {
		t.Helper()
		var out []string
		err := platformpg.InTx(ctx, pool, func(tx pgx.Tx) error {
			for _, s := range append([]string{`SET LOCAL plan_cache_mode = force_generic_plan`}, settings...) {
				if _, err := tx.Exec(ctx, s); err != nil {
					return err
				}
			}
			if _, err := tx.Exec(ctx, `PREPARE lock_sms (text[], bigint[]) AS `+lockSMSDeliveriesSQL); err != nil {
				return err
			}
			rows, err := tx.Query(ctx, `EXPLAIN EXECUTE lock_sms ('{"p-1"}', '{1}')`)
			if err != nil {
				return err
			}
			out, err = pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return err
			}
			_, err = tx.Exec(ctx, `DEALLOCATE lock_sms`)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(out, "\n")
	}
	got := plan(noSeqScan)
	if strings.Contains(got, "Seq Scan") || strings.Contains(got, "deliveries_sms_recipient_idx") ||
		!strings.Contains(got, "deliveries_provider_message_idx") || !strings.Contains(got, "deliveries_pkey") {
		t.Fatalf("the report batch's plan on a new table:\n%s", got)
	}
	t.Logf("with the sequential scan on, the planner's guess for a new table:\n%s", plan())
}
