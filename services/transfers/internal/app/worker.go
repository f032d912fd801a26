package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

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
	// Sweep is the fallback interval between passes without a wake-up (the wake-ups come from
	// the database's NOTIFY on commit); it also bounds how late a voucher expires.
	Sweep time.Duration
	// RetryBase and RetryMax bound the delay before a charge or refund that failed for a
	// transient reason is tried again (doubling per attempt).
	RetryBase, RetryMax time.Duration
	// VoucherTTL is how long a voucher can be collected.
	VoucherTTL time.Duration
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
	Concurrency: 8,
	Lease:       time.Minute,
	Sweep:       5 * time.Second,
	RetryBase:   2 * time.Second,
	RetryMax:    5 * time.Minute,
	VoucherTTL:  domain.DefaultVoucherTTL,
}

// expireBatch is how many vouchers one transaction expires.
const expireBatch = 100

// Worker moves transfers along: pending → processing → completed (charged, voucher issued)
// or failed (declined), and makes the refunds of cancelled and expired vouchers. Any number of
// workers, in any number of replicas, can run on one database: they claim work with
// FOR UPDATE SKIP LOCKED and a lease, so each job has one owner at a time, and a job whose
// owner died is taken over when its lease passes. The charge's idempotency key is the
// transfer id, so taking a job over never charges twice.
type Worker struct {
	repo     Repository
	payments PaymentMethods
	cfg      WorkerConfig
	logger   *slog.Logger
	wake     chan struct{}
}

// NewWorker returns a worker; zero fields of cfg take DefaultWorkerConfig's values.
func NewWorker(repo Repository, payments PaymentMethods, cfg WorkerConfig, logger *slog.Logger) *Worker {
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
	return &Worker{repo: repo, payments: payments, cfg: cfg, logger: logger.With("component", "transfers.worker"), wake: make(chan struct{}, 1)}
}

// Notify wakes the worker for a pass; wake-ups that arrive during a pass coalesce into one
// more pass, so none is lost. The database listener calls it on every commit that created work.
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

