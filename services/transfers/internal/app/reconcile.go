package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// Mismatch kinds (ReconciliationRun.mismatches[].kind; docs/operations.md, "reconciliation found
// a mismatch", says what each means and what to do).
const (
	MismatchCompletedWithoutCharge = "completed_without_charge"
	MismatchChargeAmount           = "charge_amount"
	MismatchFailedWithCharge       = "failed_with_charge"
	MismatchRefundMissing          = "refund_missing"
	MismatchRefundAmount           = "refund_amount"
	MismatchCollectedAndRefunded   = "collected_and_refunded"
	MismatchMoneyNotConserved      = "money_not_conserved"
	MismatchCreditLedgerUnbalanced = "credit_ledger_unbalanced"
	MismatchCreditNotAccounted     = "credit_not_accounted" //nolint:gosec // G101: a mismatch kind, not a credential
	MismatchProcessorDisagrees     = "processor_disagrees"
)

// ErrReconciliationRunning: another process (or request) is reconciling now.
var ErrReconciliationRunning = errors.New("a reconciliation is running")

// Mismatch is one failed check.
type Mismatch struct {
	Kind string
	// TransferIDs are the transfers involved; empty for a check over totals.
	TransferIDs []string
	// Detail says what was expected and what was found, in figures.
	Detail string
}

// ReconciliationRun is one pass of the checks.
type ReconciliationRun struct {
	ID   uuid.UUID
	Full bool
	// WindowFrom: the transfers updated at or after it were checked; zero for the whole history.
	WindowFrom       time.Time
	StartedAt        time.Time
	FinishedAt       time.Time
	TransfersChecked int64
	Mismatches       []Mismatch
}

// Clean reports whether the money reconciled.
func (r ReconciliationRun) Clean() bool { return len(r.Mismatches) == 0 }

// ReconcileFacts is what the checks read of one transfer.
type ReconcileFacts struct {
	ID uuid.UUID
	// Status, CollectionStatus ("" before a voucher) and RefundStatus ("", pending, refunded)
	// as stored.
	Status, CollectionStatus, RefundStatus string
	ChargeID, RefundID                     string
	Total, CardCharge, CreditApplied       int64
	// CreditSpent is what the transfer's spend movement took from the sender (positive);
	// CreditReturned what its return movement gave back.
	CreditSpent, CreditReturned int64
	UpdatedAt                   time.Time
}

// LedgerTotals are the credit ledger's sums, read by a full pass.
type LedgerTotals struct {
	// Balances is the sum of every account's balance (zero when the ledger balances).
	Balances int64
	// AccountsOff is how many accounts' balances differ from the sum of their entries.
	AccountsOff int64
	// CreditSpent is system:credit_spent's balance; CreditHeld the credit_applied_cents of the
	// transfers that still count (not failed, voucher not cancelled or expired).
	CreditSpent, CreditHeld int64
}

// UnbalancedMovement is a credit movement that is not two entries summing to zero.
type UnbalancedMovement struct {
	MovementID  uuid.UUID
	Entries     int64
	Sum         int64
	TransferIDs []string
}

// ReconcileStore is what reconciliation reads and writes (adapters/postgres/reconcile.go).
type ReconcileStore interface {
	// LockReconciliation takes the database-wide reconciliation lock without waiting
	// (pg_try_advisory_lock): locked false when another process holds it.
	LockReconciliation(ctx context.Context) (unlock func(), locked bool, err error)
	// LastCleanRun is the start of the latest run that found nothing.
	LastCleanRun(ctx context.Context) (time.Time, bool, error)
	// ReconcileTransfers pages the finished transfers (completed or failed) updated at or after
	// from (zero: all), by (updated_at, id) after the cursor, at most limit.
	ReconcileTransfers(ctx context.Context, from time.Time, afterAt time.Time, afterID uuid.UUID, limit int) ([]ReconcileFacts, error)
	// StuckRefunds are the transfers whose refund has been pending since before before,
	// whenever they changed (the window would not see them again).
	StuckRefunds(ctx context.Context, before time.Time, limit int) ([]ReconcileFacts, error)
	// UnbalancedMovements are the credit movements with an entry written at or after from
	// (zero: all) that are not two entries summing to zero.
	UnbalancedMovements(ctx context.Context, from time.Time, limit int) ([]UnbalancedMovement, error)
	// LedgerTotals sums the whole credit ledger.
	LedgerTotals(ctx context.Context) (LedgerTotals, error)
	// SaveRun records a run.
	SaveRun(ctx context.Context, run ReconciliationRun) error
}

