package outage_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/grpc"

	"github.com/thumela/thumela/deploy/devstack/internal/stack"
	"github.com/thumela/thumela/deploy/devstack/internal/stacktest"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"
)

// waitAllFinal waits until every transfer of the senders is completed or failed.
func waitAllFinal(t *testing.T, ctx context.Context, pool *pgxpool.Pool, userIDs []string) {
	t.Helper()
	final, total := 0, -1
	var lastErr error
	if !stacktest.WaitUntil(finalWithin, 250*time.Millisecond, func() bool {
		lastErr = pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status IN ('completed', 'failed')), count(*)
			FROM transfers.transfers WHERE user_id = ANY($1::uuid[])`, userIDs).Scan(&final, &total)
		return lastErr == nil && final == total
	}) {
		t.Fatalf("%d of %d transfers in a final status after %s (%v)", final, total, finalWithin, lastErr)
	}
}

// waitOutboxesDrained waits until every service's outbox has published every row: an event
// written while NATS was down, or by a process killed before its relay ran, is not lost.
func waitOutboxesDrained(t *testing.T, ctx context.Context, pool *pgxpool.Pool) {
	t.Helper()
	var schemas []string
	rows, err := pool.Query(ctx, `SELECT table_schema FROM information_schema.columns
		WHERE table_name = 'outbox' AND column_name = 'published_at' ORDER BY 1`)
	if err == nil {
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			schemas = append(schemas, s)
		}
		err = rows.Err()
	}
	if err != nil || len(schemas) == 0 {
		t.Fatalf("the services' outboxes: %v %v", schemas, err)
	}
	pending := map[string]int{}
	if !stacktest.WaitUntil(time.Minute, 200*time.Millisecond, func() bool {
		clear(pending)
		for _, s := range schemas {
			var n int
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM `+s+`.outbox WHERE published_at IS NULL`).Scan(&n); err != nil || n > 0 {
				pending[s] = n
			}
		}
		return len(pending) == 0
	}) {
		t.Fatalf("rows still unpublished a minute after the traffic ended, by outbox: %v", pending)
	}
}

// waitRefundsDone waits until no refund of a cancelled voucher is still under way: the
// reconciliation checks a transfer only once its refund has ended.
func waitRefundsDone(t *testing.T, ctx context.Context, pool *pgxpool.Pool) {
	t.Helper()
	pending := -1
	var lastErr error
	if !stacktest.WaitUntil(finalWithin, 250*time.Millisecond, func() bool {
		lastErr = pool.QueryRow(ctx, `SELECT count(*) FROM transfers.transfers WHERE refund_status = 'pending'`).Scan(&pending)
		return lastErr == nil && pending == 0
	}) {
		t.Fatalf("%d refunds still pending after %s (%v)", pending, finalWithin, lastErr)
	}
}

