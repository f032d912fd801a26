package postgres

import (
	"strings"
	"testing"

	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/pgtest"
)

// TestFailureStatsPlansUseTheirKeysIndexes: the throttle's count of an address's, an account's
// and a pair's recent failures, read on every sign-in and code attempt, planned as pgx prepares
// it (a generic plan) on a new, empty sign_in_attempts, each probe the index of their key. The
// address's index is partial (only the attempts that came with an address), and a generic plan, which cannot see $2,
// can use it only when the statement itself implies that condition: without it, the count of an
// address walked every attempt of the kind through the account's index, on a new table and on a
// populated one alike (a sequential scan there), and an attack from many addresses is when the
// table is largest.
func TestFailureStatsPlansUseTheirKeysIndexes(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t, "identity", outbox.Migrations, Migrations)
	var cases []pgtest.PlanCase
	for _, tc := range []struct {
		key, where, params, args, index string
	}{
		{"pair", pairKey, "text, text, text, timestamptz, integer", `'password', 'a@example.com', '192.0.2.1', now(), 1000`,
			"sign_in_attempts_pair_idx"},
		{"address", addressKey, "text, text, timestamptz, integer", `'password', '192.0.2.1', now(), 1000`,
			"sign_in_attempts_address_idx"},
		{"account", accountKey, "text, text, timestamptz, integer", `'password', 'a@example.com', now(), 1000`,
			"sign_in_attempts_account_idx"},
	} {
		n := strings.Count(tc.params, ",") - 1 // the parameters before the window's start and the limit
		cases = append(cases, pgtest.PlanCase{Name: "the " + tc.key + "'s count", SQL: failureStatsSQL(tc.where, n),
			Params: tc.params, Args: tc.args, Want: []string{tc.index}, Not: []string{"Seq Scan", "Filter"}})
	}
	pgtest.CheckPlans(t, pool, cases...)
}

// TestSignedInBeforePlanUsesAnIndex: every sign-in asks whether the account signed in before,
// over all its sessions, live or revoked. With only partial indexes on sessions.user_id (live
// sessions), no plan could answer that through an index, and each sign-in read every user's
// sessions. The plan must probe an index on user_id, not scan the table.
func TestSignedInBeforePlanUsesAnIndex(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t, "identity", outbox.Migrations, Migrations)
	pgtest.CheckPlans(t, pool, pgtest.PlanCase{Name: "SignedInBefore", SQL: signedInBeforeSQL, Params: "uuid, bytea",
		Args: `'00000000-0000-0000-0000-000000000001', '\\x00'`,
		Want: []string{"sessions_user_all_idx"}, Not: []string{"Seq Scan on sessions"}})
}
