package grpcport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/transfers/internal/adapters/postgres"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	grpcport "github.com/thumela/thumela/services/transfers/internal/ports/grpc"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// history is one of each way a transfer ends, made by the real worker over the fake
// paymentmethods: a voucher awaiting collection, one collected, one cancelled and refunded,
// and a failed (declined) transfer. The worker is stopped afterwards, so what a test plants
// stays planted.
type history struct {
	awaiting, collected, cancelled, failed string
}

func makeHistory(t *testing.T, e *testkit.Env) history {
	t.Helper()
	_, stop := e.StartWorker(t, nil, e.WorkerConfig())
	defer stop()
	send := func(token string) (user, id string) {
		user, pm := e.NewUser(token)
		return user, create(t, e.Ctx(t, user), e, testkit.Request("k-"+uuid.NewString(), pm)).GetId()
	}
	var h history
	_, h.awaiting = send(testkit.TokenApprove)
	_, h.collected = send(testkit.TokenApprove)
	canceller, cancelled := send(testkit.TokenApprove)
	h.cancelled = cancelled
	_, h.failed = send(testkit.TokenDecline)
	for _, id := range []string{h.awaiting, h.collected, h.cancelled} {
		waitState(t, e, id, "completed/awaiting_collection/")
	}
	waitState(t, e, h.failed, "failed//")
	// Collected at an ATM, as CollectVoucher records it (the PIN is the worker's secret).
	now := e.Clock.Now()
	if _, err := e.Pool.Exec(t.Context(), `UPDATE transfers SET collection_status = 'collected', collected_at = $2,
		collected_atm_id = 'CPT-ATM-0042', updated_at = $2 WHERE id = $1`, h.collected, now); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Client.CancelTransfer(e.Ctx(t, canceller), &transfersv1.CancelTransferRequest{TransferId: h.cancelled}); err != nil {
		t.Fatal(err)
	}
	waitState(t, e, h.cancelled, "completed/cancelled/refunded")
	return h
}

