package outage_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/thumela/thumela/deploy/devstack/internal/bench"
	"github.com/thumela/thumela/deploy/devstack/internal/stacktest"
)

const (
	// senders sign up, each with the sandbox's approving card, and send all the while.
	senders = 6
	// sendEvery is each sender's pace between two accepted sends: six senders make about
	// eight sends a second, a steady stream on a two-core CI machine.
	sendEvery = 700 * time.Millisecond
	// warmUp is how long the traffic runs before the first outage, settle how long after each
	// one before the next, and cooldown after the last before the senders stop.
	warmUp   = 5 * time.Second
	settle   = 5 * time.Second
	cooldown = 6 * time.Second
	// restartAfter is how long a killed service stays dead before it is started again, as a
	// supervisor (systemd, Kubernetes) would restart it.
	restartAfter = time.Second
	// slowAnswer is the longest the BFF may take to answer while a dependency is down: it must
	// answer, not hang (the web shows a banner, not a spinner that never ends).
	slowAnswer = 12 * time.Second
)

// hold is how long PostgreSQL and NATS each stay down: 10 s, or OUTAGE_HOLD (a longer outage
// for `make chaos`).
func hold(t *testing.T) time.Duration {
	if s := os.Getenv("OUTAGE_HOLD"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			t.Fatalf("OUTAGE_HOLD=%q: want a duration such as 30s", s)
		}
		return d
	}
	return 10 * time.Second
}

