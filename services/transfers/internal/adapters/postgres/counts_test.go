package postgres_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// The history page's total comes from the sender's running counts (migration 0016): right
// after inserts and status changes, and as cheap for 10,001 transfers as for one. A search
// still counts what it matches.
func TestHistoryTotalDoesNotGrowWithHistory(t *testing.T) {
	t.Parallel()
	e, newcomer, veteran := newcomerAndVeteran(t)
	ctx := context.Background()
	// Status changes move the counts: 300 of the veteran's transfers fail, 200 go to processing.
	for _, q := range []string{
		`UPDATE transfers SET status = 'processing' WHERE id IN (SELECT id FROM transfers WHERE user_id = $1 AND status = 'pending' LIMIT 500)`,
		`UPDATE transfers SET status = 'failed', failure_reason = 'declined' WHERE id IN (SELECT id FROM transfers WHERE user_id = $1 AND status = 'processing' LIMIT 300)`,
	} {
		if _, err := e.Pool.Exec(ctx, q, veteran); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{`VACUUM ANALYZE transfers`, `VACUUM ANALYZE transfer_counts`} {
		if _, err := e.Pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}

	vet := uuid.MustParse(veteran)
	for _, f := range []app.ListFilter{
		{Limit: 5},
		{Limit: 5, Statuses: []domain.Status{domain.StatusFailed}},
		{Limit: 5, Statuses: []domain.Status{domain.StatusProcessing}},
		{Limit: 5, Statuses: []domain.Status{domain.StatusPending}},
		{Limit: 5, Statuses: []domain.Status{domain.StatusCompleted}},
		{Limit: 5, Statuses: []domain.Status{domain.StatusPending, domain.StatusProcessing}},
		{Limit: 5, Query: "zzz-nobody"},
		{Limit: 5, Offset: 20000}, // past the end: the count alone
	} {
		_, total, err := e.Repo.List(ctx, vet, f)
		if err != nil {
			t.Fatal(err)
		}
		var want int
		sql := `SELECT count(*) FROM transfers WHERE user_id = $1 AND (cardinality($2::text[]) = 0 OR status = ANY($2))`
		if f.Query != "" {
			sql += ` AND false`
		}
		statuses := []string{}
		for _, s := range f.Statuses {
			statuses = append(statuses, string(s))
		}
		if err := e.Pool.QueryRow(ctx, sql, vet, statuses).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if total != want {
			t.Errorf("%+v: total %d, count(*) %d", f, total, want)
		}
	}

	counted := func(user string) int {
		sql := `SELECT coalesce(sum(n), 0)::bigint FROM transfer_counts WHERE user_id = $1`
		buffersRead(t, e, sql, user) // warm
		return buffersRead(t, e, sql, user)
	}
	small, big := counted(newcomer), counted(veteran)
	whole := buffersRead(t, e, `SELECT count(*) FROM transfers WHERE user_id = $1`, veteran)
	t.Logf("history total: %d blocks for one transfer, %d for 10,001; count(*) over the history: %d", small, big, whole)
	if big > small+2 {
		t.Fatalf("the total touched %d blocks for a long history, %d for a new sender", big, small)
	}
	if whole < 10*big {
		t.Fatalf("count(*) touched only %d blocks: the history is too small to tell", whole)
	}
}