// checkTransfers: the database holds exactly the transfers the test's creates were answered
// for (a retried create made no second one), each completed or failed; a completed one's
// voucher is collected, cancelled, expired or still awaiting collection, and in the state its
// last answer said; a failed one has no voucher.
func checkTransfers(t *testing.T, ctx context.Context, pool *pgxpool.Pool, userIDs []string, recs []*record) {
	t.Helper()
	byKey := map[string]*record{}
	for _, r := range recs {
		byKey[r.key] = r
	}
	rows, err := pool.Query(ctx, `SELECT id::text, idempotency_key, status, coalesce(collection_status, '')
		FROM transfers.transfers WHERE user_id = ANY($1::uuid[])`, userIDs)
	if err != nil {
		t.Fatal(err)
	}
	inDB := map[string]bool{}
	vouchers := map[string]int{}
	for rows.Next() {
		var id, key, status, collection string
		if err := rows.Scan(&id, &key, &status, &collection); err != nil {
			t.Fatal(err)
		}
		inDB[id] = true
		vouchers[status+"/"+collection]++
		r := byKey[key]
		if r == nil {
			t.Errorf("transfer %s has key %s, which the test never sent", id, key)
			continue
		}
		r.mu.Lock()
		rid, collected, unsure, cancelled, action, rerr := r.id, r.collected, r.unsure, r.cancelled, r.action, r.err
		r.mu.Unlock()
		if rid != "" && rid != id {
			t.Errorf("send %s was answered transfer %s, the database has %s for its key", key, rid, id)
		}
		switch {
		case status == "failed" && collection != "":
			t.Errorf("transfer %s failed but has a voucher (%s)", id, collection)
		case status == "failed":
		case status != "completed":
			t.Errorf("transfer %s is %s, want completed or failed", id, status)
		case collection != "awaiting_collection" && collection != "collected" && collection != "cancelled" && collection != "expired":
			t.Errorf("transfer %s completed with its voucher %q, want collected, cancelled, expired or awaiting collection", id, collection)
		case collected && collection != "collected":
			t.Errorf("transfer %s: the ATM paid out, the voucher is %s", id, collection)
		case cancelled && collection != "cancelled":
			t.Errorf("transfer %s: CancelTransfer answered, the voucher is %s", id, collection)
		case action == actionKeep && collection != "awaiting_collection":
			t.Errorf("transfer %s was left alone, its voucher is %s", id, collection)
		case unsure && collection != "collected" && collection != "awaiting_collection":
			t.Errorf("transfer %s: the ATM lost an approval's answer, the voucher is %s", id, collection)
		case rerr == nil && !unsure && action == actionCollect && collection != "collected":
			t.Errorf("transfer %s was withdrawn without error, its voucher is %s", id, collection)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		r.mu.Lock()
		if r.id != "" && !inDB[r.id] {
			t.Errorf("send %s was accepted as transfer %s, which is not in the database", r.key, r.id)
		}
		r.mu.Unlock()
	}
	t.Logf("transfers by status/voucher: %v", vouchers)
}

// checkSMS: the SMS provider's stand-in accepted exactly one voucher SMS per completed transfer,
// the one with its voucher number, and exactly one cancellation SMS per cancelled voucher (by
// its reference), and nothing else; notifications recorded each as sent once.
func checkSMS(t *testing.T, ctx context.Context, pool *pgxpool.Pool, st *stacktest.Stack, userIDs []string) {
	t.Helper()
	cancelledRefs := map[string]int{}
	refs, err := pool.Query(ctx, `SELECT left(id::text, 8) FROM transfers.transfers
		WHERE user_id = ANY($1::uuid[]) AND collection_status = 'cancelled'`, userIDs)
	if err != nil {
		t.Fatal(err)
	}
	for refs.Next() {
		var ref string
		if err := refs.Scan(&ref); err != nil {
			t.Fatal(err)
		}
		cancelledRefs[ref] = 0
	}
	if err := refs.Err(); err != nil {
		t.Fatal(err)
	}
	var numbers []string
	rows, err := pool.Query(ctx, `SELECT voucher_number FROM transfers.transfers
		WHERE user_id = ANY($1::uuid[]) AND status = 'completed'`, userIDs)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		numbers = append(numbers, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	watch := &smsWatch{url: st.DevToolsURL + "/dev/outbox?format=json", pins: map[string]string{}}
	var sms []stacktest.OutboxMessage
	var unsent int
	// The last SMS may still be on its way: wait until there are as many as vouchers and
	// notifications has nothing left to send, then compare exactly.
	stacktest.WaitUntil(time.Minute, 250*time.Millisecond, func() bool {
		sms, err = watch.all(ctx)
		if err != nil {
			return false
		}
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM notifications.deliveries
			WHERE channel = 'sms' AND status NOT IN ('sent', 'delivered')`).Scan(&unsent); err != nil {
			return false
		}
		return len(sms) >= len(numbers)+len(cancelledRefs) && unsent == 0
	})
	if err != nil {
		t.Fatalf("the dev outbox: %v", err)
	}
	perVoucher := map[string]int{}
	vouchers := 0
	for _, m := range sms {
		if c := cancelledInSMS.FindStringSubmatch(m.Body); c != nil {
			if n, ok := cancelledRefs[c[1]]; !ok || n != 0 {
				t.Errorf("a cancellation SMS for %s, which is no cancelled voucher's or was told already: %q", c[1], m.Body)
			}
			cancelledRefs[c[1]]++
			continue
		}
		v := voucherInSMS.FindStringSubmatch(m.Body)
		if v == nil {
			t.Errorf("an SMS to %s that is not a voucher SMS: %q", m.Recipient, m.Body)
			continue
		}
		perVoucher[strings.ReplaceAll(v[1], " ", "")]++
		vouchers++
	}
	for ref, n := range cancelledRefs {
		if n != 1 {
			t.Errorf("cancelled voucher %s: %d cancellation SMS, want exactly 1", ref, n)
		}
	}
	bad := 0
	for _, n := range numbers {
		if perVoucher[n] != 1 {
			if bad++; bad <= 10 {
				t.Errorf("voucher %s: %d SMS, want exactly 1", n, perVoucher[n])
			}
		}
		delete(perVoucher, n)
	}
	for n, c := range perVoucher {
		t.Errorf("%d SMS for voucher %s, which is no completed transfer's", c, n)
	}
	if vouchers != len(numbers) || bad > 0 {
		t.Errorf("%d voucher SMS accepted by the provider for %d completed transfers (%d vouchers without exactly one)", vouchers, len(numbers), bad)
	}
	var rowsSMS, attempts int
	if err := pool.QueryRow(ctx, `SELECT count(*), coalesce(sum(attempts), 0) FROM notifications.deliveries WHERE channel = 'sms'`).Scan(&rowsSMS, &attempts); err != nil {
		t.Fatal(err)
	}
	if rowsSMS != len(numbers)+len(cancelledRefs) || unsent != 0 {
		t.Errorf("notifications has %d SMS deliveries (%d not sent) for %d completed transfers and %d cancelled vouchers",
			rowsSMS, unsent, len(numbers), len(cancelledRefs))
	}
	t.Logf("SMS: %d accepted by the provider, %d deliveries in notifications over %d attempts", len(sms), rowsSMS, attempts)
}

// checkReconciliation asks transfers to reconcile the whole history, as on-call does (`make
// reconcile -full`, service "oncall"), until it finds no mismatch: refunds of the last
// cancels may still be under way for a moment. It returns the runs it took.
func checkReconciliation(t *testing.T, ctx context.Context, pool *pgxpool.Pool, ready stack.Ready) int {
	t.Helper()
	var total int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM transfers.transfers`).Scan(&total); err != nil {
		t.Fatal(err)
	}
	addrs, err := stack.LoadDevAddrs(ready.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	secrets, err := stack.LoadDevSecretsFile(ready.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	identity, err := grpcserver.Dial(addrs["identity"][0])
	if err != nil {
		t.Fatal(err)
	}
	defer identity.Close()
	tokens := auth.IdentityServiceTokens(identity, "oncall", secrets["ONCALL_SERVICE_SECRET"])
	conn, err := grpcserver.Dial(addrs["transfers"][0], grpc.WithPerRPCCredentials(auth.PerRPCCredentials(tokens)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := transfersv1.NewTransfersServiceClient(conn)
	var last *transfersv1.ReconciliationRun
	var lastErr error
	runs := 0
	stacktest.WaitUntil(30*time.Second, time.Second, func() bool {
		runs++
		rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		resp, err := client.Reconcile(rctx, &transfersv1.ReconcileRequest{Full: true})
		if lastErr = err; err != nil {
			return false
		}
		last = resp.GetRun()
		return len(last.GetMismatches()) == 0 && last.GetTransfersChecked() == total
	})
	if lastErr != nil {
		t.Fatalf("Reconcile: %v", lastErr)
	}
	for _, m := range last.GetMismatches() {
		t.Errorf("reconciliation: %s %v %s", m.GetKind(), m.GetTransferIds(), m.GetDetail())
	}
	if last.GetTransfersChecked() != total {
		t.Errorf("reconciliation checked %d transfers of the %d in the database (it leaves out refunds under way)", last.GetTransfersChecked(), total)
	}
	t.Logf("reconciliation %s: %d transfers checked, %d mismatches", last.GetId(), last.GetTransfersChecked(), len(last.GetMismatches()))
	return runs
}
