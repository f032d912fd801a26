package postgres_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/pgtest"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
	"github.com/thumela/thumela/services/transfers/internal/adapters/postgres"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// buffersRead runs sql under EXPLAIN (ANALYZE, BUFFERS) and returns the blocks it touched.
func buffersRead(t *testing.T, e *testkit.Env, sql string, args ...any) int {
	t.Helper()
	return blocksRead(t, e.Pool, sql, args...)
}

// blocksRead is buffersRead on q: a connection of its own, for a statement that needs the
// connection's session (a prepared statement, a setting).
func blocksRead(t *testing.T, q interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}, sql string, args ...any) int {
	t.Helper()
	var plan []byte
	if err := q.QueryRow(context.Background(), `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) `+sql, args...).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	var out []struct {
		Plan struct {
			Hit  int `json:"Shared Hit Blocks"`
			Read int `json:"Shared Read Blocks"`
		} `json:"Plan"`
	}
	if err := json.Unmarshal(plan, &out); err != nil || len(out) != 1 {
		t.Fatalf("plan %s: %v", plan, err)
	}
	return out[0].Plan.Hit + out[0].Plan.Read
}

// newcomerAndVeteran is an environment with the limits lifted and two senders: a newcomer with
// one transfer, and a veteran whose one created transfer is copied 10,000 times, one copy every
// 40 minutes back over about 9 months, in one statement: the triggers keep the running totals
// and counts as they would for real creates.
func newcomerAndVeteran(t *testing.T) (e *testkit.Env, newcomer, veteran string) {
	t.Helper()
	e = testkit.New(t, testkit.Options{Limits: domain.Limits{Minimum: domain.Cents(1000), PerTransfer: domain.Cents(300000),
		Daily: domain.Cents(1 << 40), Monthly: domain.Cents(1 << 40), Yearly: domain.Cents(1 << 40)}})
	newcomer, newPM := e.NewUser()
	veteran, vetPM := e.NewUser()
	if _, err := e.App.CreateTransfer(e.Ctx(t, newcomer), testkit.Caller(newcomer), testkit.Input("one", newPM, 50000)); err != nil {
		t.Fatal(err)
	}
	tr, err := e.App.CreateTransfer(e.Ctx(t, veteran), testkit.Caller(veteran), testkit.Input("seed", vetPM, 50000))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Pool.Exec(context.Background(), `INSERT INTO transfers
		SELECT (jsonb_populate_record(t, jsonb_build_object('id', gen_random_uuid(), 'idempotency_key', 'bulk-' || g,
			'created_at', t.created_at - g * interval '40 minutes'))).*
		FROM transfers t, generate_series(1, 10000) AS g WHERE t.id = $1`, tr.ID()); err != nil {
		t.Fatal(err)
	}
	return e, newcomer, veteran
}

