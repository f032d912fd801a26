package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// WorkerConfig tunes the worker.
type WorkerConfig struct {
	// Concurrency is how many charges and refunds one worker makes at once.
	Concurrency int
	// Lease is how long a claimed charge or refund belongs to this worker; after it, another
	// worker (or this one, restarted) takes it over. A call to paymentmethods is given half of
	// it, so that a live worker finishes before anyone takes over.
	Lease time.Duration
	// Sweep is the interval between passes without a wake-up. Wake-ups come from this
	// process's own commits (the repository's OnCommit hooks) and from retries falling due; the
	// sweep is how a worker finds work committed by another replica that did not process it
	// (it stopped first), and it bounds how late a voucher expires.
	Sweep time.Duration
	// RetryBase and RetryMax bound the delay before a charge or refund that failed for a
	// transient reason is tried again (doubling per attempt).
	RetryBase, RetryMax time.Duration
	// VoucherTTL is how long a voucher can be collected.
	VoucherTTL time.Duration
	// PINs MACs the vouchers' PINs (required).
	PINs *domain.PINHasher
	// TracerProvider and MeterProvider default to the global ones (telemetry.Setup's).
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	// Now is the clock (time.Now by default).
	Now func() time.Time
	// Checkpoint, when set, is called at the named points of a charge job (Checkpoint*
	// constants) so that crash tests can kill the process there. Test-only: nil in production
	// unless TRANSFERS_CRASHPOINT is set.
	Checkpoint func(point string)
}

// Points of a charge job passed to WorkerConfig.Checkpoint.
const (
	// CheckpointBeforeCharge: processing is committed, paymentmethods not yet asked.
	CheckpointBeforeCharge = "before_charge"
	// CheckpointAfterCharge: paymentmethods answered, the outcome is not yet recorded.
	CheckpointAfterCharge = "after_charge"
	// CheckpointBeforePublish: the outcome (completed or failed) and its events are committed;
	// the outbox relay has not necessarily published them.
	CheckpointBeforePublish = "before_publish"
)

// Checkpoints lists the valid checkpoint names.
var Checkpoints = []string{CheckpointBeforeCharge, CheckpointAfterCharge, CheckpointBeforePublish}

// DefaultWorkerConfig is the production tuning.
var DefaultWorkerConfig = WorkerConfig{
	Concurrency: 32,
	Lease:       time.Minute,
	Sweep:       5 * time.Second,
	RetryBase:   2 * time.Second,
	RetryMax:    5 * time.Minute,
	VoucherTTL:  domain.DefaultVoucherTTL,
}

// expireBatch is how many vouchers one transaction expires; remindBatch how many it reminds.
const (
	expireBatch = 100
	remindBatch = 100
)

// Unknown voucher numbers' wrong-attempt counts (domain.UnknownNumber) are pruned once they are
// older than a voucher's life and its lockout (a real voucher is over by then), at most once an
// hour and pruneBatch at a time.
const (
	pruneEvery = time.Hour
	pruneBatch = 1000
)

// DueWork is what Repository.DueWork found due.
type DueWork struct{ Expiries, Reminders, Refunds bool }

// Worker moves transfers along: pending → processing → completed (charged, voucher issued)
// or failed (declined), asks for the recipients' reminders 24 hours before their vouchers
// expire (once each: reminder_sent_at, set with the request in one transaction, in batches
// under FOR UPDATE SKIP LOCKED), and makes the refunds of cancelled and expired vouchers. Any
// number of workers, in any number of replicas, can run on one database: they claim work with
// FOR UPDATE SKIP LOCKED and a lease, so each job has one owner at a time, and a job whose
// owner died is taken over when its lease passes. The charge's idempotency key is the
// transfer id, so taking a job over never charges twice.
//
// Each step runs in a span "transfers.worker.<step>" whose parent is the trace context saved
// with the transfer when it was created, so that the charge, the voucher and their events
// continue the trace of the sender's request.
type Worker struct {
	repo     Repository
	payments PaymentMethods
	cfg      WorkerConfig
	logger   *slog.Logger
	wake     chan struct{}
	tel      workerTelemetry
	// lastPrune is when this worker last pruned unknown voucher numbers (only Run's goroutine
	// reads and writes it).
	lastPrune time.Time
}

