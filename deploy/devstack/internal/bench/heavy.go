package bench

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/thumela/thumela/deploy/devstack/internal/stack"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
)

// seedHistorySQL gives each of $1's users $2 earlier transfers, written straight into the
// transfers service's schema of the stack's throw-away database in one statement: R10.00 each
// to the bench's recipient, completed, their vouchers collected (a final state: no worker,
// expiry or reminder picks them up), one every 30 minutes back from an hour ago. The service's
// own triggers run on every row: the usage totals (day, month, year) count each transfer as a
// create would, and the card charge is filled in. Voucher numbers start with the two digits $3
// and count up. The service draws its own at random from all ten-digit numbers, and the create
// phases before this one drew thousands, so one of them falls in the seeded range now and then
// (a few runs in a hundred: 40,000 numbers of 10^10, against some 10,000 drawn): that is a
// unique violation here, never a wrong row, and SeedHistory tries the next prefix. What a heavy
// sender's create then reads is what it would read in production after sending that many.
const seedHistorySQL = `
INSERT INTO transfers.transfers (
    id, user_id, idempotency_key, request_hash, sender_name, recipient_name, recipient_phone, bank,
    amount_cents, bank_fee_cents, platform_fee_cents, fee_cents, total_cents, fee_waived, status,
    payment_method_id, payment_method_name, payment_method_last_four, payment_method_token,
    location_name, location_type, charge_id, attempts, voucher_number, voucher_pin_hash,
    collection_status, voucher_expires_at, collected_at, recipient_known_confirmed,
    created_at, updated_at)
SELECT gen_random_uuid(), u.id, 'bench-history-' || g.n, decode(md5(u.id::text || g.n), 'hex'), 'Bench Sender',
    'Lerato Bench', '+27821234567', 'fnb',
    1000, 500, 0, 500, 1500, false, 'completed',
    'bench-card', 'Visa', '4242', 'bench-token',
    'default', 'default', 'bench-charge-' || g.n, 1,
    $3::text || lpad(((u.ord - 1) * $2::int + g.n)::text, 8, '0'), 'bench-seeded',
    'collected', c.at + interval '30 days', c.at + interval '1 hour', true,
    c.at, c.at + interval '1 hour'
FROM unnest($1::uuid[]) WITH ORDINALITY AS u (id, ord)
CROSS JOIN generate_series(1, $2::int) AS g (n)
CROSS JOIN LATERAL (SELECT now() - interval '1 hour' - g.n * interval '30 minutes' AS at) AS c`

// SeedHistory writes perUser earlier transfers for each user straight into the stack's
// database (seedHistorySQL), then refreshes the planner's statistics of the table, as
// autovacuum would soon after such a load. It returns how long that took.
func SeedHistory(ctx context.Context, databaseURL string, userIDs []string, perUser int) (time.Duration, error) {
	t0 := time.Now()
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return 0, fmt.Errorf("seed history: %w", err)
	}
	defer conn.Close(ctx) //nolint:errcheck // closing the seeding connection; its writes are committed or failed already
	// The service's triggers name its tables and functions unqualified, as its own pool does
	// (search_path pinned to its schema).
	if _, err := conn.Exec(ctx, "SET search_path TO transfers"); err != nil {
		return 0, fmt.Errorf("seed history: %w", err)
	}
	// The statement is one transaction: a clash with a number the service drew inserts nothing,
	// and the next prefix is tried.
	for prefix := 99; ; prefix-- {
		_, err := conn.Exec(ctx, seedHistorySQL, userIDs, perUser, strconv.Itoa(prefix))
		if constraint, clash := platformpg.IsUniqueViolation(err); clash && constraint == "transfers_voucher_number_key" && prefix > 95 {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("seed history: %w", err)
		}
		break
	}
	if _, err := conn.Exec(ctx, "ANALYZE transfers.transfers, transfers.usage_totals"); err != nil {
		return 0, fmt.Errorf("seed history: analyze: %w", err)
	}
	return time.Since(t0), nil
}

// HistoryCounts reads, per user, the transfers and the year's usage total the service holds
// (a check that the seeding is what a create reads).
func HistoryCounts(ctx context.Context, databaseURL string, userIDs []string) (transfers, yearCents int64, err error) {
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close(ctx) //nolint:errcheck // closing the seeding connection; its writes are committed or failed already
	err = conn.QueryRow(ctx, `
SELECT (SELECT count(*) FROM transfers.transfers WHERE user_id = ANY($1::uuid[])),
       (SELECT coalesce(sum(used_cents), 0) FROM transfers.usage_totals WHERE user_id = ANY($1::uuid[]) AND period = 'year')`,
		userIDs).Scan(&transfers, &yearCents)
	return transfers, yearCents, err
}

