package scaleout_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	"github.com/thumela/thumela/deploy/devstack/internal/bench"
	"github.com/thumela/thumela/deploy/devstack/internal/stack"
	"github.com/thumela/thumela/deploy/devstack/internal/stacktest"
	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
)

const (
	// senders sign up; half watch their events on BFF 1, half on BFF 2.
	senders = 16
	// transfers are created through both BFFs, alternating per sender independently of where
	// the sender's stream is. 200 over 16 senders is 13 each at most, R10.00–R19.00 each:
	// far inside the daily limit (R5,000) whatever the first-transfer-free rule waives.
	transfers = 200
	// createParallel creates are in flight at once, started at createsPerSecond.
	createParallel   = 8
	createsPerSecond = 50
	// killTransfersAfter creates have succeeded when transfers-1 is SIGKILLed (its worker and
	// outbox relay die with it, possibly mid-charge or mid-publish).
	killTransfersAfter = 80
	// killBFFAfter creates have succeeded when bff-2 is SIGKILLed: its streams reconnect to
	// bff-1 with their cursor, its creates go to bff-1 with the same idempotency key.
	killBFFAfter = 140
	// lease is the transfers worker's processing lease: a charge claimed by the killed
	// instance is taken over by the other once it passes (its floor is 2 s; the charge call
	// gets half of it, which must cover the sandbox's delay with room to spare).
	lease = "4s"
)