// NewWorker returns a worker; zero fields of cfg take DefaultWorkerConfig's values (the
// providers the global ones). cfg.PINs is required.
func NewWorker(repo Repository, payments PaymentMethods, cfg WorkerConfig, logger *slog.Logger) (*Worker, error) {
	if cfg.PINs == nil {
		return nil, errors.New("worker: a PIN hasher is required")
	}
	if cfg.TracerProvider == nil {
		cfg.TracerProvider = otel.GetTracerProvider()
	}
	if cfg.MeterProvider == nil {
		cfg.MeterProvider = otel.GetMeterProvider()
	}
	tel, err := newWorkerTelemetry(cfg.TracerProvider, cfg.MeterProvider)
	if err != nil {
		return nil, err
	}
	d := DefaultWorkerConfig
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = d.Concurrency
	}
	if cfg.Lease <= 0 {
		cfg.Lease = d.Lease
	}
	if cfg.Sweep <= 0 {
		cfg.Sweep = d.Sweep
	}
	if cfg.RetryBase <= 0 {
		cfg.RetryBase = d.RetryBase
	}
	if cfg.RetryMax <= 0 {
		cfg.RetryMax = d.RetryMax
	}
	if cfg.VoucherTTL <= 0 {
		cfg.VoucherTTL = d.VoucherTTL
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Checkpoint == nil {
		cfg.Checkpoint = func(string) {}
	}
	return &Worker{
		repo: repo, payments: payments, cfg: cfg, logger: logger.With("component", "transfers.worker"),
		wake: make(chan struct{}, 1), tel: tel,
	}, nil
}

// Notify wakes the worker for a pass; wake-ups that arrive during a pass coalesce into one
// more pass, so none is lost. It never blocks: the repository calls it after every commit of
// this process that created work (a new transfer, a refund owed).
func (w *Worker) Notify() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run works until ctx ends, then waits for the jobs in flight (their calls are cancelled with
// ctx; a job cut short stays leased and is taken over later) and returns nil.
func (w *Worker) Run(ctx context.Context) error {
	slots := make(chan struct{}, w.cfg.Concurrency)
	var jobs sync.WaitGroup
	defer jobs.Wait()
	sweep := time.NewTimer(0) // a pass at start: work may have waited while we were down
	defer sweep.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-w.wake:
		case <-sweep.C:
		}
		w.pass(ctx, slots, &jobs)
		sweep.Reset(w.cfg.Sweep)
	}
}

// pass expires due vouchers, asks for the reminders due, then claims refunds and charges until
// none is due, running each in a slot.
func (w *Worker) pass(ctx context.Context, slots chan struct{}, jobs *sync.WaitGroup) {
	// One probe instead of a transaction per batch: most passes (a wake-up per created
	// transfer) find only charges. When the probe fails, every batch runs, as without it.
	due, err := w.repo.DueWork(ctx, w.cfg.Now())
	if err != nil {
		w.logError(ctx, "probing due work failed", err)
		due = DueWork{Expiries: true, Reminders: true, Refunds: true}
	}
	batches := []struct {
		what  string
		due   bool
		size  int
		batch func(ctx context.Context, now time.Time, limit int, step Step) (int, error)
		step  Step
	}{
		{"expiring vouchers", due.Expiries, expireBatch, w.repo.ExpireDue, w.tel.around(StepExpire)},
		// After the expiries: a voucher that expires in this pass is not reminded.
		{"reminding recipients", due.Reminders, remindBatch, w.repo.RemindDue, w.tel.around(StepRemind)},
	}
	for _, b := range batches {
		if !b.due {
			continue
		}
		for ctx.Err() == nil {
			n, err := b.batch(ctx, w.cfg.Now(), b.size, b.step)
			if err != nil {
				w.logError(ctx, b.what+" failed", err)
				break
			}
			if n < b.size {
				break
			}
		}
	}
	w.prune(ctx)
	// Refunds are rare: one at a time. An expiry of this pass owes one the probe did not see.
	for due.Refunds || due.Expiries {
		select {
		case <-ctx.Done():
			return
		case slots <- struct{}{}:
		}
		now := w.cfg.Now()
		t, err := w.repo.ClaimRefund(ctx, now, now.Add(w.cfg.Lease), w.tel.around(StepClaimRefund))
		if err != nil || t == nil {
			<-slots
			if err != nil {
				w.logError(ctx, "claiming a refund failed", err)
			}
			break
		}
		jobs.Go(func() {
			defer func() { <-slots }()
			w.refund(ctx, t)
		})
	}
	w.claimCharges(ctx, slots, jobs)
}

