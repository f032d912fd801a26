package grpcport_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// totalsMatchHistory checks the running totals (usage_totals, 0008) against a sum over the
// whole history, computed the way the create used to: every period of every transfer that has
// not failed and whose voucher was not cancelled or expired, in Johannesburg time. Periods
// with nothing counted may be absent or zero.
func totalsMatchHistory(t *testing.T, e *testkit.Env) {
	t.Helper()
	var diffs []string
	rows, err := e.Pool.Query(context.Background(), `
		WITH want AS (
			SELECT user_id, v.period, v.period_start, sum(amount_cents) AS cents
			FROM transfers CROSS JOIN LATERAL (VALUES
				('year', date_trunc('year', created_at AT TIME ZONE 'Africa/Johannesburg')::date),
				('month', date_trunc('month', created_at AT TIME ZONE 'Africa/Johannesburg')::date),
				('day', (created_at AT TIME ZONE 'Africa/Johannesburg')::date)) AS v (period, period_start)
			WHERE status <> 'failed' AND (collection_status IS NULL OR collection_status NOT IN ('cancelled', 'expired'))
			GROUP BY 1, 2, 3)
		SELECT coalesce(w.period, u.period) || ' ' || coalesce(w.period_start, u.period_start)::text || ': want ' ||
			coalesce(w.cents, 0)::text || ', total ' || coalesce(u.used_cents, 0)::text
		FROM want w FULL JOIN usage_totals u USING (user_id, period, period_start)
		WHERE coalesce(w.cents, 0) <> coalesce(u.used_cents, 0)`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			t.Fatal(err)
		}
		diffs = append(diffs, d)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(diffs) > 0 {
		t.Fatalf("running totals differ from the history: %v", diffs)
	}
}

// usage returns the caller's used cents per limit kind, and the uncollected money.
func usage(t *testing.T, ctx context.Context, e *testkit.Env) (map[transfersv1.LimitKind]int64, *transfersv1.GetLimitsResponse) {
	t.Helper()
	res, err := e.Client.GetLimits(ctx, &transfersv1.GetLimitsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	used := map[transfersv1.LimitKind]int64{}
	for _, l := range res.GetLimits() {
		used[l.GetKind()] = l.GetUsedCents()
	}
	return used, res
}

func wantUsed(t *testing.T, what string, got map[transfersv1.LimitKind]int64, day, month, year int64) {
	t.Helper()
	if got[transfersv1.LimitKind_LIMIT_KIND_DAILY] != day || got[transfersv1.LimitKind_LIMIT_KIND_MONTHLY] != month ||
		got[transfersv1.LimitKind_LIMIT_KIND_YEARLY] != year {
		t.Fatalf("%s: used day/month/year = %d/%d/%d c, want %d/%d/%d", what,
			got[transfersv1.LimitKind_LIMIT_KIND_DAILY], got[transfersv1.LimitKind_LIMIT_KIND_MONTHLY],
			got[transfersv1.LimitKind_LIMIT_KIND_YEARLY], day, month, year)
	}
}

// Ten parallel creates of R1,000.00 against a R5,000.00 day: exactly five pass, and the day's
// running total is exactly R5,000.00.
func TestParallelCreatesStopExactlyAtTheDailyTotal(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{MaxConns: 12})
	user, pm := e.NewUser()
	ctx := e.Ctx(t, user)
	var (
		wg                sync.WaitGroup
		mu                sync.Mutex
		accepted, refused int
	)
	start := make(chan struct{})
	for i := range 10 {
		wg.Go(func() {
			<-start
			req := testkit.Request(fmt.Sprintf("parallel-%d", i), pm)
			req.AmountCents = 100000
			_, err := e.Client.CreateTransfer(ctx, req)
			mu.Lock()
			defer mu.Unlock()
			switch status.Code(err) {
			case codes.OK:
				accepted++
			case codes.FailedPrecondition:
				refused++
			default:
				t.Errorf("create %d: %v", i, err)
			}
		})
	}
	close(start)
	wg.Wait()
	if accepted != 5 || refused != 5 {
		t.Fatalf("accepted %d, refused %d; want 5 and 5", accepted, refused)
	}
	used, _ := usage(t, ctx, e)
	wantUsed(t, "after the burst", used, 500000, 500000, 500000)
	totalsMatchHistory(t, e)
}