// ProcessorRecord is the card processor's own record of a charge or a refund.
type ProcessorRecord struct {
	IdempotencyKey string
	Refund         bool
	// Approved: a charge the processor approved (a refund on record was made).
	Approved bool
	Amount   domain.Money
}

// ProcessorRecords reads the card processor's records through paymentmethods.
type ProcessorRecords interface {
	// ListProcessorRecords returns the records of the keys (at most MaxProcessorKeys); a key
	// the processor never saw is absent.
	ListProcessorRecords(ctx context.Context, keys []string) ([]ProcessorRecord, error)
}

// MaxProcessorKeys bounds one ListProcessorRecords request (paymentmethods' limit).
const MaxProcessorKeys = 1000

// ReconcileConfig tunes the Reconciler.
type ReconcileConfig struct {
	// Interval between the periodic runs (TRANSFERS_RECONCILE_INTERVAL, default 5m).
	Interval time.Duration
	// Overlap reaches back before the last clean run's start, for transactions that were
	// still open then (default 10m, well past a worker's lease).
	Overlap time.Duration
	// RefundGrace is how long an owed refund may stay pending before it is a mismatch
	// (default 1h: the worker retries a refund with backoff).
	RefundGrace time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// MeterProvider (default the global one).
	MeterProvider metric.MeterProvider
}

// pageSize is how many transfers one step reads: two processor keys each, within
// MaxProcessorKeys.
const pageSize = MaxProcessorKeys / 2

// Reconciler runs the money checks (proto: TransfersService.Reconcile).
type Reconciler struct {
	store     ReconcileStore
	processor ProcessorRecords
	cfg       ReconcileConfig
	logger    *slog.Logger

	mismatches metric.Int64Counter
	runs       metric.Int64Counter
	lastFound  metric.Int64Gauge
}