// claimCharges claims due charges in batches, one slot per transfer, until none is due. A claim
// costs the same few round trips for one transfer as for several, so under a backlog (the last
// claim filled every slot it asked for) it waits for half the slots to free before claiming
// again; otherwise it claims at once for the slots that are free.
func (w *Worker) claimCharges(ctx context.Context, slots chan struct{}, jobs *sync.WaitGroup) {
	step := w.tel.around(StepClaimCharge)
	backlog := false
	for {
		want := 1
		if backlog {
			want = max(1, cap(slots)/2)
		}
		n := 0
		for n < want {
			select {
			case <-ctx.Done():
				for range n {
					<-slots
				}
				return
			case slots <- struct{}{}:
				n++
			}
		}
	free:
		for n < cap(slots) {
			select {
			case slots <- struct{}{}:
				n++
			default:
				break free
			}
		}
		now := w.cfg.Now()
		ts, err := w.repo.ClaimCharges(ctx, now, now.Add(w.cfg.Lease), n, step)
		for range n - len(ts) {
			<-slots
		}
		if err != nil {
			w.logError(ctx, "claiming charges failed", err)
			return
		}
		for _, t := range ts {
			jobs.Go(func() {
				defer func() { <-slots }()
				w.charge(ctx, t)
			})
		}
		if len(ts) < n {
			return // none left due
		}
		backlog = true
	}
}

// prune deletes unknown voucher numbers' counts and early reversals that no longer matter, at most once per
// pruneEvery (the repository's batches keep each statement short).
func (w *Worker) prune(ctx context.Context) {
	now := w.cfg.Now()
	if now.Sub(w.lastPrune) < pruneEvery {
		return
	}
	w.lastPrune = now
	before := now.Add(-(w.cfg.VoucherTTL + domain.CollectLockout))
	for ctx.Err() == nil {
		n, err := w.repo.PruneCollectionRecords(ctx, before, pruneBatch)
		if err != nil {
			w.logError(ctx, "pruning unknown voucher numbers and early reversals failed", err)
			return
		}
		if n < pruneBatch {
			return
		}
	}
}

func (w *Worker) logError(ctx context.Context, msg string, err error, args ...any) {
	if ctx.Err() != nil {
		return // stopping
	}
	w.logger.ErrorContext(ctx, msg, append(args, "error", err)...)
}

// backoff is the delay before attempt+1.
func (w *Worker) backoff(attempt int) time.Duration {
	d := w.cfg.RetryBase
	for i := 1; i < attempt && d < w.cfg.RetryMax; i++ {
		d *= 2
	}
	return min(d, w.cfg.RetryMax)
}

// retryLater postpones a job that failed for a transient reason and wakes the worker when it
// is due again.
func (w *Worker) retryLater(ctx context.Context, t *domain.Transfer, cause error, update func(context.Context, *domain.Transfer, func(*domain.Transfer) error) error) {
	delay := w.backoff(t.Attempts())
	w.logger.WarnContext(ctx, "transient failure; retrying later", "transfer_id", t.ID(), "attempt", t.Attempts(), "retry_in", delay, "error", cause)
	now := w.cfg.Now()
	if err := update(ctx, t, func(t *domain.Transfer) error { return t.RetryAt(now.Add(delay), now) }); err != nil {
		return
	}
	time.AfterFunc(delay, w.Notify)
}