// TestScaleOut runs 2 BFFs and 2 transfers instances on one PostgreSQL and NATS, creates
// transfers through both BFFs, kills transfers-1 and then bff-2 mid-run, and checks that
// every transfer was charged once and completed once, and that every status event of every
// transfer reached the sender's open stream once, in order, whichever BFF it was on.
//
// It runs bin/* and web/dist (make build-go build-web) on the PostgreSQL at TEST_DATABASE_URL
// (default the local one), in a database of its own that is dropped at the end. The stack's
// log is kept, and its path printed, when the test fails or SCALEOUT_KEEP_LOG is set.
func TestScaleOut(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the whole stack with replicas (about 20 s); not in -short")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 6*time.Minute)
	defer cancel()
	began := time.Now()
	phase := func(format string, args ...any) {
		t.Logf("[%5.1fs] %s", time.Since(began).Seconds(), fmt.Sprintf(format, args...))
	}

	st := startStack(t)
	phase("stack up: BFFs %v, pids %v", st.BaseURLs, st.PIDs)
	pool, err := pgxpool.New(ctx, st.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	// Senders, each with the sandbox's approving Visa as default card.
	client := bench.NewClient(bench.ClientConfig{BaseURL: st.BaseURLs[0]})
	defer client.Close()
	runID := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	users, err := client.SetUpUsers(ctx, "scaleout-"+runID, senders, 4, true)
	if err != nil {
		t.Fatal(err)
	}
	// via[b][u]: sender u's clients on BFF b, one session for both.
	var via [2][]*bench.User
	userIDs := make([]string, senders)
	for i, u := range users {
		userIDs[i] = u.ID
		for b := range via {
			via[b] = append(via[b], client.Via(u, st.BaseURLs[b]))
		}
	}
	// Each sender confirms it is them (through BFF 0) before its transfers: the recipient is
	// new to it. BFF 1's grants, cached before, lack the step-up: its CreateTransfer fetches a
	// fresh grant when transfers asks for one.
	if err := bench.StepUpAll(ctx, users, 4); err != nil {
		t.Fatal(err)
	}
	phase("%d senders signed up with a card and stepped up", senders)

	// Live streams: sender u watches on BFF u%2 until the end of the test.
	var bffDead [2]atomic.Bool
	streamCtx, stopStreams := context.WithCancel(ctx)
	var streamsDone sync.WaitGroup
	watchers := make([]*watcher, senders)
	for u := range watchers {
		w := &watcher{user: u, userID: userIDs[u], bff: u % 2, live: make(chan struct{})}
		watchers[u] = w
		streamsDone.Go(func() { w.run(streamCtx, &via, &bffDead) })
	}
	defer func() { stopStreams(); streamsDone.Wait() }()
	for _, w := range watchers {
		select {
		case <-w.live:
		case <-time.After(30 * time.Second):
			t.Fatalf("sender %d's stream did not open within 30 s", w.user)
		}
	}
	phase("%d streams live (%d on each BFF)", senders, senders/2)

	// The transfers.
	results := make([]created, transfers)
	var succeeded atomic.Int64
	var retries atomic.Int64
	var retryCauses sync.Map
	var processingAtKill atomic.Int64
	jobs := make(chan int)
	errs := make(chan error, transfers)
	var creators sync.WaitGroup
	for range createParallel {
		creators.Go(func() {
			for i := range jobs {
				u := i % senders
				home := (i / senders) % 2 // alternates per sender, whatever its stream's BFF
				req := &bffv1.CreateTransferRequest{
					IdempotencyKey:  fmt.Sprintf("scaleout-%s-%03d", runID, i),
					RecipientName:   "Lerato Scaleout",
					RecipientPhone:  "+27821234567",
					Bank:            bffv1.Bank_BANK_FNB,
					AmountCents:     1000 + int64(i%7)*1000, // whole multiples of R10: ATMs pay out notes
					PaymentMethodId: users[u].CardID,
					// The first payment to the phone needs the sender's answer.
					RecipientKnownConfirmed: true,
				}
				var res *bffv1.CreateTransferResponse
				var err error
				start := time.Now()
				attempt := 0
				for ; attempt < 40; attempt++ {
					b := home
					if bffDead[b].Load() {
						b = 1 - b // the load balancer routes around a dead BFF
					}
					res, err = via[b][u].Transfers.CreateTransfer(ctx, req)
					if !retryable(ctx, err) {
						break
					}
					// Its backend (or the BFF) died under it: again with the same key, as the
					// web client does.
					retries.Add(1)
					retryCauses.Store(err.Error(), true)
					time.Sleep(250 * time.Millisecond)
				}
				if err != nil {
					errs <- fmt.Errorf("create %d (sender %d, %d attempts): %w", i, u, attempt+1, err)
					continue
				}
				results[i] = created{key: req.IdempotencyKey, id: res.GetTransfer().GetId(), user: u, attempts: attempt + 1, took: time.Since(start)}
				switch succeeded.Add(1) {
				case killTransfersAfter:
					var n int64
					_ = pool.QueryRow(ctx, `SELECT count(*) FROM transfers.transfers WHERE status = 'processing'`).Scan(&n)
					processingAtKill.Store(n)
					st.Kill(t, "transfers-1")
					phase("SIGKILL transfers-1 after %d creates (%d transfers processing at that moment)", killTransfersAfter, n)
				case killBFFAfter:
					st.Kill(t, "bff-2")
					bffDead[1].Store(true)
					phase("SIGKILL bff-2 after %d creates", killBFFAfter)
				}
			}
		})
	}
	// Paced, so that each kill lands in the middle of the traffic rather than at its end,
	// with a burst around each kill, so that creates are in flight when it lands.
	burst := func(i int) bool {
		return (i >= killTransfersAfter-8 && i < killTransfersAfter+24) || (i >= killBFFAfter-8 && i < killBFFAfter+24)
	}
	pace := time.NewTicker(time.Second / createsPerSecond)
	for i := range transfers {
		if !burst(i) {
			<-pace.C
		}
		jobs <- i
	}
	pace.Stop()
	close(jobs)
	creators.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	causes := []string{}
	retryCauses.Range(func(k, _ any) bool { causes = append(causes, k.(string)); return true })
	phase("%d transfers created (%d retries with the same key: %q)", transfers, retries.Load(), causes)

	// Every transfer reaches a final status: the killed instance's claims are taken over
	// once their lease passes.
	final, total := 0, 0
	if !stacktest.WaitUntil(2*time.Minute, 250*time.Millisecond, func() bool {
		if err := pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status IN ('completed', 'failed')), count(*)
			FROM transfers.transfers WHERE user_id = ANY($1::uuid[])`, userIDs).Scan(&final, &total); err != nil {
			t.Fatal(err)
		}
		return final == total
	}) {
		t.Fatalf("%d of %d transfers in a final status after 2 minutes", final, total)
	}
	phase("all %d transfers final", total)

	// Every event written is published: the killed instance's relay may have died between
	// publishing and marking, or before draining what its process wrote; the survivor's relay
	// finds those rows.
	unpublished := -1
	if !stacktest.WaitUntil(time.Minute, 100*time.Millisecond, func() bool {
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM transfers.outbox WHERE published_at IS NULL`).Scan(&unpublished); err != nil {
			t.Fatal(err)
		}
		return unpublished == 0
	}) {
		t.Fatalf("%d rows of the transfers outbox still unpublished a minute after the last transfer ended", unpublished)
	}
	phase("transfers outbox drained")

	checkTransfersAndCharges(t, ctx, pool, userIDs, results)

	// What the stream holds for these senders: the truth the BFFs deliver from.
	onStream, err := readEventsStream(ctx, st.Ready, userIDs)
	if err != nil {
		t.Fatal(err)
	}
	checkStreamHasEachStepOnce(t, onStream, results)

	// Every stream receives all of its sender's transfer events: wait for the last, then
	// compare exactly.
	stacktest.WaitUntil(time.Minute, 200*time.Millisecond, func() bool {
		for _, w := range watchers {
			if w.count() < len(onStream[w.userID]) {
				return false
			}
		}
		return true
	})
	stopStreams()
	streamsDone.Wait()
	phase("streams compared")
	delivered, reconnects := 0, 0
	for _, w := range watchers {
		delivered += len(w.deliveries)
		reconnects += w.reconnects
		checkDelivered(t, w, onStream[w.userID])
	}

	creates := st.RPCCounts(t, "/thumela.transfers.v1.TransfersService/CreateTransfer")
	if creates["transfers-1"] == 0 || creates["transfers-2"] == 0 {
		t.Errorf("CreateTransfer calls per transfers instance %v: the BFFs did not spread them over both", creates)
	}
	maxAttempts := 0
	var slowest time.Duration
	for _, r := range results {
		maxAttempts = max(maxAttempts, r.attempts)
		slowest = max(slowest, r.took)
	}
	phase("summary: %d transfers, %d status/voucher events on the stream, %d delivered to %d streams (%d reconnects); "+
		"CreateTransfer per instance %v; %d create retries (at most %d attempts for one; slowest create %s); %d processing when transfers-1 died",
		len(results), countAll(onStream), delivered, len(watchers), reconnects, creates, retries.Load(), maxAttempts,
		slowest.Round(time.Millisecond), processingAtKill.Load())
}

