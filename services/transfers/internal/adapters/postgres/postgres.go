// Package postgres stores transfers in the transfers schema: the repository of the app layer,
// with the outbox events of every change written in the same transaction, which wakes this
// process's worker after a commit that created work for it.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/thumela/thumela/services/platform/outbox"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
	"github.com/thumela/thumela/services/platform/seal"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/events"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations is the transfers schema's own migration set.
var Migrations = platformpg.MigrationSet{Name: "transfers", FS: mustSub(migrationFiles, "migrations")}

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err) // embedded at build time
	}
	return sub
}

// userLockClass namespaces the per-sender advisory locks (two-int form, which never meets the
// platform's one-bigint locks).
const userLockClass = 0x7472_6e73 // "trns"

// Transfers implements app.Repository.
type Transfers struct {
	pool *pgxpool.Pool
	// sealTo is the notifications service's public key: the secrets of the notification
	// requests written with the changes (the voucher number and PIN) are sealed to it.
	sealTo seal.PublicKey
	// onWork are the functions called after a commit that created work for the worker.
	onWork atomic.Pointer[[]func()]
}

// NewTransfers returns the repository over pool (search_path = transfers); the notification
// requests it writes seal their secrets to sealTo, the notifications service's public key.
func NewTransfers(pool *pgxpool.Pool, sealTo seal.PublicKey) *Transfers {
	return &Transfers{pool: pool, sealTo: sealTo}
}

// OnWork registers fn (the worker's Notify) to be called after every commit, through this
// repository, that creates work for the worker: a new transfer, a refund owed (a cancel or an
// expiry). fn runs in the committing goroutine and must not block.
//
// This replaces pg_notify, whose commit-time lock serialises every committing transaction of
// the server: the wake-up is in-process only (platform postgres.OnCommit). Work committed by a
// replica that stops before processing it is found by the other replicas' sweeps
// (TRANSFERS_WORKER_SWEEP), and a job a dead replica had claimed once its lease passes.
func (r *Transfers) OnWork(fn func()) {
	for {
		old := r.onWork.Load()
		var fns []func()
		if old != nil {
			fns = append(fns, *old...)
		}
		fns = append(fns, fn)
		if r.onWork.CompareAndSwap(old, &fns) {
			return
		}
	}
}

// wakeOnCommit arranges for the OnWork functions to run once tx commits. Every transaction
// here comes from InTx, which runs the hook; were one not to, the sweep would find the work.
func (r *Transfers) wakeOnCommit(tx pgx.Tx) {
	platformpg.OnCommit(tx, func() {
		if fns := r.onWork.Load(); fns != nil {
			for _, fn := range *fns {
				fn()
			}
		}
	})
}

var _ app.Repository = (*Transfers)(nil)

const columns = `id, user_id, idempotency_key, request_hash, sender_name, recipient_name, recipient_phone, bank,
	amount_cents, bank_fee_cents, platform_fee_cents, fee_waived, status, failure_reason,
	payment_method_id, payment_method_name, payment_method_last_four, payment_method_token,
	location_name, location_type, charge_id, attempts, lease_until,
	voucher_number, voucher_pin_hash, collection_status, voucher_expires_at, collected_at,
	refund_status, refund_id, refund_reason, created_at, updated_at, trace_context,
	voucher_failed_attempts, voucher_locked_until, collected_atm_id, sender_first_name, sender_email`

