package pgtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/thumela/thumela/services/platform/postgres"
)

var planSeq atomic.Int64

// errRollBack ends GenericPlan's transaction: nothing the settings or the statement did stays.
var errRollBack = errors.New("roll back")

// GenericPlan returns EXPLAIN's text of stmt's generic plan: the plan pgx's prepared statement
// comes to after five executions, and keeps while the statistics it was made with stand. On a
// database the test has just migrated, every table is new and never analysed, as on a fresh
// deploy, where PostgreSQL assumes a few pages per table and an index can look dearer than a
// scan; a plan made then is kept as the table grows. (PostgreSQL 16's EXPLAIN (GENERIC_PLAN)
// would do; the server may be 15, so the statement is prepared with plan_cache_mode =
// force_generic_plan and EXPLAIN EXECUTE'd.)
//
// params are stmt's parameter types as PREPARE takes them ("text[], bigint"), args EXECUTE's
// arguments as SQL literals (a generic plan does not depend on them); both are empty for a
// statement without parameters. settings (SET LOCAL …) run first, in the same transaction,
// which is rolled back.
func GenericPlan(tb testing.TB, pool *pgxpool.Pool, stmt, params, args string, settings ...string) string {
	tb.Helper()
	ctx := context.Background()
	name := fmt.Sprintf("pgtest_generic_plan_%d", planSeq.Add(1))
	prepare, execute := "PREPARE "+name, "EXPLAIN EXECUTE "+name
	if params != "" {
		prepare += " (" + params + ")"
	}
	if args != "" {
		execute += " (" + args + ")"
	}
	var lines []string
	err := postgres.InTx(ctx, pool, func(tx pgx.Tx) error {
		for _, s := range append([]string{`SET LOCAL plan_cache_mode = force_generic_plan`}, settings...) {
			if _, err := tx.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		if _, err := tx.Exec(ctx, prepare+" AS "+stmt); err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		rows, err := tx.Query(ctx, execute)
		if err != nil {
			return fmt.Errorf("explain: %w", err)
		}
		if lines, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return fmt.Errorf("explain: %w", err)
		}
		if _, err := tx.Exec(ctx, "DEALLOCATE "+name); err != nil {
			return err
		}
		return errRollBack
	})
	if !errors.Is(err, errRollBack) {
		tb.Fatalf("pgtest: generic plan of %s: %v", strings.Join(strings.Fields(stmt), " "), err)
	}
	return strings.Join(lines, "\n")
}

// PlanCase is a statement whose generic plan, on new and empty tables, must contain every text
// in Want (an index's name, an index condition) and none in Not ("Seq Scan", an index it must
// not walk). Params and Args are GenericPlan's; Settings run first (SET LOCAL …), as the
// statement's caller runs them.
type PlanCase struct {
	Name, SQL, Params, Args string
	Settings                []string
	Want, Not               []string
}

// CheckPlans plans every case as pgx prepares it (a generic plan) on pool's new tables, as a
// fresh deploy first plans them and keeps the plans while the tables grow, and reports each plan
// that misses a text it needs or holds one it must not. A case run under settings also logs
// its plan without them: the planner's guess that the settings overrule.
func CheckPlans(tb testing.TB, pool *pgxpool.Pool, cases ...PlanCase) {
	tb.Helper()
	for _, tc := range cases {
		plan := GenericPlan(tb, pool, tc.SQL, tc.Params, tc.Args, tc.Settings...)
		var wrong []string
		for _, w := range tc.Want {
			if !strings.Contains(plan, w) {
				wrong = append(wrong, "no "+w)
			}
		}
		for _, n := range tc.Not {
			if strings.Contains(plan, n) {
				wrong = append(wrong, n)
			}
		}
		if len(wrong) > 0 {
			tb.Errorf("%s: %s, in the plan on new tables:\n%s", tc.Name, strings.Join(wrong, "; "), plan)
		}
		if len(tc.Settings) > 0 {
			tb.Logf("%s without %v, the planner's guess for new tables:\n%s", tc.Name, tc.Settings,
				GenericPlan(tb, pool, tc.SQL, tc.Params, tc.Args))
		}
	}
}