// failureReason is what the sender reads when the card was declined: the processor's message.
func failureReason(res ChargeResult) string {
	if res.DeclineMessage != "" {
		return res.DeclineMessage
	}
	if res.DeclineCode != "" {
		return "The card was declined (" + res.DeclineCode + ")."
	}
	return "The card was declined."
}

// errChargeDeclined is the step error of a declined card (the transfer fails).
var errChargeDeclined = errors.New("charge declined")

// charge charges the card of a claimed transfer and records the outcome. A crash anywhere
// leaves the transfer processing with a lease; whoever takes it over charges again with the
// same key and gets the same answer. The charge step ends with the call's answer; an approved
// charge goes on to the voucher step.
func (w *Worker) charge(ctx context.Context, t *domain.Transfer) {
	sctx, step := w.tel.beginStep(ctx, StepCharge, t)
	defer step.end(OutcomeRetry, errors.New("charge step ended without an outcome")) // a panic or an early return
	s := t.State()
	w.cfg.Checkpoint(CheckpointBeforeCharge)
	if t.CardCharge().IsZero() {
		// Paid wholly by the sender's credit (spent when it was created): there is nothing to
		// charge, so no processor is asked, and the voucher is issued at once.
		step.end(OutcomeOK, nil)
		w.cfg.Checkpoint(CheckpointAfterCharge)
		w.complete(ctx, t, "")
		return
	}
	cctx, cancel := context.WithTimeout(sctx, w.cfg.Lease/2)
	res, err := w.payments.Charge(cctx, ChargeRequest{
		UserID:         s.UserID.String(),
		Token:          s.PaymentMethod.Token,
		Amount:         t.CardCharge(), // what the sender's credit did not pay
		IdempotencyKey: t.ChargeKey(),
		Description:    "Thumela transfer " + t.Reference(),
	})
	cancel()
	if ctx.Err() != nil {
		step.end(OutcomeRetry, context.Cause(ctx)) // stopping: the lease hands the job to whoever runs next
		return
	}
	w.cfg.Checkpoint(CheckpointAfterCharge)
	now := w.cfg.Now()
	switch {
	case err == nil && res.Approved && res.ChargeID != "":
		step.end(OutcomeOK, nil)
		w.complete(ctx, t, res.ChargeID)
	case err == nil && !res.Approved:
		reason := failureReason(res)
		w.finish(sctx, step, fmt.Errorf("%w: %s", errChargeDeclined, reason), t,
			func(t *domain.Transfer) error { return t.Fail(reason, now) })
	case errors.Is(err, ErrChargeRejected):
		w.logger.WarnContext(sctx, "charge rejected; the transfer fails", "transfer_id", t.ID(), "error", err)
		w.finish(sctx, step, err, t, func(t *domain.Transfer) error {
			return t.Fail("The payment method could not be charged. Nothing was taken.", now)
		})
	case err == nil:
		err = errors.New("approved charge without a charge id")
		w.retryLater(sctx, t, err, w.updateClaimed)
		step.end(OutcomeRetry, err)
	default:
		w.retryLater(sctx, t, err, w.updateClaimed)
		step.end(OutcomeRetry, err)
	}
}

// complete issues the voucher of a charged transfer, as its own step. A voucher number already
// in use is drawn again.
func (w *Worker) complete(ctx context.Context, t *domain.Transfer, chargeID string) {
	sctx, step := w.tel.beginStep(ctx, StepIssueVoucher, t)
	defer step.end(OutcomeRetry, errors.New("voucher step ended without an outcome"))
	for range 5 {
		now := w.cfg.Now()
		v, err := domain.NewVoucher(w.cfg.PINs, t.ID(), now, w.cfg.VoucherTTL)
		if err != nil {
			w.logError(sctx, "drawing a voucher failed", err, "transfer_id", t.ID())
			step.end(OutcomeRetry, err)
			return
		}
		err = w.updateClaimed(sctx, t, func(t *domain.Transfer) error { return t.Complete(chargeID, v, now) })
		switch {
		case err == nil:
			step.end(OutcomeOK, nil)
			w.cfg.Checkpoint(CheckpointBeforePublish)
			return
		case !errors.Is(err, domain.ErrVoucherNumberTaken):
			step.end(OutcomeRetry, err) // the lease will retry
			return
		}
	}
	err := errors.New("voucher numbers exhausted")
	w.logError(sctx, "no free voucher number after 5 draws; the lease will retry", err, "transfer_id", t.ID())
	step.end(OutcomeRetry, err)
}