// NewReconciler returns a Reconciler.
func NewReconciler(store ReconcileStore, processor ProcessorRecords, cfg ReconcileConfig, logger *slog.Logger) (*Reconciler, error) {
	if cfg.Interval <= 0 {
		cfg.Interval = 5 * time.Minute
	}
	if cfg.Overlap <= 0 {
		cfg.Overlap = 10 * time.Minute
	}
	if cfg.RefundGrace <= 0 {
		cfg.RefundGrace = time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MeterProvider == nil {
		cfg.MeterProvider = otel.GetMeterProvider()
	}
	if logger == nil {
		logger = slog.Default()
	}
	meter := cfg.MeterProvider.Meter(instrumentationName)
	r := &Reconciler{store: store, processor: processor, cfg: cfg, logger: logger}
	var err error
	if r.mismatches, err = meter.Int64Counter("thumela.transfers.reconciliation.mismatches",
		metric.WithUnit("{mismatch}"), metric.WithDescription("Mismatches found by reconciliation runs, by kind.")); err != nil {
		return nil, fmt.Errorf("reconciliation metrics: %w", err)
	}
	if r.runs, err = meter.Int64Counter("thumela.transfers.reconciliation.runs",
		metric.WithUnit("{run}"), metric.WithDescription("Reconciliation runs, by outcome (clean, mismatch, error) and full.")); err != nil {
		return nil, fmt.Errorf("reconciliation metrics: %w", err)
	}
	if r.lastFound, err = meter.Int64Gauge("thumela.transfers.reconciliation.last_mismatches",
		metric.WithUnit("{mismatch}"), metric.WithDescription("Mismatches found by this process's latest reconciliation run.")); err != nil {
		return nil, fmt.Errorf("reconciliation metrics: %w", err)
	}
	return r, nil
}

// Run reconciles every Interval until ctx ends. Every replica runs it; the advisory lock lets
// one at a time through, and a replica that finds it taken skips its turn.
func (r *Reconciler) Run(ctx context.Context) error {
	t := time.NewTicker(r.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		_, err := r.Reconcile(ctx, false)
		switch {
		case err == nil, errors.Is(err, ErrReconciliationRunning):
		case ctx.Err() != nil:
			return nil
		default:
			r.logger.ErrorContext(ctx, "reconciliation run failed; retried at the next interval", "error", err)
		}
	}
}

// Reconcile runs the checks now: over the transfers updated since the last clean run, or the
// whole history when full. The run is recorded; each mismatch is logged and counted.
func (r *Reconciler) Reconcile(ctx context.Context, full bool) (ReconciliationRun, error) {
	unlock, locked, err := r.store.LockReconciliation(ctx)
	if err != nil {
		return ReconciliationRun{}, err
	}
	if !locked {
		return ReconciliationRun{}, ErrReconciliationRunning
	}
	defer unlock()

	id, err := uuid.NewV7()
	if err != nil {
		return ReconciliationRun{}, err
	}
	run := ReconciliationRun{ID: id, Full: full, StartedAt: r.cfg.Now()}
	if !full {
		if last, ok, err := r.store.LastCleanRun(ctx); err != nil {
			return ReconciliationRun{}, err
		} else if ok {
			run.WindowFrom = last.Add(-r.cfg.Overlap)
		}
	}
	if err := r.check(ctx, &run); err != nil {
		r.runs.Add(ctx, 1, metric.WithAttributes(attribute.String("outcome", "error"), attribute.Bool("full", full)))
		return ReconciliationRun{}, err
	}
	run.FinishedAt = r.cfg.Now()
	if err := r.store.SaveRun(ctx, run); err != nil {
		return ReconciliationRun{}, err
	}
	outcome := "clean"
	if !run.Clean() {
		outcome = "mismatch"
	}
	r.runs.Add(ctx, 1, metric.WithAttributes(attribute.String("outcome", outcome), attribute.Bool("full", full)))
	r.lastFound.Record(ctx, int64(len(run.Mismatches)))
	for _, m := range run.Mismatches {
		r.mismatches.Add(ctx, 1, metric.WithAttributes(attribute.String("kind", m.Kind)))
		r.logger.ErrorContext(ctx, "reconciliation found a mismatch", "kind", m.Kind, "transfer_ids", m.TransferIDs,
			"detail", m.Detail, "run_id", run.ID.String(), "full", full)
	}
	attrs := []any{"run_id", run.ID.String(), "full", full, "transfers_checked", run.TransfersChecked, "mismatches", len(run.Mismatches)}
	if !run.WindowFrom.IsZero() {
		attrs = append(attrs, "window_from", run.WindowFrom)
	}
	r.logger.InfoContext(ctx, "reconciliation run finished", attrs...)
	return run, nil
}

// totals are the money over the transfers checked.
type totals struct {
	charged, refunded, collectable, collected int64
}

// check runs every check into run.
func (r *Reconciler) check(ctx context.Context, run *ReconciliationRun) error {
	var (
		sum     totals
		afterAt time.Time
		afterID uuid.UUID
		seen    = map[uuid.UUID]bool{}
	)
	for {
		page, err := r.store.ReconcileTransfers(ctx, run.WindowFrom, afterAt, afterID, pageSize)
		if err != nil {
			return fmt.Errorf("read transfers: %w", err)
		}
		if err := r.checkPage(ctx, run, page, &sum); err != nil {
			return err
		}
		for _, f := range page {
			seen[f.ID] = true
		}
		if len(page) < pageSize {
			break
		}
		last := page[len(page)-1]
		afterAt, afterID = last.UpdatedAt, last.ID
	}
	// Refunds pending past the grace, whenever they last changed: the window moves on without
	// them otherwise.
	stuck, err := r.store.StuckRefunds(ctx, run.StartedAt.Add(-r.cfg.RefundGrace), pageSize)
	if err != nil {
		return fmt.Errorf("read stuck refunds: %w", err)
	}
	var unseen []ReconcileFacts
	for _, f := range stuck {
		if !seen[f.ID] {
			unseen = append(unseen, f)
		}
	}
	if err := r.checkPage(ctx, run, unseen, &sum); err != nil {
		return err
	}

	if held := sum.collectable + sum.collected; sum.charged-sum.refunded != held {
		run.Mismatches = append(run.Mismatches, Mismatch{Kind: MismatchMoneyNotConserved, Detail: fmt.Sprintf(
			"charged %s - refunded %s = %s, but the vouchers still collectable (%s) and collected (%s), less the credit they spent, hold %s",
			rands(sum.charged), rands(sum.refunded), rands(sum.charged-sum.refunded), rands(sum.collectable), rands(sum.collected), rands(held))})
	}

	moves, err := r.store.UnbalancedMovements(ctx, run.WindowFrom, 100)
	if err != nil {
		return fmt.Errorf("read credit movements: %w", err)
	}
	for _, m := range moves {
		run.Mismatches = append(run.Mismatches, Mismatch{Kind: MismatchCreditLedgerUnbalanced, TransferIDs: m.TransferIDs, Detail: fmt.Sprintf(
			"credit movement %s has %d entries summing to %s, want 2 summing to R0.00", m.MovementID, m.Entries, rands(m.Sum))})
	}
	if run.Full {
		lt, err := r.store.LedgerTotals(ctx)
		if err != nil {
			return fmt.Errorf("read credit ledger: %w", err)
		}
		if lt.Balances != 0 || lt.AccountsOff != 0 || lt.CreditSpent != lt.CreditHeld {
			run.Mismatches = append(run.Mismatches, Mismatch{Kind: MismatchCreditLedgerUnbalanced, Detail: fmt.Sprintf(
				"the balances sum to %s (want R0.00); %d accounts differ from their entries; system:credit_spent is %s, the transfers that still count spent %s",
				rands(lt.Balances), lt.AccountsOff, rands(lt.CreditSpent), rands(lt.CreditHeld))})
		}
	}
	return nil
}

// checkPage checks a page of transfers against each other's rules and the processor's records.
func (r *Reconciler) checkPage(ctx context.Context, run *ReconciliationRun, page []ReconcileFacts, sum *totals) error {
	if len(page) == 0 {
		return nil
	}
	keys := make([]string, 0, 2*len(page))
	for _, f := range page {
		keys = append(keys, chargeKey(f.ID), refundKey(f.ID))
	}
	recs, err := r.processor.ListProcessorRecords(ctx, keys)
	if err != nil {
		return fmt.Errorf("read the processor's records: %w", err)
	}
	charges, refunds := map[string]ProcessorRecord{}, map[string]ProcessorRecord{}
	for _, rec := range recs {
		if rec.Refund {
			refunds[rec.IdempotencyKey] = rec
		} else {
			charges[rec.IdempotencyKey] = rec
		}
	}
	now := run.StartedAt
	for _, f := range page {
		ch, hasCharge := charges[chargeKey(f.ID)]
		rf, hasRefund := refunds[refundKey(f.ID)]
		inFlight := f.RefundStatus == "pending" && f.UpdatedAt.After(now.Add(-r.cfg.RefundGrace))
		if inFlight {
			continue // the worker is still refunding it: checked once it is done, or stuck
		}
		run.TransfersChecked++
		add := func(kind, format string, args ...any) {
			run.Mismatches = append(run.Mismatches, Mismatch{Kind: kind, TransferIDs: []string{f.ID.String()}, Detail: fmt.Sprintf(format, args...)})
		}
		charged := hasCharge && ch.Approved
		if charged {
			sum.charged += ch.Amount.Cents()
		}
		if hasRefund {
			sum.refunded += rf.Amount.Cents()
		}

		// Credit: the card part and the credit make the total, and the ledger moved it.
		if f.CardCharge+f.CreditApplied != f.Total {
			add(MismatchCreditNotAccounted, "card charge %s + credit %s = %s, total %s",
				rands(f.CardCharge), rands(f.CreditApplied), rands(f.CardCharge+f.CreditApplied), rands(f.Total))
		}
		if f.CreditSpent != f.CreditApplied {
			add(MismatchCreditNotAccounted, "credit applied %s, but the ledger's spend took %s", rands(f.CreditApplied), rands(f.CreditSpent))
		}
		counts := f.Status == "completed" && (f.CollectionStatus == "awaiting_collection" || f.CollectionStatus == "collected")
		if wantReturned := map[bool]int64{true: 0, false: f.CreditApplied}[counts]; f.CreditReturned != wantReturned {
			add(MismatchCreditNotAccounted, "credit returned %s, want %s (%s, voucher %s)",
				rands(f.CreditReturned), rands(wantReturned), f.Status, orNone(f.CollectionStatus))
		}

		switch f.Status {
		case "failed":
			if f.ChargeID != "" || charged {
				add(MismatchFailedWithCharge, "failed, but charged %s (charge id recorded: %t)", rands(ch.Amount.Cents()), f.ChargeID != "")
			}
			if hasRefund {
				add(MismatchProcessorDisagrees, "failed, but the processor refunded %s", rands(rf.Amount.Cents()))
			}
			continue
		case "completed":
		default:
			continue
		}

		// Completed: exactly one approved charge of the card charge.
		switch {
		case f.CardCharge > 0 && f.ChargeID == "":
			add(MismatchCompletedWithoutCharge, "completed with a card charge of %s, but no charge recorded", rands(f.CardCharge))
		case f.CardCharge > 0 && !hasCharge:
			add(MismatchProcessorDisagrees, "completed with a card charge of %s, but the processor has no charge under its key", rands(f.CardCharge))
		case f.CardCharge > 0 && !ch.Approved:
			add(MismatchProcessorDisagrees, "completed, but the processor declined its charge of %s", rands(ch.Amount.Cents()))
		case charged && ch.Amount.Cents() != f.CardCharge:
			add(MismatchChargeAmount, "charged %s, card charge %s", rands(ch.Amount.Cents()), rands(f.CardCharge))
		}

		switch f.CollectionStatus {
		case "awaiting_collection":
			sum.collectable += f.CardCharge
			if f.RefundStatus != "" || f.RefundID != "" || hasRefund {
				add(MismatchProcessorDisagrees, "voucher awaiting collection, but refunded %s (refund %s)", rands(rf.Amount.Cents()), orNone(f.RefundStatus))
			}
		case "collected":
			sum.collected += f.CardCharge
			if f.RefundStatus != "" || f.RefundID != "" || hasRefund {
				add(MismatchCollectedAndRefunded, "voucher collected, but refunded %s (refund %s)", rands(rf.Amount.Cents()), orNone(f.RefundStatus))
			}
		case "cancelled", "expired":
			switch {
			case f.CardCharge == 0:
				// Paid wholly by credit: the credit's return is the refund.
				if hasRefund {
					add(MismatchRefundAmount, "paid by credit, but the card was refunded %s", rands(rf.Amount.Cents()))
				}
			case f.RefundStatus != "refunded" || f.RefundID == "":
				add(MismatchRefundMissing, "voucher %s, card charge %s owed back, refund %s", f.CollectionStatus, rands(f.CardCharge), orNone(f.RefundStatus))
			case !hasRefund:
				add(MismatchRefundMissing, "voucher %s, refund recorded, but the processor has no refund under its key", f.CollectionStatus)
			case rf.Amount.Cents() != f.CardCharge:
				add(MismatchRefundAmount, "refunded %s, card charge %s", rands(rf.Amount.Cents()), rands(f.CardCharge))
			}
		}
	}
	return nil
}

// chargeKey and refundKey are the idempotency keys the worker charges and refunds a transfer
// under (domain.Transfer.ChargeKey, RefundKey).
func chargeKey(id uuid.UUID) string { return id.String() }
func refundKey(id uuid.UUID) string { return "refund-" + id.String() }

// rands formats cents as rand ("R1 234.50" without the grouping: "R1234.50").
func rands(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%sR%d.%02d", sign, cents/100, cents%100)
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "none"
	}
	return s
}
