package grpcport_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// Fifty identical requests under one idempotency key, arriving together while two workers
// run: one transfer row, one charge at paymentmethods (one call, one processor charge, key =
// transfer id) and one status event per step.
func TestFiftyConcurrentCreatesWithOneKeyChargeOnce(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{MaxConns: 8})
	e.StartWorker(t, nil, e.WorkerConfig())
	e.StartWorker(t, testkit.OpenPool(t, e.DBURL, 4), e.WorkerConfig()) // a second replica
	user, pm := e.NewUser()
	ctx := e.Ctx(t, user)

	ids := make([]string, 50)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			<-start
			res, err := e.Client.CreateTransfer(ctx, testkit.Request("one-key", pm))
			if err != nil {
				t.Errorf("create %d: %v", i, err)
				return
			}
			ids[i] = res.GetTransfer().GetId()
		})
	}
	close(start)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("ids = %v, want one", ids)
		}
	}
	id := ids[0]
	if n := rows(t, e, user); n != 1 {
		t.Fatalf("%d rows, want 1", n)
	}
	e.WaitStatus(t, id, domain.StatusCompleted, 15*time.Second)
	time.Sleep(300 * time.Millisecond) // several sweeps: nothing more may happen

	if calls, made := e.Payments.ChargeCalls(id), e.Payments.ProcessorCharges(id); calls != 1 || made != 1 {
		t.Fatalf("charge calls %d, processor charges %d for the transfer; want 1 and 1", calls, made)
	}
	if n := e.Payments.TotalChargeCalls(); n != 1 {
		t.Fatalf("%d charge calls in all, want 1", n)
	}
	perStatus := map[transfersv1.TransferStatus]int{}
	for _, ev := range e.StatusEvents(t, id) {
		perStatus[ev.GetTransfer().GetStatus()]++
	}
	want := map[transfersv1.TransferStatus]int{
		transfersv1.TransferStatus_TRANSFER_STATUS_PENDING:    1,
		transfersv1.TransferStatus_TRANSFER_STATUS_PROCESSING: 1,
		transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED:  1,
	}
	if fmt.Sprint(perStatus) != fmt.Sprint(want) {
		t.Fatalf("status events per status = %v, want %v", perStatus, want)
	}
}

