package postgres

import (
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
	pgtest.CheckPlans(t, pool, pgtest.PlanCase{Name: "the report batch", SQL: lockSMSDeliveriesSQL,
		Params: "text[], bigint[]", Args: `'{"p-1"}', '{1}'`, Settings: []string{noSeqScan},
		Want: []string{"deliveries_provider_message_idx", "deliveries_pkey"},
		Not:  []string{"Seq Scan", "deliveries_sms_recipient_user_idx"}})
}

// TestSMSBudgetPlanProbesTheSendersSMSToTheNumber: the per-sender SMS budget's count, planned as
// pgx prepares it on a new, empty table, reads one sender's SMS to one number in the window from
// deliveries_sms_recipient_user_idx, never every SMS the number had from everyone.
func TestSMSBudgetPlanProbesTheSendersSMSToTheNumber(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t, "notifications", Migrations)
	pgtest.CheckPlans(t, pool, pgtest.PlanCase{Name: "the SMS budget", SQL: smsSentToSQL,
		Params: "text, text, timestamptz, int", Args: `'+27825550001', 'u-1', now(), 10`,
		Want: []string{"deliveries_sms_recipient_user_idx", "Index Cond: ((recipient = $1) AND (user_id = $2) AND (created_at > $3))"},
		Not:  []string{"Seq Scan"}})
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
	pgtest.CheckPlans(t, pool, pgtest.PlanCase{Name: "the list", SQL: listSQL, Params: "text, text[]", Args: `'u-1', '{"t-1","t-2"}'`,
		Want: []string{"Index Cond: ((user_id = $1) AND (reference = "}, Not: []string{"Seq Scan", "Filter: (reference"}})
}