func scan(row pgx.CollectableRow) (*domain.Transfer, error) {
	var (
		s                                        domain.State
		phone, bank, status                      string
		amount, bankFee, platformFee             int64
		lease, expires, collected, locked        *time.Time
		voucherNumber, pinHash, collection, refd *string
		atmID                                    *string
	)
	err := row.Scan(&s.ID, &s.UserID, &s.IdempotencyKey, &s.RequestHash, &s.SenderName, &s.RecipientName, &phone, &bank,
		&amount, &bankFee, &platformFee, &s.Fee.Waived, &status, &s.FailureReason,
		&s.PaymentMethod.ID, &s.PaymentMethod.Name, &s.PaymentMethod.LastFour, &s.PaymentMethod.Token,
		&s.Location.Name, &s.Location.Type, &s.ChargeID, &s.Attempts, &lease,
		&voucherNumber, &pinHash, &collection, &expires, &collected,
		&refd, &s.Refund.ID, &s.Refund.Reason, &s.CreatedAt, &s.UpdatedAt, &s.TraceContext,
		&s.Voucher.FailedAttempts, &locked, &atmID, &s.SenderFirstName, &s.SenderEmail)
	if err != nil {
		return nil, err
	}
	s.RecipientPhone = domain.PhoneFromE164(phone)
	s.Bank, s.Status = domain.Bank(bank), domain.Status(status)
	s.Amount, s.Fee.BankFee, s.Fee.PlatformFee = domain.Cents(amount), domain.Cents(bankFee), domain.Cents(platformFee)
	s.LeaseUntil = deref(lease)
	s.Voucher = domain.Voucher{
		Number: derefS(voucherNumber), PINHash: derefS(pinHash), Status: domain.CollectionStatus(derefS(collection)),
		ExpiresAt: deref(expires), CollectedAt: deref(collected),
		FailedAttempts: s.Voucher.FailedAttempts, LockedUntil: deref(locked), CollectedATM: derefS(atmID),
	}
	s.Refund.Status = domain.RefundStatus(derefS(refd))
	return domain.Restore(s), nil
}

func deref(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

func derefS(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// FindByKey implements app.Repository.
func (r *Transfers) FindByKey(ctx context.Context, userID uuid.UUID, key string) (*domain.Transfer, error) {
	return r.one(ctx, r.pool, `SELECT `+columns+` FROM transfers WHERE user_id = $1 AND idempotency_key = $2`, userID, key)
}

// Get implements app.Repository.
func (r *Transfers) Get(ctx context.Context, userID, id uuid.UUID) (*domain.Transfer, error) {
	return r.one(ctx, r.pool, `SELECT `+columns+` FROM transfers WHERE id = $1 AND user_id = $2`, id, userID)
}

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

func (r *Transfers) one(ctx context.Context, q querier, sql string, args ...any) (*domain.Transfer, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("read transfer: %w", err)
	}
	t, err := pgx.CollectExactlyOneRow(rows, scan)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, domain.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read transfer: %w", err)
	}
	return t, nil
}

// counts is the condition for a transfer to count against the limits: not failed, and its
// voucher not cancelled or expired (the money went back).
const counts = `status <> 'failed' AND (collection_status IS NULL OR collection_status NOT IN ('cancelled', 'expired'))`

// usageSQL sums the sender's amounts per period ($2 day, $3 month, $4 year starts) and tells
// whether they have any transfer that has not failed (the first-transfer waiver is used),
// in one round trip.
const usageSQL = `SELECT
	coalesce(sum(amount_cents) FILTER (WHERE created_at >= $2), 0),
	coalesce(sum(amount_cents) FILTER (WHERE created_at >= $3), 0),
	coalesce(sum(amount_cents), 0),
	EXISTS (SELECT 1 FROM transfers WHERE user_id = $1 AND status <> 'failed')
	FROM transfers WHERE user_id = $1 AND created_at >= $4 AND ` + counts

func scanUsage(row pgx.Row) (app.UserState, error) {
	var (
		day, month, year int64
		st               app.UserState
	)
	if err := row.Scan(&day, &month, &year, &st.HasTransferred); err != nil {
		return app.UserState{}, fmt.Errorf("usage: %w", err)
	}
	st.Usage = domain.Usage{Day: domain.Cents(day), Month: domain.Cents(month), Year: domain.Cents(year)}
	return st, nil
}

// Usage implements app.Repository.
func (r *Transfers) Usage(ctx context.Context, userID uuid.UUID, p domain.Periods) (domain.Usage, error) {
	st, err := scanUsage(r.pool.QueryRow(ctx, usageSQL, userID, p.DayStart, p.MonthStart, p.YearStart))
	return st.Usage, err
}

