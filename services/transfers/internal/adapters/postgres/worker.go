package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	platformpg "github.com/thumela/thumela/services/platform/postgres"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// The worker's hot path: a charge job is a claim and an outcome, and each costs a fixed number
// of round trips, whatever the number of transfers. A claim takes up to limit transfers in one
// transaction (one SELECT … FOR UPDATE SKIP LOCKED, then every row's update and its events in
// one batch); an outcome writes the worker's own copy of the claimed transfer, without reading
// it back, guarded by the attempt it claimed (the update, its events, the recipient saved and
// the referral's mark in one batch).

// chargeDueSQL selects the transfers whose charge is due: pending, or processing with a lease
// that has passed (its worker died or gave up for a while); oldest first.
const chargeDueSQL = `SELECT ` + columns + ` FROM transfers
	WHERE status IN ('pending', 'processing') AND (status = 'pending' OR lease_until <= $1)
	ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED`

// ClaimCharge implements app.Repository: the oldest transfer whose charge is due.
func (r *Transfers) ClaimCharge(ctx context.Context, now, leaseUntil time.Time, step app.Step) (*domain.Transfer, error) {
	ts, err := r.ClaimCharges(ctx, now, leaseUntil, 1, step)
	if err != nil || len(ts) == 0 {
		return nil, err
	}
	return ts[0], nil
}

// ClaimCharges implements app.Repository: up to limit transfers whose charge is due, oldest
// first, claimed in one transaction of two round trips (begin with the locking read, then a
// batch of every update, its events and the commit). Rows another worker holds are skipped, not
// waited for.
func (r *Transfers) ClaimCharges(ctx context.Context, now, leaseUntil time.Time, limit int, step app.Step) ([]*domain.Transfer, error) {
	var out []*domain.Transfer
	err := platformpg.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		out = nil
		rows, err := tx.Query(ctx, chargeDueSQL, now, limit)
		if err != nil {
			return fmt.Errorf("claim charges: %w", err)
		}
		due, err := pgx.CollectRows(rows, scan)
		if err != nil {
			return fmt.Errorf("claim charges: %w", err)
		}
		if len(due) == 0 {
			return nil
		}
		b := &pgx.Batch{}
		var reads []func(pgx.BatchResults) error
		for _, t := range due {
			if err := r.changeQueued(ctx, tx, b, &reads, t, step, nil,
				func(t *domain.Transfer) error { return t.ClaimCharge(now, leaseUntil) }); err != nil {
				return err
			}
		}
		platformpg.CommitWith(tx, b)
		if err := sendQueued(ctx, tx, b, reads); err != nil {
			return err
		}
		out = due
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// UpdateClaimed implements app.Repository: fn changes the worker's own copy of a transfer it
// claimed, and the change is written without reading the row again, on condition that the row
// is still in the state the worker claimed (its status and its attempt number: only the
// claim's owner moves a claimed transfer, and a takeover counts a new attempt). When another
// worker took the job over, nothing is written and the error is domain.ErrInvalidTransition.
// Anything the change owes besides the row (the credit returned with a failure, a referrer's
// reward) is written in the same transaction.
func (r *Transfers) UpdateClaimed(ctx context.Context, t *domain.Transfer, fn func(*domain.Transfer) error) error {
	was := t.State()
	next := domain.Restore(was) // fn works on a copy: a failed write leaves t as claimed
	err := platformpg.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		next = domain.Restore(was)
		b := &pgx.Batch{}
		var reads []func(pgx.BatchResults) error
		attempts := was.Attempts
		var referrer *uuid.UUID
		if err := r.changeQueued(ctx, tx, b, &reads, next, nil, &attempts, fn); err != nil {
			return err
		}
		at := next.State().UpdatedAt
		if next.Completed(was) {
			// The friend's first completion pays their referrer, once: the mark rides in the
			// batch; the payment (rare) follows it.
			b.Queue(`UPDATE referrals SET rewarded_at = $2 WHERE friend_id = $1 AND rewarded_at IS NULL
				RETURNING referrer_id`, next.UserID(), at)
			reads = append(reads, func(br pgx.BatchResults) error {
				var id uuid.UUID
				err := br.QueryRow().Scan(&id)
				if errors.Is(err, pgx.ErrNoRows) {
					return nil // not referred, or the referrer was paid for an earlier transfer
				}
				if err != nil {
					return fmt.Errorf("referral reward: %w", err)
				}
				referrer = &id
				return nil
			})
		}
		if err := lockCreditReturn(ctx, tx, next, was); err != nil {
			return err
		}
		if err := sendQueued(ctx, tx, b, reads); err != nil {
			return err
		}
		if next.CreditReturnDue(was) {
			if _, err := move(ctx, tx, domain.ReturnMovement(next, at)); err != nil {
				return err
			}
		}
		if referrer != nil {
			return r.payReferrer(ctx, tx, next, *referrer, at)
		}
		return nil
	})
	if err != nil {
		return err
	}
	*t = *next
	return nil
}