// TestOutagesDuringABurst runs the stack on a PostgreSQL cluster of its own and, while senders
// send, recipients withdraw at the dev ATM and senders cancel, restarts PostgreSQL (down for
// 10 s), restarts NATS (down for 10 s), and SIGKILLs notifications and cashout mid-request.
// Then it checks that nothing was lost or doubled: every accepted transfer completed or
// failed, every voucher is final or still collectable and in the state its last answer said,
// every voucher SMS was sent exactly once, and reconciliation (full) is clean. While each
// dependency is down it probes the BFF and checks that it answers, quickly, rather than hang.
//
// It runs bin/* and web/dist (make build-go build-web). The stack's log is kept, and its path
// printed, when the test fails or OUTAGE_KEEP_LOG is set.
func TestOutagesDuringABurst(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the whole stack and its own PostgreSQL cluster (about 2 minutes); not in -short")
	}
	downFor := hold(t)
	retryFor, finalWithin = downFor+80*time.Second, downFor+110*time.Second
	began := time.Now()
	phase := func(format string, args ...any) {
		t.Logf("[%5.1fs] %s", time.Since(began).Seconds(), fmt.Sprintf(format, args...))
	}
	st := stacktest.Start(t, stacktest.Options{
		Name:            "outage",
		PrivatePostgres: true,
		TolerateExit:    true, // the test stops and kills children on purpose
		KeepLogEnv:      "OUTAGE_KEEP_LOG",
		ExtraEnv: []string{
			// A transfer whose worker lost PostgreSQL mid-charge is taken over once its lease
			// passes (scale-out test's figures).
			"TRANSFERS_PROCESSING_LEASE=4s",
			"TRANSFERS_WORKER_SWEEP=1s",
			"PAYMENTMETHODS_PROCESSOR_TIMEOUT=5s",
			// A delivery whose notifications process died mid-send is leased for 2× this and
			// redelivered by JetStream after 3× this (30 s by default: 90 s).
			"NOTIFICATIONS_SEND_TIMEOUT=2s",
			// The senders are a load from one address, not people (scale-out test).
			"BFF_RATE_LIMITS=transfer.address=0/1m+0,transfer.account=0/1m+0,cancel.address=0/1m+0,cancel.account=0/1m+0",
		},
	})
	f := st.Faults
	if f == nil || f.PID("postgres") == 0 || f.PID("notifications") == 0 || f.PID("cashout") == 0 {
		t.Fatalf("the stack runs no PostgreSQL of its own, or gives no fault controls: %v", st.PIDs)
	}
	ctx := st.Context(t, 5*time.Minute+4*downFor)
	phase("stack up on its own PostgreSQL (pid %d)", f.PID("postgres"))
	pool, err := pgxpool.New(ctx, st.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	client := bench.NewClient(bench.ClientConfig{BaseURL: st.BaseURL})
	defer client.Close()
	runID := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	users, err := client.SetUpUsers(ctx, "outage-"+runID, senders, 3, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := bench.StepUpAll(ctx, users, 3); err != nil {
		t.Fatal(err)
	}
	userIDs := make([]string, len(users))
	for i, u := range users {
		userIDs[i] = u.ID
	}
	phase("%d senders signed up with a card and stepped up", senders)

	ld := newLoad(st, users, runID)
	loadCtx, stopSending := context.WithCancel(ctx)
	defer stopSending()
	go ld.outbox.run(ctx)
	ld.start(loadCtx, ctx)
	probes := startProber(ctx, users[0], ld)
	phase("traffic started: %d senders, one send every %s each; a third of the vouchers withdrawn, a third cancelled", senders, sendEvery)
	sleep(ctx, warmUp)

	// 1. PostgreSQL: a fast shutdown (what `pg_ctl stop -m fast` sends: SIGINT), down for
	// the hold, started again on the same data folder.
	probes.enter("postgres down")
	ld.mark("postgres down")
	if err := f.Stop("postgres", syscall.SIGINT, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	phase("PostgreSQL stopped (fast shutdown); holding it down for %s", downFor)
	sleep(ctx, downFor)
	if err := f.Start("postgres"); err != nil {
		t.Fatal(err)
	}
	probes.enter("postgres back")
	up := time.Now()
	if !stacktest.WaitUntil(30*time.Second, 100*time.Millisecond, func() bool { return pingDB(ctx, st.DatabaseURL) == nil }) {
		t.Fatalf("PostgreSQL did not accept connections within 30 s of its start: %v", pingDB(ctx, st.DatabaseURL))
	}
	phase("PostgreSQL started again (pid %d), accepting connections after %s", f.PID("postgres"), time.Since(up).Round(time.Millisecond))
	ld.mark("")
	sleep(ctx, settle)

	// 2. NATS: the embedded server shut down (every client's connection drops), down for the
	// hold, started again on its port and JetStream store.
	probes.enter("nats down")
	ld.mark("nats down")
	if err := f.StopNATS(); err != nil {
		t.Fatal(err)
	}
	phase("NATS stopped; holding it down for %s", downFor)
	sleep(ctx, downFor)
	if err := f.StartNATS(); err != nil {
		t.Fatal(err)
	}
	probes.enter("nats back")
	phase("NATS started again")
	ld.mark("")
	sleep(ctx, settle)

	// 3. notifications, SIGKILLed while it holds a delivery (a send in flight or just made),
	// and cashout while a withdrawal is in flight at the ATM.
	probes.enter("kills")
	inFlight := waitFor(ctx, 5*time.Second, func() bool {
		var n int
		err := pool.QueryRow(ctx, `SELECT count(*) FROM notifications.deliveries
			WHERE status = 'queued' AND claimed_until > now()`).Scan(&n)
		return err == nil && n > 0
	})
	if err := f.Stop("notifications", syscall.SIGKILL, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	phase("SIGKILL notifications (a delivery claimed at that moment: %v)", inFlight)
	sleep(ctx, restartAfter)
	if err := f.Start("notifications"); err != nil {
		t.Fatal(err)
	}
	atmBusy := waitFor(ctx, 5*time.Second, func() bool { return ld.atmInFlight.Load() > 0 })
	if err := f.Stop("cashout", syscall.SIGKILL, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	phase("notifications started again; SIGKILL cashout (%d withdrawals in flight at the ATM: %v)", ld.atmInFlight.Load(), atmBusy)
	sleep(ctx, restartAfter)
	if err := f.Start("cashout"); err != nil {
		t.Fatal(err)
	}
	phase("cashout started again")
	probes.enter("after")
	sleep(ctx, cooldown)

	stopSending()
	ld.wait()
	probes.stop()
	phase("traffic stopped: %s", ld.summary())
	for _, err := range ld.errors() {
		t.Error(err)
	}

	// Afterwards.
	waitAllFinal(t, ctx, pool, userIDs)
	phase("every accepted transfer final")
	waitOutboxesDrained(t, ctx, pool)
	phase("every service's outbox drained")
	waitRefundsDone(t, ctx, pool)
	phase("every cancelled voucher's refund ended")
	checkTransfers(t, ctx, pool, userIDs, ld.records())
	checkSMS(t, ctx, pool, st, userIDs)
	phase("every voucher SMS sent exactly once")
	runs := checkReconciliation(t, ctx, pool, st.Ready)
	phase("reconciliation (full) clean after %d run(s)", runs)
	probes.check(t, phase)
}

// pingDB connects to the database once.
func pingDB(ctx context.Context, url string) error {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	conn, err := pgx.Connect(cctx, url)
	if err != nil {
		return err
	}
	return conn.Close(cctx)
}

// waitFor polls cond every 5 ms until it holds (true) or timeout passes (false).
func waitFor(ctx context.Context, timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if cond() {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
