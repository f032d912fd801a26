package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/thumela/thumela/services/paymentmethods/internal/app"
	"github.com/thumela/thumela/services/paymentmethods/internal/domain"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
)

// beginAttempts bounds the loop of BeginCharge/BeginRefund: an attempt only repeats after
// losing an insert race, whose winner the next attempt reads.
const beginAttempts = 3

var errLostRace = errors.New("lost the insert race")

const chargeSelect = `SELECT c.id, c.idempotency_key, c.user_id, c.payment_method_id, pm.token, c.amount_cents,
	c.description, c.status, c.decline_code, c.decline_message, c.processor_reference, c.created_at
	FROM charges c JOIN payment_methods pm ON pm.id = c.payment_method_id `

func scanCharge(row pgx.CollectableRow) (domain.Charge, error) {
	var (
		c      domain.Charge
		cents  int64
		status string
	)
	err := row.Scan(&c.ID, &c.IdempotencyKey, &c.UserID, &c.PaymentMethodID, &c.Token, &cents,
		&c.Description, &status, &c.DeclineCode, &c.DeclineMessage, &c.ProcessorReference, &c.CreatedAt)
	c.Amount, c.Status = domain.Cents(cents), domain.Status(status)
	return c, err
}

func (s *Store) chargeWhere(ctx context.Context, where string, arg any) (domain.Charge, error) {
	rows, err := s.pool.Query(ctx, chargeSelect+where, arg)
	if err != nil {
		return domain.Charge{}, err
	}
	c, err := pgx.CollectExactlyOneRow(rows, scanCharge)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Charge{}, domain.ErrNotFound
	}
	return c, err
}

// leaseExpr is the end of a lease of $n milliseconds from now.
func leaseExpr(n string) string { return `now() + $` + n + `::bigint * interval '1 millisecond'` }

// beginChargeSQL records a new charge, leased, in one statement: the method's row is read
// FOR SHARE (a concurrent Delete, FOR UPDATE, either finishes first, and there is no method to
// charge, or waits for this charge and then sees it), the charge is inserted unless its key is
// known, and the row is answered as chargeSelect would. Nothing comes back when the key is known
// or the method is not the user's. $1 id, $2 user, $3 token, $4 key, $5 amount, $6 description,
// $7 lease in milliseconds.
var beginChargeSQL = `WITH method AS (
		SELECT id, token FROM payment_methods WHERE token = $3 AND user_id = $2 FOR SHARE),
	made AS (
		INSERT INTO charges (id, idempotency_key, user_id, payment_method_id, amount_cents, description, status,
			lease_until, attempts)
		SELECT $1, $4, $2, method.id, $5, $6, 'pending', ` + leaseExpr("7") + `, 1 FROM method
		ON CONFLICT (idempotency_key) DO NOTHING
		RETURNING *)
	SELECT c.id, c.idempotency_key, c.user_id, c.payment_method_id, method.token, c.amount_cents,
		c.description, c.status, c.decline_code, c.decline_message, c.processor_reference, c.created_at
	FROM made c JOIN method ON method.id = c.payment_method_id`

// BeginCharge implements app.Repository. A new charge costs one statement; a known key reads
// the charge it names (the same request again, or another with the same key: a conflict).
func (s *Store) BeginCharge(ctx context.Context, c app.NewCharge, lease time.Duration) (domain.Charge, bool, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return domain.Charge{}, false, err
	}
	// The charge row itself keeps the method from being deleted (Delete looks for one, and its
	// foreign key refuses): no usage row is written beside it.
	rows, err := s.pool.Query(ctx, beginChargeSQL, id, c.UserID, c.Token, c.IdempotencyKey, c.Amount.Cents(),
		c.Description, lease.Milliseconds())
	if err != nil {
		return domain.Charge{}, false, wrap("record charge", err)
	}
	made, err := pgx.CollectRows(rows, scanCharge)
	if err != nil {
		if _, ok := platformpg.IsForeignKeyViolation(err); ok {
			return domain.Charge{}, false, domain.ErrNotFound // the method was deleted meanwhile
		}
		return domain.Charge{}, false, wrap("record charge", err)
	}
	if len(made) == 1 {
		return made[0], true, nil
	}
	// Not inserted: the key is known (a concurrent insert of it has committed by now: ON
	// CONFLICT waits for it), or the method is not the user's.
	existing, err := s.chargeWhere(ctx, `WHERE c.idempotency_key = $1`, c.IdempotencyKey)
	if err != nil {
		return domain.Charge{}, false, wrap("read charge", err) // ErrNotFound: no such method
	}
	if existing.UserID != c.UserID || existing.Token != c.Token || existing.Amount != c.Amount {
		return domain.Charge{}, false, domain.ErrIdempotencyConflict
	}
	return existing, false, nil
}