// Create implements app.Repository. The transaction takes an advisory lock on the sender
// first, so the idempotency look-up, the limits and the waiver are decided on a usage no
// concurrent create of the same sender can change before this one commits. The lock, the
// look-up and the usage travel in one batch, then the insert and the outbox event; the commit
// wakes this process's worker.
func (r *Transfers) Create(ctx context.Context, userID uuid.UUID, key string, p domain.Periods,
	decide func(app.UserState) (*domain.Transfer, error)) (*domain.Transfer, bool, error) {
	var (
		out      *domain.Transfer
		replayed bool
	)
	err := platformpg.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		batch := &pgx.Batch{}
		batch.Queue(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, int32(userLockClass), userID.String())
		batch.Queue(`SELECT `+columns+` FROM transfers WHERE user_id = $1 AND idempotency_key = $2`, userID, key)
		batch.Queue(usageSQL, userID, p.DayStart, p.MonthStart, p.YearStart)
		br := tx.SendBatch(ctx, batch)
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			return fmt.Errorf("lock sender: %w", err)
		}
		existing, err := r.one(ctx, batchQuerier{br}, "")
		if err != nil && !errors.Is(err, domain.ErrNotFound) {
			_ = br.Close()
			return err
		}
		st, err := scanUsage(br.QueryRow())
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if existing != nil {
			out, replayed = existing, true
			return nil
		}
		t, err := decide(st)
		if err != nil {
			return err
		}
		if err := insert(ctx, tx, t); err != nil {
			return err
		}
		if err := r.writeEvents(ctx, tx, t); err != nil {
			return err
		}
		r.wakeOnCommit(tx)
		out = t
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return out, replayed, nil
}

// batchQuerier reads the next result of a batch as if it were a query.
type batchQuerier struct{ br pgx.BatchResults }

func (b batchQuerier) Query(context.Context, string, ...any) (pgx.Rows, error) { return b.br.Query() }

// insert inserts t.
func insert(ctx context.Context, tx pgx.Tx, t *domain.Transfer) error {
	s := t.State()
	_, err := tx.Exec(ctx, `INSERT INTO transfers (id, user_id, idempotency_key, request_hash, sender_name,
		recipient_name, recipient_phone, bank, amount_cents, bank_fee_cents, platform_fee_cents, fee_cents,
		total_cents, fee_waived, status, payment_method_id, payment_method_name, payment_method_last_four,
		payment_method_token, location_name, location_type, created_at, updated_at, trace_context,
		sender_first_name, sender_email)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24,
		$25, $26)`,
		s.ID, s.UserID, s.IdempotencyKey, s.RequestHash, s.SenderName,
		s.RecipientName, s.RecipientPhone.E164(), string(s.Bank), s.Amount.Cents(), s.Fee.BankFee.Cents(), s.Fee.PlatformFee.Cents(),
		s.Fee.Charged().Cents(), t.Total().Cents(), s.Fee.Waived, string(s.Status), s.PaymentMethod.ID, s.PaymentMethod.Name,
		s.PaymentMethod.LastFour, s.PaymentMethod.Token, s.Location.Name, s.Location.Type, s.CreatedAt, s.UpdatedAt,
		traceContextArg(s.TraceContext), s.SenderFirstName, s.SenderEmail)
	if err != nil {
		return fmt.Errorf("insert transfer: %w", err)
	}
	return nil
}

// traceContextArg is the trace_context column's value: SQL NULL when there is none.
func traceContextArg(tc map[string]string) any {
	if len(tc) == 0 {
		return nil
	}
	return tc
}

func (r *Transfers) writeEvents(ctx context.Context, tx pgx.Tx, t *domain.Transfer) error {
	msgs, err := events.Messages(t, t.TakeEvents(), r.sealTo)
	if err != nil {
		return err
	}
	return outbox.Write(ctx, tx, msgs...)
}