// A declined card (the worker fails the transfer) and a cancelled voucher give their amounts
// back, to the periods they were counted in: those of their creation, not of the give-back.
func TestGiveBackOnFailureAndCancelGoesToTheCreationPeriods(t *testing.T) {
	t.Parallel()
	jhb := domain.Johannesburg
	e := testkit.New(t, testkit.Options{})
	e.StartWorker(t, nil, e.WorkerConfig())
	user, pm := e.NewUser()
	decliner, declinedPM := e.NewUser(testkit.TokenDecline)
	ctx, dctx := e.Ctx(t, user), e.Ctx(t, decliner)

	// 31 March, 23:30 SAST (21:30 UTC): the last half hour of the day, the month and the quarter.
	e.Clock.Set(time.Date(2026, time.March, 31, 23, 30, 0, 0, jhb))
	req := testkit.Request("march", pm)
	req.AmountCents = 200000
	march := create(t, ctx, e, req)
	req = testkit.Request("declined", declinedPM)
	req.AmountCents = 300000
	declined := create(t, dctx, e, req)
	e.WaitStatus(t, declined.GetId(), domain.StatusFailed, 15*time.Second)
	used, _ := usage(t, dctx, e)
	wantUsed(t, "declined, after the failure", used, 0, 0, 0)

	e.WaitStatus(t, march.GetId(), domain.StatusCompleted, 15*time.Second)
	used, res := usage(t, ctx, e)
	wantUsed(t, "31 March", used, 200000, 200000, 200000)
	if res.GetUncollectedCents() != 200000 || res.GetUncollectedVouchers() != 1 {
		t.Fatalf("uncollected = %d c in %d vouchers, want 200000 in 1", res.GetUncollectedCents(), res.GetUncollectedVouchers())
	}

	// Midnight: 1 April. March's transfer no longer counts today or this month, only this year.
	e.Clock.Set(time.Date(2026, time.April, 1, 0, 0, 0, 0, jhb))
	req = testkit.Request("april", pm)
	req.AmountCents = 150000
	april := create(t, ctx, e, req)
	used, _ = usage(t, ctx, e)
	wantUsed(t, "1 April", used, 150000, 150000, 350000)

	// Cancelling March's voucher on 1 April gives back to March (and the year), not to April.
	if _, err := e.Client.CancelTransfer(ctx, &transfersv1.CancelTransferRequest{TransferId: march.GetId()}); err != nil {
		t.Fatal(err)
	}
	used, _ = usage(t, ctx, e)
	wantUsed(t, "1 April, March cancelled", used, 150000, 150000, 150000)
	e.WaitStatus(t, april.GetId(), domain.StatusCompleted, 15*time.Second)
	_, res = usage(t, ctx, e)
	if res.GetUncollectedCents() != 150000 || res.GetUncollectedVouchers() != 1 {
		t.Fatalf("uncollected = %d c in %d vouchers, want April's 150000 in 1", res.GetUncollectedCents(), res.GetUncollectedVouchers())
	}
	var marchDay int64
	if err := e.Pool.QueryRow(context.Background(), `SELECT used_cents FROM usage_totals
		WHERE user_id = $1 AND period = 'day' AND period_start = '2026-03-31'`, user).Scan(&marchDay); err != nil {
		t.Fatal(err)
	}
	if marchDay != 0 {
		t.Fatalf("31 March's total = %d c after the cancel, want 0", marchDay)
	}
	// The room given back can be used again: R5,000.00 today after R1,500.00 leaves R3,500.00.
	req = testkit.Request("april-2", pm)
	req.AmountCents = 300000
	create(t, ctx, e, req)
	totalsMatchHistory(t, e)
}

