package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/thumela/thumela/services/transfers/internal/adapters/postgres"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// The worker's probe runs on every pass (a pass per wake-up, a wake-up per created transfer),
// as a prepared statement whose generic plan cannot see its parameters. With 10,001 vouchers
// awaiting collection it must still read a few index pages, not the table, and still tell an
// expiry that is due from one that is not. (Its earlier form, EXISTS (… voucher_expires_at <=
// $1), was answered by a generic plan with a scan of every transfer in the bench and on a copy
// of the schema, though not on this test's data: docs/decisions.md.)
func TestDueWorkProbeDoesNotGrowWithHistory(t *testing.T) {
	t.Parallel()
	e, _, veteran := newcomerAndVeteran(t)
	ctx := context.Background()
	// Every one of the veteran's transfers charged and its voucher issued, as the worker would.
	for _, q := range []string{
		`UPDATE transfers SET status = 'processing', attempts = 1 WHERE user_id = $1`,
		`UPDATE transfers SET status = 'completed', charge_id = 'ch_' || n.row_number, collection_status = 'awaiting_collection',
				voucher_number = lpad(n.row_number::text, 10, '0'), voucher_pin_hash = 'seeded',
				voucher_expires_at = now() + interval '7 days' - n.row_number * interval '1 second'
			FROM (SELECT id AS rid, row_number() OVER () FROM transfers WHERE user_id = $1) AS n
			WHERE id = n.rid`,
	} {
		if _, err := e.Pool.Exec(ctx, q, veteran); err != nil {
			t.Fatal(err)
		}
	}
	// ANALYZE without VACUUM: fresh rows, not yet all-visible, as under load.
	if _, err := e.Pool.Exec(ctx, `ANALYZE transfers`); err != nil {
		t.Fatal(err)
	}

	conn, err := e.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for _, q := range []string{`SET plan_cache_mode = force_generic_plan`, `PREPARE due_work AS ` + postgres.DueWorkSQL} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// The connection goes back to the pool as it came.
	defer func() {
		for _, q := range []string{`DEALLOCATE due_work`, `RESET plan_cache_mode`} {
			_, _ = conn.Exec(ctx, q)
		}
	}()
	probe := func(now time.Time) (blocks int, expiries bool) {
		t.Helper()
		// EXECUTE takes no bind parameters: its arguments are literals.
		execute := fmt.Sprintf(`EXECUTE due_work('%s', '%s', '%d seconds')`, now.Format(time.RFC3339Nano),
			now.Add(domain.ReminderBefore).Format(time.RFC3339Nano), int(domain.ReminderBefore.Seconds()))
		blocks = blocksRead(t, conn, execute)
		if err := conn.QueryRow(ctx, execute).Scan(&expiries, new(bool), new(bool)); err != nil {
			t.Fatal(err)
		}
		return blocks, expiries
	}
	now := time.Now()
	probe(now) // warm
	blocks, due := probe(now)
	whole := buffersRead(t, e, `SELECT count(*) FROM transfers WHERE collection_status = 'awaiting_collection'`)
	t.Logf("probe: %d blocks with 10,001 vouchers awaiting collection; reading them all: %d", blocks, whole)
	if due {
		t.Fatal("an expiry is due a week before any voucher expires")
	}
	if blocks > 30 || whole < 10*blocks {
		t.Fatalf("the probe read %d blocks (the awaiting vouchers take %d): it scans the history", blocks, whole)
	}
	if _, due := probe(now.Add(8 * 24 * time.Hour)); !due {
		t.Fatal("no expiry is due a day after every voucher expired")
	}
}