// waitState waits until the transfer's status/collection_status/refund_status is want.
func waitState(t *testing.T, e *testkit.Env, id, want string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var got string
		if err := e.Pool.QueryRow(t.Context(), `SELECT status || '/' || coalesce(collection_status, '') || '/' || coalesce(refund_status, '')
			FROM transfers WHERE id = $1`, id).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("transfer %s is %s, want %s", id, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func reconcile(t *testing.T, e *testkit.Env, full bool) *transfersv1.ReconciliationRun {
	t.Helper()
	res, err := e.Client.Reconcile(e.ServiceCtx(t, grpcport.OnCallService), &transfersv1.ReconcileRequest{Full: full})
	if err != nil {
		t.Fatal(err)
	}
	return res.GetRun()
}

func kinds(run *transfersv1.ReconciliationRun) []string {
	var out []string
	for _, m := range run.GetMismatches() {
		out = append(out, m.GetKind()+" "+m.GetDetail())
	}
	return out
}

// reported reports whether run has a mismatch of kind naming transferID.
func reported(run *transfersv1.ReconciliationRun, kind, transferID string) bool {
	for _, m := range run.GetMismatches() {
		if m.GetKind() == kind && slices.Contains(m.GetTransferIds(), transferID) {
			return true
		}
	}
	return false
}

// A history in which every transfer ended as it should reconciles, in a full pass and in the
// window after it.
func TestReconcileCleanHistory(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	makeHistory(t, e)

	first := reconcile(t, e, false) // no clean run yet: the whole history
	if len(first.GetMismatches()) != 0 || first.GetTransfersChecked() != 4 || first.GetWindowFrom() != nil || first.GetFull() {
		t.Fatalf("first run = %v (%v)", first, kinds(first))
	}
	full := reconcile(t, e, true)
	if len(full.GetMismatches()) != 0 || full.GetTransfersChecked() != 4 || !full.GetFull() {
		t.Fatalf("full pass = %v (%v)", full, kinds(full))
	}
	window := reconcile(t, e, false)
	if len(window.GetMismatches()) != 0 || window.GetWindowFrom() == nil || window.GetId() == "" || window.GetFinishedAt() == nil {
		t.Fatalf("window run = %v", window)
	}
	var runs, clean int
	if err := e.Pool.QueryRow(t.Context(), `SELECT count(*), count(*) FILTER (WHERE clean) FROM reconciliation_runs`).Scan(&runs, &clean); err != nil || runs != 3 || clean != 3 {
		t.Fatalf("runs recorded: %d, clean %d, %v", runs, clean, err)
	}
}

// Each kind of mismatch, planted directly in the database (or in the processor's records),
// is reported with its kind and the transfer's id.
func TestReconcileFindsPlantedMismatches(t *testing.T) {
	t.Parallel()
	exec := func(t *testing.T, e *testkit.Env, sql string, args ...any) {
		t.Helper()
		if _, err := e.Pool.Exec(t.Context(), sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, kind string
		plant      func(t *testing.T, e *testkit.Env, h history) (transferID string)
	}{
		{"a completed transfer without its charge", app.MismatchCompletedWithoutCharge, func(t *testing.T, e *testkit.Env, h history) string {
			exec(t, e, `UPDATE transfers SET charge_id = '' WHERE id = $1`, h.awaiting)
			return h.awaiting
		}},
		{"a wrong charge amount", app.MismatchChargeAmount, func(t *testing.T, e *testkit.Env, h history) string {
			exec(t, e, `UPDATE transfers SET amount_cents = amount_cents + 100, total_cents = total_cents + 100 WHERE id = $1`, h.awaiting)
			return h.awaiting
		}},
		{"a failed transfer with a charge", app.MismatchFailedWithCharge, func(t *testing.T, e *testkit.Env, h history) string {
			exec(t, e, `UPDATE transfers SET charge_id = 'ch_planted' WHERE id = $1`, h.failed)
			return h.failed
		}},
		{"a cancelled voucher without its refund", app.MismatchRefundMissing, func(t *testing.T, e *testkit.Env, h history) string {
			exec(t, e, `UPDATE transfers SET refund_status = 'pending', refund_id = '', updated_at = updated_at - interval '2 hours' WHERE id = $1`, h.cancelled)
			return h.cancelled
		}},
		{"a collected voucher refunded", app.MismatchCollectedAndRefunded, func(t *testing.T, e *testkit.Env, h history) string {
			exec(t, e, `UPDATE transfers SET refund_status = 'refunded', refund_id = 're_planted' WHERE id = $1`, h.collected)
			return h.collected
		}},
		{"an unbalanced credit movement", app.MismatchCreditLedgerUnbalanced, func(t *testing.T, e *testkit.Env, h history) string {
			// One entry alone, past the triggers that refuse it (as a faulty migration or a
			// hand-written fix could).
			tx, err := e.Pool.Begin(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tx.Rollback(context.Background()) }()
			for _, q := range []string{
				`SET LOCAL session_replication_role = replica`,
				`INSERT INTO credit_entries (movement_id, account, amount_cents, kind, transfer_id, created_at)
				 VALUES ('` + uuid.NewString() + `', 'system:credit_spent', 100, 'returned', '` + h.awaiting + `', now())`,
			} {
				if _, err := tx.Exec(t.Context(), q); err != nil {
					t.Fatal(err)
				}
			}
			if err := tx.Commit(t.Context()); err != nil {
				t.Fatal(err)
			}
			return h.awaiting
		}},
		{"the processor disagreeing", app.MismatchProcessorDisagrees, func(_ *testing.T, e *testkit.Env, h history) string {
			e.Payments.PutProcessorRecord(app.ProcessorRecord{IdempotencyKey: h.awaiting, Approved: false, Amount: domain.Cents(52_500)})
			return h.awaiting
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := testkit.New(t, testkit.Options{})
			h := makeHistory(t, e)
			if run := reconcile(t, e, false); len(run.GetMismatches()) != 0 {
				t.Fatalf("before planting: %v", kinds(run))
			}
			id := tt.plant(t, e, h)
			// The credit movement is written now; the others are old history: a full pass.
			run := reconcile(t, e, true)
			if !reported(run, tt.kind, id) {
				t.Fatalf("%s not reported for %s: %v", tt.kind, id, kinds(run))
			}
			// Reported again by the next run: the window does not move past a mismatch.
			if again := reconcile(t, e, false); tt.kind == app.MismatchCreditLedgerUnbalanced && !reported(again, tt.kind, id) {
				t.Fatalf("window run after the mismatch: %v", kinds(again))
			}
		})
	}
}

// lockedBuffer collects log output.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// A mismatch is a structured log line with its kind and the transfer ids, and nothing of the
// voucher's secrets.
func TestReconcileLogsMismatches(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	h := makeHistory(t, e)
	if _, err := e.Pool.Exec(t.Context(), `UPDATE transfers SET charge_id = '' WHERE id = $1`, h.awaiting); err != nil {
		t.Fatal(err)
	}
	var buf lockedBuffer
	rec, err := app.NewReconciler(postgres.NewReconciliation(e.Pool), e.Payments, app.ReconcileConfig{Now: e.Clock.Now},
		slog.New(slog.NewJSONHandler(&buf, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Reconcile(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	var voucher string
	if err := e.Pool.QueryRow(t.Context(), `SELECT voucher_number FROM transfers WHERE id = $1`, h.awaiting).Scan(&voucher); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, line := range bytes.Split(buf.b.Bytes(), []byte("\n")) {
		if bytes.Contains(line, []byte(voucher)) {
			t.Fatalf("the voucher number is logged: %s", line)
		}
		var l struct {
			Msg         string   `json:"msg"`
			Level       string   `json:"level"`
			Kind        string   `json:"kind"`
			TransferIDs []string `json:"transfer_ids"`
		}
		if json.Unmarshal(line, &l) == nil && l.Msg == "reconciliation found a mismatch" && l.Kind == app.MismatchCompletedWithoutCharge {
			found = l.Level == "ERROR" && slices.Equal(l.TransferIDs, []string{h.awaiting})
		}
	}
	if !found {
		t.Fatalf("no mismatch log line: %s", buf.b.String())
	}
}

// The window run reads the transfers changed since the last clean run, not the old clean
// history: a change planted in old history without touching updated_at is seen by a full
// pass only.
func TestReconcileWindowDoesNotRereadOldHistory(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	h := makeHistory(t, e)
	e.Clock.Advance(time.Hour) // the history is older than the overlap before the first run
	first := reconcile(t, e, false)
	if first.GetTransfersChecked() != 4 || len(first.GetMismatches()) != 0 {
		t.Fatalf("first run = %v", first)
	}
	e.Clock.Advance(time.Hour)
	_, stop := e.StartWorker(t, nil, e.WorkerConfig())
	user, pm := e.NewUser()
	fresh := create(t, e.Ctx(t, user), e, testkit.Request("k-"+uuid.NewString(), pm)).GetId()
	waitState(t, e, fresh, "completed/awaiting_collection/")
	stop()
	if _, err := e.Pool.Exec(t.Context(), `UPDATE transfers SET charge_id = '' WHERE id = $1`, h.awaiting); err != nil {
		t.Fatal(err)
	}

	window := reconcile(t, e, false)
	if window.GetTransfersChecked() != 1 || len(window.GetMismatches()) != 0 {
		t.Fatalf("window run = checked %d, %v; want the new transfer only", window.GetTransfersChecked(), kinds(window))
	}
	if !window.GetWindowFrom().AsTime().Equal(first.GetStartedAt().AsTime().Add(-10 * time.Minute)) {
		t.Fatalf("window from %v, first run started %v", window.GetWindowFrom().AsTime(), first.GetStartedAt().AsTime())
	}
	full := reconcile(t, e, true)
	if full.GetTransfersChecked() != 5 || !reported(full, app.MismatchCompletedWithoutCharge, h.awaiting) {
		t.Fatalf("full pass = checked %d, %v", full.GetTransfersChecked(), kinds(full))
	}

	// The query behind the window can be served by the index (a tiny table is scanned
	// otherwise, so sequential scans are priced out here).
	tx, err := e.Pool.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	if _, err := tx.Exec(t.Context(), `SET LOCAL enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	rows, err := tx.Query(t.Context(), `EXPLAIN (FORMAT TEXT) SELECT id FROM transfers
		WHERE (updated_at, id) > ($1, $2) AND status IN ('completed', 'failed') ORDER BY updated_at, id LIMIT 500`,
		e.Clock.Now(), uuid.Nil)
	if err != nil {
		t.Fatal(err)
	}
	var plan bytes.Buffer
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(line + "\n")
	}
	if !bytes.Contains(plan.Bytes(), []byte("transfers_updated_idx")) {
		t.Fatalf("window plan: %s", plan.String())
	}
}

// Only the on-call service may reconcile; one run at a time.
func TestReconcileOnlyOnCall(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	req := &transfersv1.ReconcileRequest{}
	for _, ctx := range []context.Context{e.ServiceCtx(t, "transfers"), e.ServiceCtx(t, grpcport.ATMGatewayService), e.Ctx(t, uuid.NewString())} {
		if _, err := e.Client.Reconcile(ctx, req); status.Code(err) != codes.PermissionDenied {
			t.Fatalf("Reconcile = %v, want PermissionDenied", err)
		}
	}
	if _, err := e.Client.Reconcile(t.Context(), req); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("without a token: %v", err)
	}

	unlock, locked, err := postgres.NewReconciliation(e.Pool).LockReconciliation(t.Context())
	if err != nil || !locked {
		t.Fatal(locked, err)
	}
	_, err = e.Client.Reconcile(e.ServiceCtx(t, grpcport.OnCallService), req)
	if status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("while another run holds the lock: %v", err)
	}
	unlock()
	reconcile(t, e, false)

	makeHistory(t, e)
	e.Payments.FailProcessorRecords(true)
	_, err = e.Client.Reconcile(e.ServiceCtx(t, grpcport.OnCallService), req)
	if status.Code(err) != codes.Unavailable {
		t.Fatalf("processor records unavailable: %v", err)
	}
}