// finish records the end of a job that fails the transfer; step ends failed with cause once
// it is recorded, or retry if it could not be (the lease will retry).
func (w *Worker) finish(ctx context.Context, step *stepRun, cause error, t *domain.Transfer, fn func(*domain.Transfer) error) {
	if err := w.updateClaimed(ctx, t, fn); err != nil {
		step.end(OutcomeRetry, err)
		return
	}
	step.end(OutcomeFailed, cause)
	w.cfg.Checkpoint(CheckpointBeforePublish)
}

// update applies fn; ErrInvalidTransition means another worker finished the job first (its
// lease passed while this one waited on a slow call), which is fine: the state machine has
// made sure it happened once.
func (w *Worker) update(ctx context.Context, t *domain.Transfer, fn func(*domain.Transfer) error) error {
	_, err := w.repo.Update(ctx, uuid.Nil, t.ID(), fn)
	return w.recorded(ctx, t, err)
}

// updateClaimed is update for a charge job: the worker's own claimed copy of t is written
// without reading the row again (the repository guards it on the claimed attempt, so a job
// another worker took over is not written twice: ErrInvalidTransition, as with update).
func (w *Worker) updateClaimed(ctx context.Context, t *domain.Transfer, fn func(*domain.Transfer) error) error {
	return w.recorded(ctx, t, w.repo.UpdateClaimed(ctx, t, fn))
}

// recorded logs the outcome of a job's write err and returns the error its caller acts on.
func (w *Worker) recorded(ctx context.Context, t *domain.Transfer, err error) error {
	switch {
	case err == nil:
	case errors.Is(err, domain.ErrInvalidTransition):
		w.logger.InfoContext(ctx, "job already finished elsewhere", "transfer_id", t.ID())
		return nil
	case errors.Is(err, domain.ErrVoucherNumberTaken):
	default:
		w.logError(ctx, "recording a job's outcome failed; its lease will retry", err, "transfer_id", t.ID())
	}
	return err
}

// refund refunds the whole total of a cancelled or expired voucher.
func (w *Worker) refund(ctx context.Context, t *domain.Transfer) {
	sctx, step := w.tel.beginStep(ctx, StepRefund, t)
	defer step.end(OutcomeRetry, errors.New("refund step ended without an outcome"))
	s := t.State()
	if s.ChargeID == "" {
		err := fmt.Errorf("refund owed on transfer %s, which has no charge", t.ID())
		w.logError(sctx, "refund owed on a transfer without a charge", err)
		step.end(OutcomeFailed, err)
		return
	}
	cctx, cancel := context.WithTimeout(sctx, w.cfg.Lease/2)
	refundID, err := w.payments.Refund(cctx, RefundRequest{
		ChargeID:       s.ChargeID,
		Amount:         t.CardCharge(), // the credit spent went back to the sender's credit, not the card
		IdempotencyKey: t.RefundKey(),
		Reason:         "voucher " + s.Refund.Reason,
	})
	cancel()
	if ctx.Err() != nil {
		step.end(OutcomeRetry, context.Cause(ctx))
		return
	}
	if err != nil {
		// A refund is owed whatever the processor says: keep trying (and alert on the logs).
		w.retryLater(sctx, t, err, w.update)
		step.end(OutcomeRetry, err)
		return
	}
	now := w.cfg.Now()
	if err := w.update(sctx, t, func(t *domain.Transfer) error { return t.Refunded(refundID, now) }); err != nil {
		step.end(OutcomeRetry, err)
		return
	}
	step.end(OutcomeOK, nil)
}