// retryable reports whether a create failed because something died under it, so that it must
// be sent again with the same idempotency key: Unavailable (the BFF lost its transfers
// instance, or the BFF cannot be reached), or Canceled while the test's own context is live.
// connect-go reports a connection reset by the server (the BFF killed mid-request) as
// Canceled, classing ECONNRESET as the peer going away.
func retryable(ctx context.Context, err error) bool {
	switch connect.CodeOf(err) {
	case connect.CodeUnavailable:
		return true
	case connect.CodeCanceled:
		return ctx.Err() == nil
	}
	return false
}

// ---- The stack ----------------------------------------------------------------------------

// startStack runs the stack with two BFFs and two transfers instances (stacktest.Start: a
// throw-away database and an embedded NATS, stopped when the test ends, its log kept and named
// when the test fails) and checks that every process it must kill or use is there.
func startStack(t *testing.T) *stacktest.Stack {
	t.Helper()
	st := stacktest.Start(t, stacktest.Options{
		Name:         "scaleout",
		Replicas:     map[string]int{"transfers": 2, "bff": 2},
		TolerateExit: true, // the test kills instances on purpose
		KeepLogEnv:   "SCALEOUT_KEEP_LOG",
		ExtraEnv: []string{
			"TRANSFERS_PROCESSING_LEASE=" + lease,
			// The fallback pass that finds a lease run out: its takeover waits at most this.
			"TRANSFERS_WORKER_SWEEP=1s",
			// Charges take a while, so that a kill finds some in flight.
			"PAYMENTMETHODS_SANDBOX_DELAY=300ms",
			// A charge whose caller died just after paymentmethods recorded it as pending stays
			// leased for this + 5 s before the taking-over worker may finish it (30 s by
			// default); the sandbox answers in 300 ms.
			"PAYMENTMETHODS_PROCESSOR_TIMEOUT=5s",
			// The senders' creates are a load from one address, not a person: the rate limits
			// on CreateTransfer (docs/security-ratelimits.md) would refuse most of it.
			"BFF_RATE_LIMITS=transfer.address=0/1m+0,transfer.account=0/1m+0",
		},
	})
	if len(st.BaseURLs) != 2 {
		t.Fatalf("want two BFFs, got %v", st.BaseURLs)
	}
	for _, name := range []string{"transfers-1", "transfers-2", "bff-1", "bff-2", "identity", "profiles", "paymentmethods", "fees"} {
		if st.PIDs[name] == 0 {
			t.Fatalf("no process %s in %v", name, st.PIDs)
		}
	}
	return st
}