// The default limits at their edges, over gRPC, with the clock in Africa/Johannesburg: each
// limit can be reached exactly and not passed by the smallest step an amount can take (R10,
// ATMs paying out notes); days, months and years turn at Johannesburg midnight (22:00 UTC).
func TestLimitsAtTheirEdges(t *testing.T) {
	t.Parallel()
	jhb := domain.Johannesburg
	e := testkit.New(t, testkit.Options{}) // domain.DefaultLimits: R3,000 / R5,000 / R24,000 / R100,000
	if domain.DefaultLimits.PerTransfer.Cents() != 300000 || domain.DefaultLimits.Daily.Cents() != 500000 ||
		domain.DefaultLimits.Monthly.Cents() != 2400000 || domain.DefaultLimits.Yearly.Cents() != 10000000 {
		t.Fatalf("default limits changed: %+v", domain.DefaultLimits)
	}
	user, pm := e.NewUser()
	ctx := e.Ctx(t, user)
	n := 0
	send := func(at time.Time, amount int64) error {
		t.Helper()
		e.Clock.Set(at)
		n++
		req := testkit.Request(fmt.Sprintf("edge-%d", n), pm)
		req.AmountCents = amount
		_, err := e.Client.CreateTransfer(ctx, req)
		return err
	}
	ok := func(at time.Time, amount int64) {
		t.Helper()
		if err := send(at, amount); err != nil {
			t.Fatalf("%v, %d c: %v", at, amount, err)
		}
	}
	refused := func(at time.Time, amount int64, kind transfersv1.LimitKind, remaining int64) {
		t.Helper()
		le, msg := limitDetail(t, send(at, amount))
		if le.GetKind() != kind || le.GetRemainingCents() != remaining {
			t.Fatalf("%v, %d c: refused by %v with %d c left (%q), want %v with %d c", at, amount, le.GetKind(), le.GetRemainingCents(), msg, kind, remaining)
		}
	}
	// spend sends total on the day of at, in transfers of at most R3,000.00.
	spend := func(at time.Time, total int64) {
		t.Helper()
		for total > 0 {
			a := min(total, 300000)
			ok(at, a)
			total -= a
		}
	}
	// fillMonth spends the whole monthly limit in the month of at, from day 1 to day 5.
	fillMonth := func(year int, month time.Month) {
		t.Helper()
		for d := 1; d <= 4; d++ {
			spend(time.Date(year, month, d, 10, 0, 0, 0, jhb), 500000)
		}
		spend(time.Date(year, month, 5, 10, 0, 0, 0, jhb), 400000)
	}
	day := func(month time.Month, d int) time.Time { return time.Date(2026, month, d, 10, 0, 0, 0, jhb) }

	// Per transfer: R3,010.00 refused, naming the per-transfer limit; R3,000.00 allowed.
	refused(day(time.January, 5), 301000, transfersv1.LimitKind_LIMIT_KIND_PER_TRANSFER, 300000)
	ok(day(time.January, 5), 300000)
	// Daily: R5,000.00 reached exactly is allowed, R10 more is not.
	refused(day(time.January, 5), 201000, transfersv1.LimitKind_LIMIT_KIND_DAILY, 200000)
	ok(day(time.January, 5), 200000)
	refused(time.Date(2026, 1, 5, 21, 59, 59, 0, time.UTC), 1000, transfersv1.LimitKind_LIMIT_KIND_DAILY, 0) // 23:59:59 SAST
	ok(time.Date(2026, 1, 5, 22, 0, 0, 0, time.UTC), 300000)                                                 // midnight SAST: a new day
	spend(day(time.January, 6), 200000)
	// Monthly: R24,000.00 reached exactly is allowed, R10 more is not.
	spend(day(time.January, 7), 500000)
	spend(day(time.January, 8), 500000)
	ok(day(time.January, 9), 300000) // R23,000.00 this month
	refused(day(time.January, 9), 101000, transfersv1.LimitKind_LIMIT_KIND_MONTHLY, 100000)
	ok(day(time.January, 9), 100000)
	refused(time.Date(2026, 1, 31, 21, 59, 59, 0, time.UTC), 1000, transfersv1.LimitKind_LIMIT_KIND_MONTHLY, 0)
	ok(time.Date(2026, 1, 31, 22, 0, 0, 0, time.UTC), 300000) // 1 February SAST: a new month
	spend(day(time.February, 1), 200000)
	for d := 2; d <= 4; d++ {
		spend(day(time.February, d), 500000)
	}
	spend(day(time.February, 5), 400000) // February full: R48,000.00 this year
	fillMonth(2026, time.March)
	fillMonth(2026, time.April) // R96,000.00
	// Yearly: R100,000.00 reached exactly is allowed, R10 more is not.
	ok(day(time.May, 4), 300000) // R99,000.00
	refused(day(time.May, 4), 101000, transfersv1.LimitKind_LIMIT_KIND_YEARLY, 100000)
	ok(day(time.May, 4), 100000)
	refused(time.Date(2026, 12, 31, 21, 59, 59, 0, time.UTC), 1000, transfersv1.LimitKind_LIMIT_KIND_YEARLY, 0)
	ok(time.Date(2026, 12, 31, 22, 0, 0, 0, time.UTC), 300000) // 1 January 2027 SAST: a new year

	var sum int64
	if err := e.Pool.QueryRow(context.Background(), `SELECT sum(amount_cents) FROM transfers WHERE user_id = $1`, user).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	if sum != 10000000+300000 {
		t.Fatalf("stored %d c, want the yearly limit plus the new year's R3,000.00", sum)
	}
}