// LeaseCharge implements app.Repository.
func (s *Store) LeaseCharge(ctx context.Context, id uuid.UUID, lease time.Duration) (domain.Charge, bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE charges SET lease_until = `+leaseExpr("2")+`, attempts = attempts + 1, updated_at = now()
		WHERE id = $1 AND status = 'pending' AND (lease_until IS NULL OR lease_until <= now())`, id, lease.Milliseconds())
	if err != nil {
		return domain.Charge{}, false, wrap("lease charge", err)
	}
	rctx, cancel := leaseHeld(ctx)
	defer cancel()
	ch, err := s.chargeWhere(rctx, `WHERE c.id = $1`, id)
	return ch, tag.RowsAffected() == 1, wrap("read charge", err)
}

// leaseHeldReadTimeout bounds the read that follows a committed lease.
const leaseHeldReadTimeout = 5 * time.Second

// leaseHeld is the context for reading back a charge or refund whose lease this request has
// just committed. From the commit on, the request owns the work: were the read to fail because
// the caller went away (a cancelled RPC, a caller's pod killed), the lease would strand the
// charge, unprocessed, until it ran out, and every retry would wait that long. So the read
// outlives the caller's cancellation, bounded; the processor call after it does the same.
func leaseHeld(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), leaseHeldReadTimeout)
}

func outcomeStatus(o domain.Outcome) domain.Status {
	if o.Approved {
		return domain.StatusApproved
	}
	return domain.StatusDeclined
}

// CompleteCharge implements app.Repository: the outcome and the charge as it is then, in one
// statement; a charge completed already (by a run that took the lease over) is read as it is.
func (s *Store) CompleteCharge(ctx context.Context, id uuid.UUID, o domain.Outcome) (domain.Charge, error) {
	rows, err := s.pool.Query(ctx, `WITH done AS (
			UPDATE charges SET status = $2, decline_code = $3, decline_message = $4,
				processor_reference = $5, lease_until = NULL, completed_at = now(), updated_at = now()
			WHERE id = $1 AND status = 'pending'
			RETURNING *)
		SELECT c.id, c.idempotency_key, c.user_id, c.payment_method_id, pm.token, c.amount_cents,
			c.description, c.status, c.decline_code, c.decline_message, c.processor_reference, c.created_at
		FROM done c JOIN payment_methods pm ON pm.id = c.payment_method_id`,
		id, string(outcomeStatus(o)), o.DeclineCode, o.DeclineMessage, o.Reference)
	if err != nil {
		return domain.Charge{}, wrap("complete charge", err)
	}
	done, err := pgx.CollectRows(rows, scanCharge)
	if err != nil {
		return domain.Charge{}, wrap("complete charge", err)
	}
	if len(done) == 1 {
		return done[0], nil
	}
	ch, err := s.chargeWhere(ctx, `WHERE c.id = $1`, id)
	return ch, wrap("read charge", err)
}

// ReleaseCharge implements app.Repository.
func (s *Store) ReleaseCharge(ctx context.Context, id uuid.UUID) error {
	_, err := s.pool.Exec(ctx, `UPDATE charges SET lease_until = NULL, updated_at = now() WHERE id = $1 AND status = 'pending'`, id)
	return wrap("release charge", err)
}

const refundSelect = `SELECT r.id, r.idempotency_key, r.charge_id, r.amount_cents, r.reason, r.status,
	r.failure_code, r.failure_message, c.processor_reference, r.processor_reference, r.created_at
	FROM refunds r JOIN charges c ON c.id = r.charge_id `

func scanRefund(row pgx.CollectableRow) (domain.Refund, error) {
	var (
		r      domain.Refund
		cents  int64
		status string
	)
	err := row.Scan(&r.ID, &r.IdempotencyKey, &r.ChargeID, &cents, &r.Reason, &status,
		&r.FailureCode, &r.FailureMessage, &r.ChargeReference, &r.ProcessorReference, &r.CreatedAt)
	r.Amount, r.Status = domain.Cents(cents), domain.Status(status)
	return r, err
}

func refundWhere(ctx context.Context, q querier, where string, arg any) (domain.Refund, error) {
	rows, err := q.Query(ctx, refundSelect+where, arg)
	if err != nil {
		return domain.Refund{}, err
	}
	r, err := pgx.CollectExactlyOneRow(rows, scanRefund)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Refund{}, domain.ErrNotFound
	}
	return r, err
}

func sameRefund(existing domain.Refund, r app.NewRefund) error {
	if existing.ChargeID != r.ChargeID || existing.Amount != r.Amount {
		return domain.ErrIdempotencyConflict
	}
	return nil
}

// BeginRefund implements app.Repository. The charge's row lock serializes its refunds, so
// their sum never exceeds it.
func (s *Store) BeginRefund(ctx context.Context, r app.NewRefund, lease time.Duration) (domain.Refund, bool, error) {
	for range beginAttempts {
		existing, err := refundWhere(ctx, s.pool, `WHERE r.idempotency_key = $1`, r.IdempotencyKey)
		if err == nil {
			return existing, false, sameRefund(existing, r)
		}
		if !errors.Is(err, domain.ErrNotFound) {
			return domain.Refund{}, false, wrap("read refund", err)
		}
		id, err := uuid.NewV7()
		if err != nil {
			return domain.Refund{}, false, err
		}
		err = platformpg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
			var (
				status  string
				charged int64
			)
			err := tx.QueryRow(ctx, `SELECT status, amount_cents FROM charges WHERE id = $1 FOR UPDATE`, r.ChargeID).Scan(&status, &charged)
			if errors.Is(err, pgx.ErrNoRows) {
				return domain.ErrNotFound
			}
			if err != nil {
				return err
			}
			// With the charge locked, a refund of the same key committed meanwhile is visible.
			if _, err := refundWhere(ctx, tx, `WHERE r.idempotency_key = $1`, r.IdempotencyKey); err == nil {
				return errLostRace
			} else if !errors.Is(err, domain.ErrNotFound) {
				return err
			}
			if domain.Status(status) != domain.StatusApproved {
				return domain.ErrNotRefundable
			}
			var refunded int64
			if err := tx.QueryRow(ctx, `SELECT coalesce(sum(amount_cents), 0) FROM refunds
				WHERE charge_id = $1 AND status <> 'declined'`, r.ChargeID).Scan(&refunded); err != nil {
				return err
			}
			if refunded+r.Amount.Cents() > charged {
				return domain.ErrRefundExceedsCharge
			}
			_, err = tx.Exec(ctx, `INSERT INTO refunds (id, idempotency_key, charge_id, amount_cents, reason, status, lease_until, attempts)
				VALUES ($1, $2, $3, $4, $5, 'pending', `+leaseExpr("6")+`, 1)`,
				id, r.IdempotencyKey, r.ChargeID, r.Amount.Cents(), r.Reason, lease.Milliseconds())
			if c, ok := platformpg.IsUniqueViolation(err); ok && c == "refunds_idempotency_key_key" {
				return errLostRace // the same key on another charge
			}
			return err
		})
		switch {
		case err == nil:
			rctx, cancel := leaseHeld(ctx)
			defer cancel()
			ref, err := refundWhere(rctx, s.pool, `WHERE r.id = $1`, id)
			return ref, err == nil, wrap("read refund", err)
		case errors.Is(err, errLostRace):
			continue
		default:
			return domain.Refund{}, false, wrap("record refund", err)
		}
	}
	return domain.Refund{}, false, errors.New("record refund: idempotency key kept changing hands")
}

// LeaseRefund implements app.Repository.
func (s *Store) LeaseRefund(ctx context.Context, id uuid.UUID, lease time.Duration) (domain.Refund, bool, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE refunds SET lease_until = `+leaseExpr("2")+`, attempts = attempts + 1, updated_at = now()
		WHERE id = $1 AND status = 'pending' AND (lease_until IS NULL OR lease_until <= now())`, id, lease.Milliseconds())
	if err != nil {
		return domain.Refund{}, false, wrap("lease refund", err)
	}
	rctx, cancel := leaseHeld(ctx)
	defer cancel()
	r, err := refundWhere(rctx, s.pool, `WHERE r.id = $1`, id)
	return r, tag.RowsAffected() == 1, wrap("read refund", err)
}

// CompleteRefund implements app.Repository.
func (s *Store) CompleteRefund(ctx context.Context, id uuid.UUID, o domain.Outcome) (domain.Refund, error) {
	_, err := s.pool.Exec(ctx, `UPDATE refunds SET status = $2, failure_code = $3, failure_message = $4,
		processor_reference = $5, lease_until = NULL, completed_at = now(), updated_at = now()
		WHERE id = $1 AND status = 'pending'`,
		id, string(outcomeStatus(o)), o.DeclineCode, o.DeclineMessage, o.Reference)
	if err != nil {
		return domain.Refund{}, wrap("complete refund", err)
	}
	r, err := refundWhere(ctx, s.pool, `WHERE r.id = $1`, id)
	return r, wrap("read refund", err)
}

// ReleaseRefund implements app.Repository.
func (s *Store) ReleaseRefund(ctx context.Context, id uuid.UUID) error {
	_, err := s.pool.Exec(ctx, `UPDATE refunds SET lease_until = NULL, updated_at = now() WHERE id = $1 AND status = 'pending'`, id)
	return wrap("release refund", err)
}