// ---- The senders' live streams -------------------------------------------------------------

// delivery is one transfer event as a stream delivered it.
type delivery struct {
	cursor     uint64
	transferID string
	status     bffv1.TransferStatus
	bff        int // which BFF's stream carried it
}

// watcher keeps one sender's live stream open, as the web client does: when the stream
// breaks it reconnects with the last cursor it saw (resume_after), to the same BFF, or to the
// other when that one is gone.
type watcher struct {
	user   int
	userID string
	bff    int
	live   chan struct{} // closed at the stream's first message

	mu         sync.Mutex
	cursor     string
	deliveries []delivery
	reconnects int
	errors     []string
}

func (w *watcher) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.deliveries)
}

func (w *watcher) run(ctx context.Context, via *[2][]*bench.User, dead *[2]atomic.Bool) {
	first := true
	for attempt := 0; ctx.Err() == nil; attempt++ {
		if dead[w.bff].Load() {
			w.bff = 1 - w.bff
		}
		w.mu.Lock()
		req := &bffv1.WatchEventsRequest{ResumeAfter: w.cursor}
		if attempt > 0 {
			w.reconnects++
		}
		w.mu.Unlock()
		stream, err := via[w.bff][w.user].Events.WatchEvents(ctx, req)
		if err != nil {
			w.noteError(ctx, err)
			w.bff = 1 - w.bff // that BFF is unreachable: the other one
			sleep(ctx, 100*time.Millisecond)
			continue
		}
		for stream.Receive() {
			msg := stream.Msg()
			w.mu.Lock()
			w.cursor = msg.GetCursor()
			if t := msg.GetTransferUpdated().GetTransfer(); t != nil {
				cursor, _ := strconv.ParseUint(msg.GetCursor(), 10, 64)
				w.deliveries = append(w.deliveries, delivery{
					cursor: cursor, transferID: t.GetId(), status: t.GetStatus(), bff: w.bff,
				})
			}
			w.mu.Unlock()
			if first {
				first = false
				close(w.live)
			}
		}
		w.noteError(ctx, stream.Err())
		stream.Close()
		sleep(ctx, 100*time.Millisecond)
	}
}

