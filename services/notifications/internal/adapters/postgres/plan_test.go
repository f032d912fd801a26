package postgres

import (
	"strings"
	"testing"

	"github.com/thumela/thumela/services/platform/pgtest"
)

// TestSMSReportBatchPlanUsesTheIndexes: the delivery reports' lock statement, planned as pgx
// prepares it (a generic plan) on a new, empty deliveries table, as a fresh database first plans
// it, probes the provider id's index and the primary key, and neither scans the table nor walks
// every SMS delivery (lockSMSDeliveries). Without the statement's SET LOCAL the same generic plan
// is two sequential scans; it is logged, not asserted, since it is the planner's guess.
func TestSMSReportBatchPlanUsesTheIndexes(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t, "notifications", Migrations)
	plan := func(settings ...string) string {
		t.Helper()
		return pgtest.GenericPlan(t, pool, lockSMSDeliveriesSQL, "text[], bigint[]", `'{"p-1"}', '{1}'`, settings...)
	}
	got := plan(noSeqScan)
	if strings.Contains(got, "Seq Scan") || strings.Contains(got, "deliveries_sms_recipient_idx") ||
		!strings.Contains(got, "deliveries_provider_message_idx") || !strings.Contains(got, "deliveries_pkey") {
		t.Fatalf("the report batch's plan on a new table:\n%s", got)
	}
	t.Logf("with the sequential scan on, the planner's guess for a new table:\n%s", plan())
}

// TestListPlanProbesEachReference: the list of a user's deliveries about some references (the
// transfers on a page of their history), planned as pgx prepares it on a new, empty table, probes
// deliveries_user_reference_idx with the user and each reference, and does not walk every
// delivery the user ever had. The generic plan of its earlier form, "user_id = $1 AND reference =
// ANY($2)", did: on a new table an index probe per array element looked dearer than filtering
// the user's rows, and the plan was kept as the table grew.
func TestListPlanProbesEachReference(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t, "notifications", Migrations)
	plan := pgtest.GenericPlan(t, pool, listSQL, "text, text[]", `'u-1', '{"t-1","t-2"}'`)
	if strings.Contains(plan, "Seq Scan") || strings.Contains(plan, "Filter: (reference") ||
		!strings.Contains(plan, "Index Cond: ((user_id = $1) AND (reference = ") {
		t.Fatalf("the list's plan on a new table:\n%s", plan)
	}
}