// changeQueued applies fn to t (through step when there is one, whose context the events then
// carry) and queues its update, its events and, on a completion, the recipient it saves, on b;
// reads collects the checks of their results, in order. attempts, when set, also guards the
// update on the attempt the caller claimed. A refund that became owed wakes the worker on
// commit.
func (r *Transfers) changeQueued(ctx context.Context, tx pgx.Tx, b *pgx.Batch, reads *[]func(pgx.BatchResults) error,
	t *domain.Transfer, step app.Step, attempts *int, fn func(*domain.Transfer) error) error {
	apply := func(ctx context.Context) error {
		was := t.State()
		if err := fn(t); err != nil {
			return err
		}
		sql, args := updateSQL, updateArgs(t, was)
		if attempts != nil {
			sql, args = updateSQL+` AND attempts = $26`, append(args, *attempts)
		}
		id := t.ID()
		b.Queue(sql, args...)
		*reads = append(*reads, func(br pgx.BatchResults) error {
			tag, err := br.Exec()
			if err != nil {
				return updateError(err)
			}
			if tag.RowsAffected() != 1 {
				return fmt.Errorf("%w: %s changed since it was claimed", domain.ErrInvalidTransition, id)
			}
			return nil
		})
		if err := r.queueEvents(ctx, tx, b, reads, t); err != nil {
			return err
		}
		if err := queueChecked(b, reads, "save recipient", func() error { return queueRecipientOnCompletion(ctx, tx, b, t, was) }); err != nil {
			return err
		}
		if t.State().Refund.Status == domain.RefundPending && was.Refund.Status != domain.RefundPending {
			r.wakeOnCommit(tx)
		}
		return nil
	}
	if step == nil {
		return apply(ctx)
	}
	return step(ctx, t, apply)
}

// queueChecked runs queue, which queues statements on b, and adds a check of each of their
// results to reads.
func queueChecked(b *pgx.Batch, reads *[]func(pgx.BatchResults) error, what string, queue func() error) error {
	before := b.Len()
	if err := queue(); err != nil {
		return err
	}
	for range b.Len() - before {
		*reads = append(*reads, func(br pgx.BatchResults) error {
			if _, err := br.Exec(); err != nil {
				if constraint, dup := platformpg.IsUniqueViolation(err); dup && constraint == "outbox_id_key" {
					// An event's id is derived from its step: the step was recorded before.
					err = fmt.Errorf("%w: %w", app.ErrEventsWritten, err)
				}
				return fmt.Errorf("%s: %w", what, err)
			}
			return nil
		})
	}
	return nil
}

// sendQueued sends b on tx and checks its results in order; the first failure is the error
// (the transaction then rolls back).
func sendQueued(ctx context.Context, tx pgx.Tx, b *pgx.Batch, reads []func(pgx.BatchResults) error) error {
	if b.Len() == 0 {
		return nil
	}
	br := tx.SendBatch(ctx, b)
	for _, read := range reads {
		if err := read(br); err != nil {
			_ = br.Close()
			return err
		}
	}
	return br.Close()
}

// dueWorkSQL is DueWork's statement ($1 now, $2 the end of the reminder window, $3 how long
// before the expiry a reminder goes).
const dueWorkSQL = `SELECT
		coalesce((SELECT voucher_expires_at FROM transfers WHERE collection_status = 'awaiting_collection'
			ORDER BY voucher_expires_at LIMIT 1) <= $1, false),
		(SELECT true FROM transfers WHERE collection_status = 'awaiting_collection' AND reminder_sent_at IS NULL
			AND voucher_expires_at > $1 AND voucher_expires_at <= $2 AND created_at < voucher_expires_at - $3::interval
			ORDER BY voucher_expires_at LIMIT 1) IS NOT NULL,
		EXISTS (SELECT 1 FROM transfers WHERE refund_status = 'pending' AND (lease_until IS NULL OR lease_until <= $1))`

// DueWork implements app.Repository: which of the worker's batches have work, in one statement
// on their partial indexes, so that a pass (one per wake-up, and a wake-up per created
// transfer) does not open a transaction for each batch that finds nothing.
//
// The expiry is asked as "is the earliest expiry past?", not as EXISTS (… expires_at <= $1): the
// statement is prepared, and its generic plan cannot see $1, so it guessed a third of the
// vouchers awaiting collection match and scanned the whole table for one (10 ms at 20,000
// transfers, 2.7 ms per pass in the bench, growing with the history). The earliest expiry is the
// first entry of the partial index whatever the parameters.
//
// The earliest expiry and the first reminder due are asked in that index order (ORDER BY
// voucher_expires_at LIMIT 1), not as min() and EXISTS: on a new, empty table (a fresh deploy,
// never analysed) the generic plan of min() and of the EXISTS read transfers_uncollected_idx,
// which holds the same rows as the expiry index and cost the same there, and was kept as the
// table grew: a walk of every voucher awaiting collection per pass. Ordered by the expiry, only
// transfers_expiry_due_idx and transfers_reminder_due_idx give the first row without reading and
// sorting them all (TestWorkerPlansUseTheirIndexes).
func (r *Transfers) DueWork(ctx context.Context, now time.Time) (app.DueWork, error) {
	var d app.DueWork
	err := r.pool.QueryRow(ctx, dueWorkSQL,
		now, now.Add(domain.ReminderBefore), domain.ReminderBefore).Scan(&d.Expiries, &d.Reminders, &d.Refunds)
	if err != nil {
		return app.DueWork{}, fmt.Errorf("due work: %w", err)
	}
	return d, nil
}