func (w *watcher) noteError(ctx context.Context, err error) {
	if err == nil || ctx.Err() != nil {
		return
	}
	w.mu.Lock()
	w.errors = append(w.errors, fmt.Sprintf("bff-%d: %v", w.bff+1, err))
	w.mu.Unlock()
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// ---- What the stream holds ---------------------------------------------------------------

// streamEvent is one transfer event on THUMELA_EVENTS.
type streamEvent struct {
	seq        uint64
	kind       string // "status" or "voucher"
	transferID string
	status     transfersv1.TransferStatus // the transfer's status the event carries
}

// readEventsStream reads every transfer event of the senders from THUMELA_EVENTS, by sender,
// in stream order.
func readEventsStream(ctx context.Context, st stack.Ready, userIDs []string) (map[string][]streamEvent, error) {
	nc, err := stack.ConnectNATS(st.NatsURL, st.NatsObserverSeedFile, "scaleout-test")
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	filters := make([]string, len(userIDs))
	for i, id := range userIDs {
		filters[i] = "thumela.transfers." + id + ".>"
	}
	cons, err := js.OrderedConsumer(ctx, "THUMELA_EVENTS", jetstream.OrderedConsumerConfig{
		FilterSubjects: filters, DeliverPolicy: jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return nil, err
	}
	info, err := cons.Info(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string][]streamEvent{}
	remaining := info.NumPending
	for remaining > 0 {
		batch, err := cons.Fetch(256, jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			return nil, err
		}
		got := 0
		for m := range batch.Messages() {
			got++
			md, err := m.Metadata()
			if err != nil {
				return nil, err
			}
			remaining = md.NumPending
			parts := strings.Split(m.Subject(), ".")
			if len(parts) != 4 {
				return nil, fmt.Errorf("unexpected subject %s", m.Subject())
			}
			ev := streamEvent{seq: md.Sequence.Stream, kind: parts[3]}
			switch parts[3] {
			case "status":
				var p transfersv1.TransferStatusChanged
				if err := proto.Unmarshal(m.Data(), &p); err != nil {
					return nil, err
				}
				ev.transferID, ev.status = p.GetTransfer().GetId(), p.GetTransfer().GetStatus()
				out[parts[2]] = append(out[parts[2]], ev)
			case "voucher":
				var p transfersv1.VoucherChanged
				if err := proto.Unmarshal(m.Data(), &p); err != nil {
					return nil, err
				}
				ev.transferID, ev.status = p.GetTransferId(), transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED
				out[parts[2]] = append(out[parts[2]], ev)
			}
			// Other transfer events, if any appear, are none the live stream carries.
			if remaining == 0 {
				break // the last one: do not wait out the fetch for a full batch
			}
		}
		if remaining == 0 {
			break
		}
		if err := batch.Error(); err != nil {
			return nil, err
		}
		if got == 0 {
			return nil, fmt.Errorf("reading THUMELA_EVENTS: no message within 5 s, %d still pending", remaining)
		}
	}
	return out, nil
}

func countAll(m map[string][]streamEvent) int {
	n := 0
	for _, evs := range m {
		n += len(evs)
	}
	return n
}

// ---- The checks ------------------------------------------------------------------------------

// created is one transfer the test created.
type created struct {
	key, id  string
	user     int
	attempts int           // CreateTransfer calls it took
	took     time.Duration // from the first call to the answer
}

// checkTransfersAndCharges: exactly the transfers created, every one completed; exactly one
// approved charge per transfer, for its total, and no refund.
func checkTransfersAndCharges(t *testing.T, ctx context.Context, pool *pgxpool.Pool, userIDs []string, results []created) {
	t.Helper()
	want := map[string]created{} // by transfer id
	for _, r := range results {
		if _, dup := want[r.id]; dup {
			t.Errorf("two creates answered the same transfer %s", r.id)
		}
		want[r.id] = r
	}

	rows, err := pool.Query(ctx, `SELECT id::text, idempotency_key, status, total_cents
		FROM transfers.transfers WHERE user_id = ANY($1::uuid[])`, userIDs)
	if err != nil {
		t.Fatal(err)
	}
	totals := map[string]int64{}
	statuses := map[string]int{}
	for rows.Next() {
		var id, key, status string
		var total int64
		if err := rows.Scan(&id, &key, &status, &total); err != nil {
			t.Fatal(err)
		}
		totals[id] = total
		statuses[status]++
		if r, ok := want[id]; !ok {
			t.Errorf("transfer %s (key %s) was not created by the test", id, key)
		} else if r.key != key {
			t.Errorf("transfer %s has key %s, the test created it with %s", id, key, r.key)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(totals) != transfers || statuses["completed"] != transfers {
		t.Errorf("%d transfers in the database (%v), want exactly %d, all completed", len(totals), statuses, transfers)
	}

	// The charge's idempotency key is the transfer id (the worker charges again with it after
	// a takeover): one row per key, whatever happened.
	rows, err = pool.Query(ctx, `SELECT idempotency_key, status, amount_cents
		FROM paymentmethods.charges WHERE user_id = ANY($1::uuid[])`, userIDs)
	if err != nil {
		t.Fatal(err)
	}
	charges := map[string]int{}
	for rows.Next() {
		var key, status string
		var amount int64
		if err := rows.Scan(&key, &status, &amount); err != nil {
			t.Fatal(err)
		}
		charges[key]++
		if status != "approved" {
			t.Errorf("charge %s is %s, want approved", key, status)
		}
		if total, ok := totals[key]; !ok {
			t.Errorf("charge %s is for no transfer of the test", key)
		} else if amount != total {
			t.Errorf("charge %s is for %d cents, its transfer's total is %d", key, amount, total)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(charges) != transfers {
		t.Errorf("%d charged transfers, want %d", len(charges), transfers)
	}
	for key, n := range charges {
		if n != 1 {
			t.Errorf("transfer %s charged %d times", key, n)
		}
	}
	var refunds int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM paymentmethods.refunds r
		JOIN paymentmethods.charges c ON c.id = r.charge_id WHERE c.user_id = ANY($1::uuid[])`, userIDs).Scan(&refunds); err != nil {
		t.Fatal(err)
	}
	if refunds != 0 {
		t.Errorf("%d refunds, want none", refunds)
	}
}

// reporter is what the checks report to: the test, or a recorder in the checks' own test.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

// checkStreamHasEachStepOnce: THUMELA_EVENTS holds, for every transfer, pending, processing
// and completed once each and in that order, then one voucher event: the relays of both
// instances (one killed mid-run) published each outbox row once.
func checkStreamHasEachStepOnce(t reporter, onStream map[string][]streamEvent, results []created) {
	t.Helper()
	byTransfer := map[string][]string{}
	for _, evs := range onStream {
		for _, ev := range evs {
			step := ev.kind
			if ev.kind == "status" {
				step = strings.TrimPrefix(ev.status.String(), "TRANSFER_STATUS_")
			}
			byTransfer[ev.transferID] = append(byTransfer[ev.transferID], step)
		}
	}
	want := []string{"PENDING", "PROCESSING", "COMPLETED", "voucher"}
	bad := 0
	for _, r := range results {
		if got := byTransfer[r.id]; !slices.Equal(got, want) {
			if bad++; bad <= 10 {
				t.Errorf("transfer %s on THUMELA_EVENTS: %v, want %v", r.id, got, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d transfers have not exactly %v on the stream", bad, len(results), want)
	}
	if len(byTransfer) != len(results) {
		t.Errorf("THUMELA_EVENTS has events of %d transfers of these senders, want %d", len(byTransfer), len(results))
	}
}

// checkDelivered: the sender's stream delivered exactly the sender's transfer events on
// THUMELA_EVENTS, each once, in stream order, across reconnects and BFFs, each with the
// transfer and status of the event at its cursor.
func checkDelivered(t reporter, w *watcher, want []streamEvent) {
	t.Helper()
	bySeq := map[uint64]streamEvent{}
	wantSeqs := make([]uint64, len(want))
	for i, ev := range want {
		bySeq[ev.seq] = ev
		wantSeqs[i] = ev.seq
	}
	gotSeqs := make([]uint64, len(w.deliveries))
	seen := map[uint64]int{}
	perBFF := [2]int{}
	for i, d := range w.deliveries {
		gotSeqs[i] = d.cursor
		seen[d.cursor]++
		perBFF[d.bff]++
		ev, ok := bySeq[d.cursor]
		switch {
		case !ok:
			// Another sender's event, or none at all: the stream's scoping failed.
			t.Errorf("sender %d's stream delivered cursor %d, which is none of its transfer events", w.user, d.cursor)
		case ev.transferID != d.transferID || transfersv1.TransferStatus(d.status) != ev.status:
			t.Errorf("sender %d's stream delivered %s %s at cursor %d, where the stream has %s %s",
				w.user, d.transferID, d.status, d.cursor, ev.transferID, ev.status)
		}
	}
	if slices.Equal(gotSeqs, wantSeqs) {
		return
	}
	var missing, twice []uint64
	for _, s := range wantSeqs {
		if seen[s] == 0 {
			missing = append(missing, s)
		}
	}
	for s, n := range seen {
		if n > 1 {
			twice = append(twice, s)
		}
	}
	slices.Sort(twice)
	w.mu.Lock()
	errs := w.errors
	w.mu.Unlock()
	t.Errorf("sender %d (stream started on bff-%d, %d reconnects, delivered %d on bff-1 and %d on bff-2): "+
		"%d events delivered, %d on the stream; missing %s; more than once %s; in order %v; stream errors %v",
		w.user, w.user%2+1, w.reconnects, perBFF[0], perBFF[1], len(gotSeqs), len(wantSeqs),
		describe(missing, bySeq), describe(twice, bySeq), slices.IsSorted(gotSeqs), errs)
}

func describe(seqs []uint64, bySeq map[uint64]streamEvent) string {
	if len(seqs) == 0 {
		return "none"
	}
	parts := []string{}
	for i, s := range seqs {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("… (%d in all)", len(seqs)))
			break
		}
		ev := bySeq[s]
		parts = append(parts, fmt.Sprintf("%d=%s/%s", s, ev.kind, strings.TrimPrefix(ev.status.String(), "TRANSFER_STATUS_")))
	}
	return strings.Join(parts, ", ")
}