// The create's usage read costs the same for a sender with 10,000 earlier transfers as for a
// sender with one: it reads running totals, not the history. The sum over the year that it
// replaced is measured too, to show the history is big enough for the difference to show.
func TestUsageReadDoesNotGrowWithHistory(t *testing.T) {
	t.Parallel()
	e, newcomer, veteran := newcomerAndVeteran(t)
	ctx := context.Background()
	// One statement made 10,000 versions of the year's row at once; between real creates,
	// each its own transaction, pruning and autovacuum keep them few. VACUUM is that steady state.
	for _, q := range []string{`VACUUM ANALYZE transfers`, `VACUUM ANALYZE usage_totals`} {
		if _, err := e.Pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	p := domain.PeriodsAt(e.Clock.Now())
	reads := func(user string) int {
		u := uuid.MustParse(user)
		buffersRead(t, e, postgres.UsageSQL, postgres.UsageArgs(u, p)...) // warm
		return buffersRead(t, e, postgres.UsageSQL, postgres.UsageArgs(u, p)...)
	}
	small, big := reads(newcomer), reads(veteran)
	yearSum := buffersRead(t, e, `SELECT coalesce(sum(amount_cents), 0) FROM transfers WHERE user_id = $1 AND created_at >= $2
		AND status <> 'failed'`, veteran, p.YearStart)
	t.Logf("usage read: %d blocks for one transfer, %d for 10,001; the old year sum: %d", small, big, yearSum)
	// A few more pages for the veteran's rows (one per active day), never more with history.
	if big > small+8 {
		t.Fatalf("the usage read touched %d blocks for a long history, %d for a new sender", big, small)
	}
	if yearSum < 10*big {
		t.Fatalf("the year sum touched only %d blocks: the history is too small to tell", yearSum)
	}
	// And the totals are right: R500.00 times the transfers of this year.
	var want, got int64
	if err := e.Pool.QueryRow(ctx, `SELECT sum(amount_cents) FROM transfers WHERE user_id = $1 AND created_at >= $2`,
		veteran, p.YearStart).Scan(&want); err != nil {
		t.Fatal(err)
	}
	usage, err := e.Repo.Usage(ctx, uuid.MustParse(veteran), p)
	if err != nil {
		t.Fatal(err)
	}
	if got = usage.Year.Cents(); got != want {
		t.Fatalf("year total %d c, history %d c", got, want)
	}
}

// 0008 backfills the totals of the transfers that exist before it: counted ones in their
// Johannesburg day, month and year; failed, cancelled and expired ones not at all.
func TestUsageTotalsBackfill(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pool := testkit.OpenPool(t, pgtest.NewDatabase(t), 2)
	before := fstest.MapFS{}
	if err := fs.WalkDir(postgres.Migrations.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path >= "0008" {
			return err
		}
		b, err := fs.ReadFile(postgres.Migrations.FS, path)
		before[path] = &fstest.MapFile{Data: b}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := platformpg.Migrate(ctx, pool, testkit.Schema, outbox.Migrations,
		platformpg.MigrationSet{Name: postgres.Migrations.Name, FS: before}); err != nil {
		t.Fatal(err)
	}
	user := uuid.New()
	insert := func(key string, cents int64, created string, status, collection string) {
		t.Helper()
		var voucher *string
		if collection != "" {
			v := "12345678" + key[len(key)-2:]
			voucher = &v
		}
		if _, err := pool.Exec(ctx, `INSERT INTO transfers (id, user_id, idempotency_key, request_hash, recipient_name,
			recipient_phone, bank, amount_cents, bank_fee_cents, platform_fee_cents, fee_cents, total_cents, fee_waived, status,
			payment_method_id, payment_method_token, location_name, location_type, voucher_number, collection_status,
			created_at, updated_at)
			VALUES (gen_random_uuid(), $1, $2, '\x00', 'Sipho Dlamini', '+27821234567', 'capitec', $3, 0, 0, 0, $3, true, $4,
			'pm', 'tok', 'Capitec', 'default', $5, nullif($6, ''), $7::timestamptz, $7::timestamptz)`,
			user, key, cents, status, voucher, collection, created); err != nil {
			t.Fatal(err)
		}
	}
	// 31 January 23:30 SAST is 21:30 UTC: January in Johannesburg.
	insert("k01", 10000, "2026-01-31T21:30:00Z", "completed", "collected")
	insert("k02", 20000, "2026-01-31T22:00:00Z", "completed", "awaiting_collection") // 1 February, 00:00 SAST
	insert("k03", 40000, "2026-02-01T10:00:00Z", "pending", "")
	insert("k04", 80000, "2026-02-01T11:00:00Z", "failed", "")
	insert("k05", 160000, "2026-02-01T12:00:00Z", "completed", "cancelled")
	insert("k06", 320000, "2026-02-01T13:00:00Z", "completed", "expired")
	insert("k07", 640000, "2025-12-31T21:59:59Z", "processing", "") // 31 December 2025, 23:59:59 SAST

	if err := platformpg.Migrate(ctx, pool, testkit.Schema, outbox.Migrations, postgres.Migrations); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `SELECT period || ' ' || period_start::text || ' ' || used_cents::text FROM usage_totals
		WHERE user_id = $1 ORDER BY period, period_start`, user)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	want := []string{
		"day 2025-12-31 640000", "day 2026-01-31 10000", "day 2026-02-01 60000",
		"month 2025-12-01 640000", "month 2026-01-01 10000", "month 2026-02-01 60000",
		"year 2025-01-01 640000", "year 2026-01-01 70000",
	}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Fatalf("totals after the backfill:\n got %v\nwant %v", got, want)
	}

	// 0016 backfills the history's counts by status from the same rows.
	var counts string
	if err := pool.QueryRow(ctx, `SELECT string_agg(status || ' ' || n::text, '; ' ORDER BY status) FROM transfer_counts
		WHERE user_id = $1`, user).Scan(&counts); err != nil {
		t.Fatal(err)
	}
	if want := "completed 4; failed 1; pending 1; processing 1"; counts != want {
		t.Fatalf("counts after the backfill: %s, want %s", counts, want)
	}
}