// save writes the mutable fields of t, guarded by the status it had when it was locked (was),
// and its events under ctx's trace context; a refund that became owed wakes the worker on
// commit.
func (r *Transfers) save(ctx context.Context, tx pgx.Tx, t *domain.Transfer, was domain.State) error {
	s := t.State()
	tag, err := tx.Exec(ctx, `UPDATE transfers SET status = $3, failure_reason = $4, charge_id = $5, attempts = $6,
		lease_until = $7, voucher_number = $8, voucher_pin_hash = $9, collection_status = $10,
		voucher_expires_at = $11, collected_at = $12, refund_status = $13, refund_id = $14, refund_reason = $15,
		updated_at = $16, voucher_failed_attempts = $17, voucher_locked_until = $18, collected_atm_id = $19
		WHERE id = $1 AND status = $2`,
		s.ID, string(was.Status), string(s.Status), s.FailureReason, s.ChargeID, s.Attempts,
		nullTime(s.LeaseUntil), nullString(s.Voucher.Number), nullString(s.Voucher.PINHash), nullString(string(s.Voucher.Status)),
		nullTime(s.Voucher.ExpiresAt), nullTime(s.Voucher.CollectedAt), nullString(string(s.Refund.Status)), s.Refund.ID, s.Refund.Reason,
		s.UpdatedAt, s.Voucher.FailedAttempts, nullTime(s.Voucher.LockedUntil), nullString(s.Voucher.CollectedATM))
	if constraint, ok := platformpg.IsUniqueViolation(err); ok && constraint == "transfers_voucher_number_key" {
		return domain.ErrVoucherNumberTaken
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && strings.HasSuffix(pgErr.ConstraintName, "_transition") {
		return fmt.Errorf("%w: %s", domain.ErrInvalidTransition, pgErr.Message)
	}
	if err != nil {
		return fmt.Errorf("update transfer: %w", err)
	}
	if tag.RowsAffected() != 1 {
		return fmt.Errorf("%w: status of %s changed under its lock", domain.ErrInvalidTransition, s.ID)
	}
	if err := r.writeEvents(ctx, tx, t); err != nil {
		return err
	}
	if s.Refund.Status == domain.RefundPending && was.Refund.Status != domain.RefundPending {
		r.wakeOnCommit(tx)
	}
	return nil
}

// Update implements app.Repository.
func (r *Transfers) Update(ctx context.Context, userID, id uuid.UUID, fn func(*domain.Transfer) error) (*domain.Transfer, error) {
	var out *domain.Transfer
	err := platformpg.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		sql, args := `SELECT `+columns+` FROM transfers WHERE id = $1 FOR UPDATE`, []any{id}
		if userID != uuid.Nil {
			sql, args = `SELECT `+columns+` FROM transfers WHERE id = $1 AND user_id = $2 FOR UPDATE`, []any{id, userID}
		}
		t, err := r.one(ctx, tx, sql, args...)
		if err != nil {
			return err
		}
		was := t.State()
		if err := fn(t); err != nil {
			return err
		}
		if err := r.save(ctx, tx, t, was); err != nil {
			return err
		}
		out = t
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CollectVoucher implements app.Repository. The row is locked (FOR UPDATE) before fn judges the
// attempt, so attempts on one voucher run one after the other: concurrent wrong PINs are each
// counted on the count the previous one left, and of two concurrent right ones the second finds
// the voucher collected. A failed attempt fn recorded is committed although fn failed.
func (r *Transfers) CollectVoucher(ctx context.Context, number string, fn func(*domain.Transfer) error) (*domain.Transfer, error) {
	var (
		out    *domain.Transfer
		refuse error
	)
	err := platformpg.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		t, err := r.one(ctx, tx, `SELECT `+columns+` FROM transfers WHERE voucher_number = $1 FOR UPDATE`, number)
		if err != nil {
			return err
		}
		was := t.State()
		refuse = fn(t)
		if refuse != nil && t.Voucher() == was.Voucher {
			return refuse // nothing to record: roll back
		}
		if err := r.save(ctx, tx, t, was); err != nil {
			return err
		}
		out = t
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, refuse
}

// change applies fn to t, locked in tx, and saves it, through step when there is one (the
// worker's traced step, whose context the events then carry).
func (r *Transfers) change(ctx context.Context, tx pgx.Tx, t *domain.Transfer, step app.Step, fn func(*domain.Transfer) error) error {
	apply := func(ctx context.Context) error {
		was := t.State()
		if err := fn(t); err != nil {
			return err
		}
		return r.save(ctx, tx, t, was)
	}
	if step == nil {
		return apply(ctx)
	}
	return step(ctx, t, apply)
}

// claim locks the first row of sql that no one else has locked, applies fn and saves it.
func (r *Transfers) claim(ctx context.Context, sql string, now time.Time, step app.Step, fn func(*domain.Transfer) error) (*domain.Transfer, error) {
	var out *domain.Transfer
	err := platformpg.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		t, err := r.one(ctx, tx, sql, now)
		if errors.Is(err, domain.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := r.change(ctx, tx, t, step, fn); err != nil {
			return err
		}
		out = t
		return nil
	})
	return out, err
}

// ClaimCharge implements app.Repository: the oldest pending transfer, or a processing one
// whose lease has passed.
func (r *Transfers) ClaimCharge(ctx context.Context, now, leaseUntil time.Time, step app.Step) (*domain.Transfer, error) {
	return r.claim(ctx, `SELECT `+columns+` FROM transfers
		WHERE status IN ('pending', 'processing') AND (status = 'pending' OR lease_until <= $1)
		ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED`, now, step,
		func(t *domain.Transfer) error { return t.ClaimCharge(now, leaseUntil) })
}

// ClaimRefund implements app.Repository.
func (r *Transfers) ClaimRefund(ctx context.Context, now, leaseUntil time.Time, step app.Step) (*domain.Transfer, error) {
	return r.claim(ctx, `SELECT `+columns+` FROM transfers
		WHERE refund_status = 'pending' AND (lease_until IS NULL OR lease_until <= $1)
		ORDER BY lease_until NULLS FIRST LIMIT 1 FOR UPDATE SKIP LOCKED`, now, step,
		func(t *domain.Transfer) error { return t.ClaimRefund(now, leaseUntil) })
}

// ExpireDue implements app.Repository: one transaction per batch; each expiry owes a refund,
// which the commit announces to the worker.
func (r *Transfers) ExpireDue(ctx context.Context, now time.Time, limit int, step app.Step) (int, error) {
	n := 0
	err := platformpg.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT `+columns+` FROM transfers
			WHERE collection_status = 'awaiting_collection' AND voucher_expires_at <= $1
			ORDER BY voucher_expires_at LIMIT $2 FOR UPDATE SKIP LOCKED`, now, limit)
		if err != nil {
			return fmt.Errorf("due vouchers: %w", err)
		}
		due, err := pgx.CollectRows(rows, scan)
		if err != nil {
			return fmt.Errorf("due vouchers: %w", err)
		}
		for _, t := range due {
			if err := r.change(ctx, tx, t, step, func(t *domain.Transfer) error { return t.Expire(now) }); err != nil {
				return err
			}
		}
		n = len(due)
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// List implements app.Repository: the count and the page read one snapshot.
func (r *Transfers) List(ctx context.Context, userID uuid.UUID, f app.ListFilter) ([]*domain.Transfer, int, error) {
	where, args := []string{"user_id = $1"}, []any{userID}
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if f.Status != "" {
		where = append(where, "status = "+arg(string(f.Status)))
	}
	if q := f.Query; q != "" {
		like := "%" + escapeLike(q) + "%"
		p := arg(like)
		conds := []string{"recipient_name ILIKE " + p, "recipient_phone LIKE " + p}
		if digits := onlyDigits(q); digits != "" && digits != q {
			conds = append(conds, "recipient_phone LIKE "+arg("%"+digits+"%"))
		}
		if digits := onlyDigits(q); len(digits) > 1 && digits[0] == '0' {
			// National notation: "082…" is "+2782…".
			conds = append(conds, "recipient_phone LIKE "+arg("+27"+digits[1:]+"%"))
		}
		where = append(where, "("+strings.Join(conds, " OR ")+")")
	}
	cond := strings.Join(where, " AND ")
	// One statement, so one round trip and one snapshot: the uncorrelated count runs once (an
	// InitPlan) and rides on every row of the page. This is the history page's hot path; an
	// explicit READ ONLY transaction around two statements cost four round trips.
	pageArgs := append(append([]any{}, args...), f.Limit, f.Offset)
	rows, err := r.pool.Query(ctx, `SELECT (SELECT count(*) FROM transfers WHERE `+cond+`), `+columns+
		` FROM transfers WHERE `+cond+
		fmt.Sprintf(` ORDER BY created_at DESC, id DESC LIMIT $%d OFFSET $%d`, len(args)+1, len(args)+2), pageArgs...)
	if err != nil {
		return nil, 0, fmt.Errorf("list transfers: %w", err)
	}
	var total int
	list, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*domain.Transfer, error) {
		return scan(countedRow{CollectableRow: row, total: &total})
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list transfers: %w", err)
	}
	if len(list) == 0 {
		// No history, or a page past the end: the page carried no count, so ask for it alone.
		if err := r.pool.QueryRow(ctx, `SELECT count(*) FROM transfers WHERE `+cond, args...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("list transfers: count: %w", err)
		}
	}
	return list, total, nil
}

// countedRow scans a row whose first column is the list's total count into total, and the
// rest as a transfer row, so scan stays the one place that knows the columns.
type countedRow struct {
	pgx.CollectableRow
	total *int
}

func (r countedRow) Scan(dest ...any) error {
	return r.CollectableRow.Scan(append([]any{r.total}, dest...)...)
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

func onlyDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}