// At the edge, through the totals: exactly the daily and the monthly limit pass, R10 more is
// refused, and after a voucher expires (given back) its room is there again.
func TestTotalsAtTheEdgeAndAfterExpiry(t *testing.T) {
	t.Parallel()
	jhb := domain.Johannesburg
	e := testkit.New(t, testkit.Options{Limits: domain.Limits{
		Minimum: domain.Cents(1000), PerTransfer: domain.Cents(300000), Daily: domain.Cents(500000),
		Monthly: domain.Cents(800000), Yearly: domain.Cents(1000000),
	}})
	e.StartWorker(t, nil, e.WorkerConfig())
	user, pm := e.NewUser()
	ctx := e.Ctx(t, user)
	send := func(key string, cents int64) (*transfersv1.Transfer, error) {
		req := testkit.Request(key, pm)
		req.AmountCents = cents
		res, err := e.Client.CreateTransfer(ctx, req)
		return res.GetTransfer(), err
	}
	refused := func(key string, cents int64, kind transfersv1.LimitKind) {
		t.Helper()
		_, err := send(key, cents)
		if le, _ := limitDetail(t, err); le.GetKind() != kind {
			t.Fatalf("%s: refused by %v, want %v", key, le.GetKind(), kind)
		}
	}
	e.Clock.Set(time.Date(2026, time.March, 18, 12, 0, 0, 0, jhb))
	first, err := send("a", 300000)
	if err != nil {
		t.Fatal(err)
	}
	e.WaitStatus(t, first.GetId(), domain.StatusCompleted, 15*time.Second) // expires 25 March, 12:00

	e.Clock.Set(time.Date(2026, time.March, 24, 12, 0, 0, 0, jhb))
	if _, err := send("b", 300000); err != nil {
		t.Fatal(err)
	}
	refused("day-over", 201000, transfersv1.LimitKind_LIMIT_KIND_DAILY)
	if _, err := send("day-exact", 200000); err != nil { // R5,000.00 today, R8,000.00 this month: both full
		t.Fatalf("exactly at the day and the month: %v", err)
	}
	refused("full", 1000, transfersv1.LimitKind_LIMIT_KIND_DAILY)

	// The first voucher expires: its R3,000.00 comes back to March.
	e.Clock.Set(time.Date(2026, time.March, 25, 12, 1, 0, 0, jhb))
	testkit.Eventually(t, 15*time.Second, "the voucher to expire", func() bool {
		var st string
		_ = e.Pool.QueryRow(context.Background(), `SELECT coalesce(collection_status, '') FROM transfers WHERE id = $1`, first.GetId()).Scan(&st)
		return st == "expired"
	})
	used, _ := usage(t, ctx, e)
	wantUsed(t, "after the expiry", used, 0, 500000, 500000)
	refused("month-over", 301000, transfersv1.LimitKind_LIMIT_KIND_PER_TRANSFER)
	if _, err := send("month-exact", 300000); err != nil {
		t.Fatalf("exactly at the month again: %v", err)
	}
	refused("month-full", 1000, transfersv1.LimitKind_LIMIT_KIND_MONTHLY)
	totalsMatchHistory(t, e)
}

// GetLimitPolicy answers the configured limits to a call with no token at all (the BFF's
// public pages), and the same to a user.
func TestGetLimitPolicyNeedsNoUser(t *testing.T) {
	t.Parallel()
	limits := domain.Limits{Minimum: domain.Cents(2000), PerTransfer: domain.Cents(250000), Daily: domain.Cents(420000),
		Monthly: domain.Cents(1900000), Yearly: domain.Cents(8800000)}
	e := testkit.New(t, testkit.Options{Limits: limits})
	user, _ := e.NewUser()
	want := map[transfersv1.LimitKind]int64{
		transfersv1.LimitKind_LIMIT_KIND_MINIMUM: 2000, transfersv1.LimitKind_LIMIT_KIND_PER_TRANSFER: 250000,
		transfersv1.LimitKind_LIMIT_KIND_DAILY: 420000, transfersv1.LimitKind_LIMIT_KIND_MONTHLY: 1900000,
		transfersv1.LimitKind_LIMIT_KIND_YEARLY: 8800000,
	}
	for name, ctx := range map[string]context.Context{"no token": context.Background(), "user": e.Ctx(t, user)} {
		res, err := e.Client.GetLimitPolicy(ctx, &transfersv1.GetLimitPolicyRequest{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(res.GetLimits()) != len(want) || res.GetAmountMultipleCents() != 1000 {
			t.Fatalf("%s: %v", name, res)
		}
		for _, l := range res.GetLimits() {
			if want[l.GetKind()] != l.GetLimitCents() {
				t.Errorf("%s: %v = %d c, want %d", name, l.GetKind(), l.GetLimitCents(), want[l.GetKind()])
			}
		}
	}
	// GetLimits still needs the user.
	if _, err := e.Client.GetLimits(context.Background(), &transfersv1.GetLimitsRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("GetLimits without a token: %v", err)
	}
}