// pass expires due vouchers, then claims refunds and charges until none is due, running each
// in a slot.
func (w *Worker) pass(ctx context.Context, slots chan struct{}, jobs *sync.WaitGroup) {
	for ctx.Err() == nil {
		n, err := w.repo.ExpireDue(ctx, w.cfg.Now(), expireBatch)
		if err != nil {
			w.logError(ctx, "expiring vouchers failed", err)
			break
		}
		if n < expireBatch {
			break
		}
	}
	claims := []struct {
		name  string
		claim func(ctx context.Context, now, leaseUntil time.Time) (*domain.Transfer, error)
		run   func(ctx context.Context, t *domain.Transfer)
	}{
		{"refund", w.repo.ClaimRefund, w.refund},
		{"charge", w.repo.ClaimCharge, w.charge},
	}
	for _, c := range claims {
		for {
			select {
			case <-ctx.Done():
				return
			case slots <- struct{}{}:
			}
			now := w.cfg.Now()
			t, err := c.claim(ctx, now, now.Add(w.cfg.Lease))
			if err != nil || t == nil {
				<-slots
				if err != nil {
					w.logError(ctx, "claiming a "+c.name+" failed", err)
				}
				break
			}
			jobs.Go(func() {
				defer func() { <-slots }()
				c.run(ctx, t)
			})
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
func (w *Worker) retryLater(ctx context.Context, t *domain.Transfer, cause error) {
	delay := w.backoff(t.Attempts())
	w.logger.WarnContext(ctx, "transient failure; retrying later", "transfer_id", t.ID(), "attempt", t.Attempts(), "retry_in", delay, "error", cause)
	now := w.cfg.Now()
	if err := w.update(ctx, t, func(t *domain.Transfer) error { return t.RetryAt(now.Add(delay), now) }); err != nil {
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

// charge charges the card of a claimed transfer and records the outcome. A crash anywhere
// leaves the transfer processing with a lease; whoever takes it over charges again with the
// same key and gets the same answer.
func (w *Worker) charge(ctx context.Context, t *domain.Transfer) {
	s := t.State()
	w.cfg.Checkpoint(CheckpointBeforeCharge)
	cctx, cancel := context.WithTimeout(ctx, w.cfg.Lease/2)
	res, err := w.payments.Charge(cctx, ChargeRequest{
		UserID:         s.UserID.String(),
		Token:          s.PaymentMethod.Token,
		Amount:         t.Total(),
		IdempotencyKey: t.ChargeKey(),
		Description:    "Thumela transfer " + t.Reference(),
	})
	cancel()
	if ctx.Err() != nil {
		return // stopping: the lease hands the job to whoever runs next
	}
	w.cfg.Checkpoint(CheckpointAfterCharge)
	now := w.cfg.Now()
	switch {
	case err == nil && res.Approved && res.ChargeID != "":
		w.complete(ctx, t, res.ChargeID)
	case err == nil && !res.Approved:
		w.finish(ctx, t, func(t *domain.Transfer) error { return t.Fail(failureReason(res), now) })
	case errors.Is(err, ErrChargeRejected):
		w.logger.WarnContext(ctx, "charge rejected; the transfer fails", "transfer_id", t.ID(), "error", err)
		w.finish(ctx, t, func(t *domain.Transfer) error {
			return t.Fail("The payment method could not be charged. Nothing was taken.", now)
		})
	case err == nil:
		w.retryLater(ctx, t, errors.New("approved charge without a charge id"))
	default:
		w.retryLater(ctx, t, err)
	}
}

// complete issues the voucher of a charged transfer. A voucher number already in use is drawn
// again.
func (w *Worker) complete(ctx context.Context, t *domain.Transfer, chargeID string) {
	for range 5 {
		now := w.cfg.Now()
		v, err := domain.NewVoucher(now, w.cfg.VoucherTTL)
		if err != nil {
			w.logError(ctx, "drawing a voucher failed", err, "transfer_id", t.ID())
			return
		}
		err = w.update(ctx, t, func(t *domain.Transfer) error { return t.Complete(chargeID, v, now) })
		if err == nil {
			w.cfg.Checkpoint(CheckpointBeforePublish)
		}
		if !errors.Is(err, domain.ErrVoucherNumberTaken) {
			return
		}
	}
	w.logError(ctx, "no free voucher number after 5 draws; the lease will retry", errors.New("voucher numbers exhausted"), "transfer_id", t.ID())
}

func (w *Worker) finish(ctx context.Context, t *domain.Transfer, fn func(*domain.Transfer) error) {
	if w.update(ctx, t, fn) == nil {
		w.cfg.Checkpoint(CheckpointBeforePublish)
	}
}

// update applies fn; ErrInvalidTransition means another worker finished the job first (its
// lease passed while this one waited on a slow call), which is fine: the state machine has
// made sure it happened once.
func (w *Worker) update(ctx context.Context, t *domain.Transfer, fn func(*domain.Transfer) error) error {
	_, err := w.repo.Update(ctx, uuid.Nil, t.ID(), fn)
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
	s := t.State()
	if s.ChargeID == "" {
		w.logError(ctx, "refund owed on a transfer without a charge", fmt.Errorf("transfer %s", t.ID()))
		return
	}
	cctx, cancel := context.WithTimeout(ctx, w.cfg.Lease/2)
	refundID, err := w.payments.Refund(cctx, RefundRequest{
		ChargeID:       s.ChargeID,
		Amount:         t.Total(),
		IdempotencyKey: t.RefundKey(),
		Reason:         "voucher " + s.Refund.Reason,
	})
	cancel()
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		// A refund is owed whatever the processor says: keep trying (and alert on the logs).
		w.retryLater(ctx, t, err)
		return
	}
	now := w.cfg.Now()
	_ = w.update(ctx, t, func(t *domain.Transfer) error { return t.Refunded(refundID, now) })
}