// ClosedLoops runs two closed loops side by side over the same window (see ClosedLoop), one
// worker per user of each group, so that both see the same machine: their ratio is then a fair
// comparison even on a shared, noisy one.
func ClosedLoops(ctx context.Context, a, b []*User, warmup, d time.Duration, op func(ctx context.Context, u *User) error) (Summary, Summary) {
	var wg sync.WaitGroup
	var sa, sb Summary
	wg.Add(2)
	go func() {
		defer wg.Done()
		sa = ClosedLoop(ctx, len(a), warmup, d, func(ctx context.Context, w, _ int) error { return op(ctx, a[w]) })
	}()
	go func() {
		defer wg.Done()
		sb = ClosedLoop(ctx, len(b), warmup, d, func(ctx context.Context, w, _ int) error { return op(ctx, b[w]) })
	}()
	wg.Wait()
	return sa, sb
}

// heavy runs 2d: it seeds the heavy senders' history in the database, then runs create-transfer
// for them and for as many new senders side by side.
func (r *runner) heavy(ctx context.Context, ready stack.Ready, heavy, fresh []*User) {
	o := r.cfg
	ids := make([]string, len(heavy))
	for i, u := range heavy {
		ids[i] = u.ID
	}
	r.step("seeding %d earlier transfers for each of %d senders in the database", o.HeavyHistory, len(heavy))
	took, err := SeedHistory(ctx, ready.DatabaseURL, ids, o.HeavyHistory)
	if err == nil {
		err = StepUpAll(ctx, slices.Concat(heavy, fresh), 8)
	}
	if err != nil {
		r.fail(fmt.Sprintf("2d. create TPS, %d earlier ÷ new senders", o.HeavyHistory), "≥ 0.90", err)
		return
	}
	n, cents, _ := HistoryCounts(ctx, ready.DatabaseURL, ids)
	r.raw["heavy_seed"] = map[string]any{"seconds": took.Seconds(), "transfers": n, "year_usage_cents": cents}
	r.step("create-transfer, %d senders with history and %d new side by side: %s warm-up + %s", len(heavy), len(fresh), o.LevelWarmup, o.HeavyDuration)
	from := r.meter()
	h, f := ClosedLoops(ctx, heavy, fresh, o.LevelWarmup, o.HeavyDuration, func(ctx context.Context, u *User) error {
		_, err := u.Transfers.CreateTransfer(ctx, TransferRequest(u))
		return err
	})
	r.cpu("create-transfer, heavy and new senders", from)
	r.raw["create_transfer_heavy"], r.raw["create_transfer_new"] = h, f
	r.step("heavy senders %.0f tps (p50 %.1f ms), new senders %.0f tps (p50 %.1f ms)", h.TPS, h.P50ms, f.TPS, f.P50ms)
	r.add(HeavyFigures(h, f, len(heavy), o.HeavyHistory, took))
	// Their transfers are completed, and the machine quiet, before the next phase, as after the
	// other create phases.
	if waited, left, err := Drain(ctx, slices.Concat(heavy, fresh), o.DrainTimeout); err == nil {
		r.step("  worker caught up in %.1f s (%d unfinished)", waited.Seconds(), left)
	}
	r.settle(ctx, "the heavy senders' phase")
}

// HeavyFigures makes the row comparing create-transfer for senders with a long history with
// create-transfer for new senders, measured side by side.
func HeavyFigures(heavy, fresh Summary, senders, history int, seeded time.Duration) Figure {
	name := fmt.Sprintf("2d. create TPS, %s earlier ÷ new senders", thousands(history))
	if heavy.Count == 0 || fresh.Count == 0 {
		samples := append(append([]string{}, heavy.ErrorSamples...), fresh.ErrorSamples...)
		return Figure{Name: name, Target: "≥ 0.90", Result: Error, Error: fmt.Sprintf("no successful call in a group: %v", samples)}
	}
	f := Figure{Name: name, Unit: "tps", Measured: F(heavy.TPS), Baseline: F(fresh.TPS), Ratio: F(heavy.TPS / fresh.TPS), Target: "≥ 0.90",
		Detail: fmt.Sprintf("%d senders with %s earlier transfers each (seeded in the database in %.1f s) and %d new senders, side by side for %.0f s: p50 %.1f vs %.1f ms, p99 %.1f vs %.1f ms; %d and %d errors",
			senders, thousands(history), seeded.Seconds(), senders, heavy.Seconds, heavy.P50ms, fresh.P50ms, heavy.P99ms, fresh.P99ms, heavy.Errors, fresh.Errors)}
	f.Check(*f.Ratio, 0.9, true)
	if (heavy.Errors > 0 || fresh.Errors > 0) && f.Result == Pass {
		f.Result, f.Detail = Miss, f.Detail+" (a phase with errors is not a pass)"
	}
	return f
}

// thousands writes 5000 as "5,000".
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
