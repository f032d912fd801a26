// Package postgres stores transfers in the transfers schema: the repository of the app layer,
// with the outbox events of every change written in the same transaction, which wakes this
// process's worker after a commit that created work for it.
package postgres

import (
	"bytes"
	"context"
	"crypto/sha256"
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
	// referralReward is what a referrer is paid at their friend's first completion (credit.go).
	referralReward domain.Money
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
	voucher_failed_attempts, voucher_locked_until, collected_atm_id, sender_first_name, sender_email,
	collected_location, collected_rrn, sender_pin_hash, voucher_resends, recipient_phone_changes, reminder_sent_at,
	recipient_known_confirmed, save_recipient, schedule_id, occurrence_date, credit_applied_cents, fee_schedule_version`

func scan(row pgx.CollectableRow) (*domain.Transfer, error) {
	var (
		s                                        domain.State
		phone, bank, status                      string
		amount, bankFee, platformFee             int64
		lease, expires, collected, locked        *time.Time
		voucherNumber, pinHash, collection, refd *string
		atmID, location, rrn, senderPIN          *string
		reminded                                 *time.Time
		scheduleID                               *uuid.UUID
		occurrence                               *time.Time
		creditApplied                            int64
	)
	err := row.Scan(&s.ID, &s.UserID, &s.IdempotencyKey, &s.RequestHash, &s.SenderName, &s.RecipientName, &phone, &bank,
		&amount, &bankFee, &platformFee, &s.Fee.Waived, &status, &s.FailureReason,
		&s.PaymentMethod.ID, &s.PaymentMethod.Name, &s.PaymentMethod.LastFour, &s.PaymentMethod.Token,
		&s.Location.Name, &s.Location.Type, &s.ChargeID, &s.Attempts, &lease,
		&voucherNumber, &pinHash, &collection, &expires, &collected,
		&refd, &s.Refund.ID, &s.Refund.Reason, &s.CreatedAt, &s.UpdatedAt, &s.TraceContext,
		&s.Voucher.FailedAttempts, &locked, &atmID, &s.SenderFirstName, &s.SenderEmail,
		&location, &rrn, &senderPIN, &s.Voucher.Resends, &s.Voucher.PhoneChanges, &reminded,
		&s.RecipientKnownConfirmed, &s.SaveRecipient, &scheduleID, &occurrence, &creditApplied, &s.Fee.ScheduleVersion)
	if err != nil {
		return nil, err
	}
	if scheduleID != nil && occurrence != nil {
		s.ScheduleID, s.OccurrenceDate = *scheduleID, domain.DateFromTime(*occurrence)
	}
	s.CreditApplied = domain.Cents(creditApplied)
	s.RecipientPhone = domain.PhoneFromE164(phone)
	s.Bank, s.Status = domain.Bank(bank), domain.Status(status)
	s.Amount, s.Fee.BankFee, s.Fee.PlatformFee = domain.Cents(amount), domain.Cents(bankFee), domain.Cents(platformFee)
	s.LeaseUntil = deref(lease)
	s.SenderPINHash = derefS(senderPIN)
	s.Voucher = domain.Voucher{
		Number: derefS(voucherNumber), PINHash: derefS(pinHash), Status: domain.CollectionStatus(derefS(collection)),
		ExpiresAt: deref(expires), CollectedAt: deref(collected),
		FailedAttempts: s.Voucher.FailedAttempts, LockedUntil: deref(locked), CollectedATM: derefS(atmID),
		CollectedLocation: derefS(location), CollectedRRN: derefS(rrn),
		PINChosenBySender: voucherNumber != nil && s.SenderPINHash != "",
		Resends:           s.Voucher.Resends, PhoneChanges: s.Voucher.PhoneChanges, ReminderSentAt: deref(reminded),
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

// ownedByID is the condition that finds one of the sender's transfers by its id ($1, the sender
// $2): through the primary key, the sender checked on the row. Written as "user_id = $2", the
// generic plan PostgreSQL made on a new, empty table (a fresh deploy) probed
// transfers_user_created_idx instead (user_id, created_at, id: the two cost the same there) and
// kept that plan as the table grew, so every look-up of one transfer read the sender's whole
// history in that index. IS NOT DISTINCT FROM is the same test for a NOT NULL column, and no
// index can answer it, so the primary key is the only way in (TestOneTransferPlansUseThePrimaryKey).
const ownedByID = `id = $1 AND user_id IS NOT DISTINCT FROM $2`

// getSQL is Get's statement.
const getSQL = `SELECT ` + columns + ` FROM transfers WHERE ` + ownedByID

// lockOwnedSQL is Update's statement for a sender's transfer: the row, locked.
const lockOwnedSQL = getSQL + ` FOR UPDATE`

// Get implements app.Repository.
func (r *Transfers) Get(ctx context.Context, userID, id uuid.UUID) (*domain.Transfer, error) {
	return r.one(ctx, r.pool, getSQL, id, userID)
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

// paidPhoneSQL tells whether the sender ($1) has a charged transfer to the phone ($2): one
// probe of transfers_paid_phone_idx (0007), however long the sender's history.
const paidPhoneSQL = `SELECT EXISTS (SELECT 1 FROM transfers
	WHERE user_id = $1 AND recipient_phone = $2 AND status = 'completed')`

// PaidPhone implements app.Repository.
func (r *Transfers) PaidPhone(ctx context.Context, userID uuid.UUID, phone domain.Phone) (bool, error) {
	var paid bool
	if err := r.pool.QueryRow(ctx, paidPhoneSQL, userID, phone.E164()).Scan(&paid); err != nil {
		return false, fmt.Errorf("phone history: %w", err)
	}
	return paid, nil
}

// Create implements app.Repository. The transaction takes an advisory lock on the sender
// first, so the limits, the waiver and the step-up are decided on a history no concurrent create
// of the same sender can change before this one commits. BEGIN, the lock, the usage, the phone's
// history and the credit travel in one batch, then the insert, the outbox event and COMMIT in
// another; the commit wakes this process's worker.
//
// The idempotency key is not looked up first: a retry is rare, and the look-up cost every create
// a statement (and, with a generic plan made while the table was new, a scan of the sender's
// history). The key's unique constraint answers instead: a create whose key is taken fails (its
// insert, or its decision, rolls the transaction back), and then, and whenever anything refuses a
// create, the key is looked up, and a transfer found under it is the answer (replayed), whatever
// refused the repeat: a retry is never refused by limits or checks its first request passed.
func (r *Transfers) Create(ctx context.Context, userID uuid.UUID, key string, phone domain.Phone, p domain.Periods,
	decide func(app.UserState) (*domain.Transfer, error)) (*domain.Transfer, bool, error) {
	var out *domain.Transfer
	err := platformpg.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		batch := &pgx.Batch{}
		batch.Queue(`SELECT pg_advisory_xact_lock($1, hashtext($2))`, int32(userLockClass), userID.String())
		batch.Queue(usageSQL, usageArgs(userID, p)...)
		batch.Queue(paidPhoneSQL, userID, phone.E164())
		batch.Queue(accountBalanceSQL, domain.UserAccount(userID))
		br := tx.SendBatch(ctx, batch)
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			return fmt.Errorf("lock sender: %w", err)
		}
		var credit int64
		st, err := scanUsage(br.QueryRow())
		if err == nil {
			if err = br.QueryRow().Scan(&st.PaidPhoneBefore); err != nil {
				err = fmt.Errorf("phone history: %w", err)
			}
		}
		if err == nil {
			if err = br.QueryRow().Scan(&credit); err != nil {
				err = fmt.Errorf("read credit: %w", err)
			}
		}
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		t, err := decide(st)
		if err != nil {
			return err
		}
		// The sender's credit pays first, in this transaction (credit.go).
		if err := spendCredit(ctx, tx, t, credit); err != nil {
			return err
		}
		// The row, its events and the commit: one round trip.
		b := &pgx.Batch{}
		var reads []func(pgx.BatchResults) error
		if err := queueChecked(b, &reads, "insert transfer", func() error { queueInsert(b, t); return nil }); err != nil {
			return err
		}
		if err := r.queueEvents(ctx, tx, b, &reads, t); err != nil {
			return err
		}
		platformpg.CommitWith(tx, b)
		if err := sendQueued(ctx, tx, b, reads); err != nil {
			return err
		}
		r.wakeOnCommit(tx)
		out = t
		return nil
	})
	if err != nil {
		// A repeat of a transfer already made: the transfer is the answer, not the refusal.
		if existing, ferr := r.FindByKey(ctx, userID, key); ferr == nil {
			return existing, true, nil
		}
		return nil, false, err
	}
	return out, false, nil
}

// queueInsert queues t's insert on b.
func queueInsert(b *pgx.Batch, t *domain.Transfer) {
	s := t.State()
	b.Queue(`INSERT INTO transfers (id, user_id, idempotency_key, request_hash, sender_name,
		recipient_name, recipient_phone, bank, amount_cents, bank_fee_cents, platform_fee_cents, fee_cents,
		total_cents, fee_waived, status, payment_method_id, payment_method_name, payment_method_last_four,
		payment_method_token, location_name, location_type, created_at, updated_at, trace_context,
		sender_first_name, sender_email, sender_pin_hash, recipient_known_confirmed, save_recipient,
		schedule_id, occurrence_date, credit_applied_cents, fee_schedule_version)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24,
		$25, $26, $27, $28, $29, $30, $31, $32, $33)`,
		s.ID, s.UserID, s.IdempotencyKey, s.RequestHash, s.SenderName,
		s.RecipientName, s.RecipientPhone.E164(), string(s.Bank), s.Amount.Cents(), s.Fee.BankFee.Cents(), s.Fee.PlatformFee.Cents(),
		s.Fee.Charged().Cents(), t.Total().Cents(), s.Fee.Waived, string(s.Status), s.PaymentMethod.ID, s.PaymentMethod.Name,
		s.PaymentMethod.LastFour, s.PaymentMethod.Token, s.Location.Name, s.Location.Type, s.CreatedAt, s.UpdatedAt,
		traceContextArg(s.TraceContext), s.SenderFirstName, s.SenderEmail, nullString(s.SenderPINHash), s.RecipientKnownConfirmed,
		s.SaveRecipient, nullUUID(s.ScheduleID), nullDate(s.OccurrenceDate), s.CreditApplied.Cents(), s.Fee.ScheduleVersion)
}

// traceContextArg is the trace_context column's value: SQL NULL when there is none.
func traceContextArg(tc map[string]string) any {
	if len(tc) == 0 {
		return nil
	}
	return tc
}

func (r *Transfers) writeEvents(ctx context.Context, tx pgx.Tx, t *domain.Transfer) error {
	b := &pgx.Batch{}
	var reads []func(pgx.BatchResults) error
	if err := r.queueEvents(ctx, tx, b, &reads, t); err != nil {
		return err
	}
	return sendQueued(ctx, tx, b, reads)
}

// queueEvents is writeEvents into the caller's batch b, with the checks of their results added
// to reads.
func (r *Transfers) queueEvents(ctx context.Context, tx pgx.Tx, b *pgx.Batch, reads *[]func(pgx.BatchResults) error, t *domain.Transfer) error {
	msgs, err := events.Messages(t, t.TakeEvents(), r.sealTo)
	if err != nil {
		return err
	}
	return queueChecked(b, reads, "write events", func() error { return outbox.Queue(ctx, tx, b, msgs...) })
}

// updateSQL writes the mutable fields of a transfer, guarded by the status it had when it was
// read ($2); updateArgs gives its arguments. The worker's own writes add a guard on the
// attempt it claimed (worker.go).
const updateSQL = `UPDATE transfers SET status = $3, failure_reason = $4, charge_id = $5, attempts = $6,
		lease_until = $7, voucher_number = $8, voucher_pin_hash = $9, collection_status = $10,
		voucher_expires_at = $11, collected_at = $12, refund_status = $13, refund_id = $14, refund_reason = $15,
		updated_at = $16, voucher_failed_attempts = $17, voucher_locked_until = $18, collected_atm_id = $19,
		collected_location = $20, collected_rrn = $21, voucher_resends = $22, recipient_phone_changes = $23,
		reminder_sent_at = $24, recipient_phone = $25
		WHERE id = $1 AND status = $2`

func updateArgs(t *domain.Transfer, was domain.State) []any {
	s := t.State()
	return []any{s.ID, string(was.Status), string(s.Status), s.FailureReason, s.ChargeID, s.Attempts,
		nullTime(s.LeaseUntil), nullString(s.Voucher.Number), nullString(s.Voucher.PINHash), nullString(string(s.Voucher.Status)),
		nullTime(s.Voucher.ExpiresAt), nullTime(s.Voucher.CollectedAt), nullString(string(s.Refund.Status)), s.Refund.ID, s.Refund.Reason,
		s.UpdatedAt, s.Voucher.FailedAttempts, nullTime(s.Voucher.LockedUntil), nullString(s.Voucher.CollectedATM),
		nullString(s.Voucher.CollectedLocation), nullString(s.Voucher.CollectedRRN), s.Voucher.Resends, s.Voucher.PhoneChanges,
		nullTime(s.Voucher.ReminderSentAt), s.RecipientPhone.E164()}
}

// updateError translates the errors of updateSQL: a voucher number already in use, a
// transition the database's guard refuses.
func updateError(err error) error {
	if constraint, ok := platformpg.IsUniqueViolation(err); ok && constraint == "transfers_voucher_number_key" {
		return domain.ErrVoucherNumberTaken
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && strings.HasSuffix(pgErr.ConstraintName, "_transition") {
		return fmt.Errorf("%w: %s", domain.ErrInvalidTransition, pgErr.Message)
	}
	return fmt.Errorf("update transfer: %w", err)
}

// save writes the mutable fields of t, guarded by the status it had when it was locked (was),
// and its events under ctx's trace context; a refund that became owed wakes the worker on
// commit.
func (r *Transfers) save(ctx context.Context, tx pgx.Tx, t *domain.Transfer, was domain.State) error {
	if err := lockCreditReturn(ctx, tx, t, was); err != nil {
		return err
	}
	tag, err := tx.Exec(ctx, updateSQL, updateArgs(t, was)...)
	if err != nil {
		return updateError(err)
	}
	s := t.State()
	if tag.RowsAffected() != 1 {
		return fmt.Errorf("%w: status of %s changed under its lock", domain.ErrInvalidTransition, s.ID)
	}
	if err := r.writeEvents(ctx, tx, t); err != nil {
		return err
	}
	// The completion saves the recipient, and a change of phone number moves it, in this same
	// transaction (recipients.go).
	if err := r.saveRecipientOnCompletion(ctx, tx, t, was); err != nil {
		return err
	}
	if err := r.followPhoneChange(ctx, tx, t, was); err != nil {
		return err
	}
	// The credit returns with a failure, cancel or expiry, and a referrer's reward is paid with
	// the friend's first completion, in this same transaction (credit.go).
	if err := r.creditOnSave(ctx, tx, t, was); err != nil {
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
			sql, args = lockOwnedSQL, []any{id, userID}
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

// collectLockClass namespaces the advisory locks on ATM requests' (bank, retrieval reference).
const collectLockClass = 0x636f_6c6c // "coll"

// lockRequest serialises every transaction about the ATM request (bank, rrn) — its first
// answer, its repeats, its reversal — before any row is locked, so that the first answer is
// recorded before a repeat looks for it. The lock order is always request, then voucher.
func lockRequest(ctx context.Context, tx pgx.Tx, bank domain.Bank, rrn string) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, int32(collectLockClass), string(bank)+":"+rrn); err != nil {
		return fmt.Errorf("lock collection request: %w", err)
	}
	return nil
}

// storedRequest is a recorded ATM request, with its voucher's bank and amount (for a repeat's
// answer).
type storedRequest struct {
	stan        string
	digest      []byte
	transferID  *uuid.UUID
	outcome     string
	reason      string
	attempts    int
	lockedUntil *time.Time
	createdAt   time.Time
	reversedAt  *time.Time
	bank        *string
	amount      *int64
	// atmID and requested are the ATM and the amount the request asked for, as the ATM sent
	// them: what a reversal must repeat.
	atmID     string
	requested int64
}

func readRequest(ctx context.Context, tx pgx.Tx, bank domain.Bank, rrn string, forUpdate bool) (storedRequest, bool, error) {
	sql := `SELECT c.stan, c.request_digest, c.transfer_id, c.outcome, c.reason, c.attempts_left, c.locked_until,
		c.created_at, c.reversed_at, t.bank, t.amount_cents, c.atm_id, c.amount_cents
		FROM collection_requests c LEFT JOIN transfers t ON t.id = c.transfer_id
		WHERE c.bank = $1 AND c.retrieval_reference = $2`
	if forUpdate {
		sql += ` FOR UPDATE OF c`
	}
	var q storedRequest
	err := tx.QueryRow(ctx, sql, string(bank), rrn).Scan(&q.stan, &q.digest, &q.transferID, &q.outcome, &q.reason, &q.attempts,
		&q.lockedUntil, &q.createdAt, &q.reversedAt, &q.bank, &q.amount, &q.atmID, &q.requested)
	if errors.Is(err, pgx.ErrNoRows) {
		return storedRequest{}, false, nil
	}
	if err != nil {
		return storedRequest{}, false, fmt.Errorf("read collection request: %w", err)
	}
	return q, true, nil
}

// answer is the stored request's answer, as its first one was; a request whose collection was
// reversed is over, and its repeat is refused (never approved twice).
func (q storedRequest) answer() app.CollectOutcome {
	out := app.CollectOutcome{Replayed: true}
	if q.transferID != nil {
		out.TransferID = *q.transferID
	}
	switch {
	case q.outcome == "approved" && q.reversedAt == nil:
		out.Amount, out.CollectedAt = domain.Cents(derefI(q.amount)), q.createdAt
	case q.outcome == "approved":
		out.Refusal = &domain.Refusal{Reason: domain.RefusalReversed}
	default:
		out.Refusal = &domain.Refusal{Reason: domain.RefusalReason(q.reason), AttemptsLeft: q.attempts,
			LockedUntil: deref(q.lockedUntil), Bank: domain.Bank(derefS(q.bank)), Amount: domain.Cents(derefI(q.amount))}
	}
	return out
}

func derefI(i *int64) int64 {
	if i == nil {
		return 0
	}
	return *i
}

// unknownDigest keys the wrong-attempt count of a voucher number no voucher has.
func unknownDigest(number string) []byte {
	d := sha256.Sum256([]byte("thumela.transfers.unknown-voucher.v1\x00" + number))
	return d[:]
}

// Collect implements app.Repository. One transaction: the request's lock; a recorded request
// answers as it did (or is a conflict when it was another request); otherwise the voucher whose
// number was typed is locked (SELECT … FOR UPDATE; the number's UNIQUE constraint is its
// index), or the count of the unknown number (created when first tried), judge decides, and
// the voucher's change (a counted attempt, or the collection with its events), the unknown
// number's count and the request's outcome commit together. Attempts on one voucher run one
// after the other: concurrent wrong PINs are each counted on the count the previous one left,
// and of concurrent right ones the first collects and the others find it collected.
func (r *Transfers) Collect(ctx context.Context, req domain.CollectRequest, at time.Time, judge app.CollectJudge) (app.CollectOutcome, error) {
	var out app.CollectOutcome
	err := platformpg.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		out = app.CollectOutcome{}
		if err := lockRequest(ctx, tx, req.Bank(), req.RRN()); err != nil {
			return err
		}
		prior, found, err := readRequest(ctx, tx, req.Bank(), req.RRN(), false)
		if err != nil {
			return err
		}
		if found {
			if prior.stan != req.STAN() || !bytes.Equal(prior.digest, req.Digest()) {
				return domain.ErrCollectionConflict
			}
			out = prior.answer()
			return nil
		}
		// A request whose reversal came first (early_reversals, 0017) is over before it began:
		// refused as reversed, the voucher untouched and no attempt counted, every time.
		reversed, err := reversedEarly(ctx, tx, req)
		if err != nil {
			return err
		}
		if reversed {
			out.Refusal = &domain.Refusal{Reason: domain.RefusalReversed}
			return nil
		}

		var (
			t       *domain.Transfer
			was     domain.State
			unknown *domain.UnknownNumber
		)
		if req.ValidNumber() {
			t, err = r.one(ctx, tx, `SELECT `+columns+` FROM transfers WHERE voucher_number = $1 FOR UPDATE`, req.VoucherNumber())
			switch {
			case errors.Is(err, domain.ErrNotFound):
				t = nil
				if unknown, err = lockUnknown(ctx, tx, req.VoucherNumber(), at); err != nil {
					return err
				}
			case err != nil:
				return err
			default:
				was = t.State()
			}
		}
		judged := judge(t, unknown)
		refusal, refused := domain.RefusalOf(judged)
		if judged != nil && !refused {
			return judged
		}
		if t != nil && (!refused || t.Voucher() != was.Voucher) {
			if err := r.save(ctx, tx, t, was); err != nil {
				return err
			}
		}
		if unknown != nil {
			if _, err := tx.Exec(ctx, `UPDATE unknown_voucher_numbers SET failed_attempts = $2, locked_until = $3, updated_at = $4
				WHERE number_digest = $1`, unknownDigest(req.VoucherNumber()), unknown.FailedAttempts, nullTime(unknown.LockedUntil), at); err != nil {
				return fmt.Errorf("count unknown voucher number: %w", err)
			}
		}
		var transferID *uuid.UUID
		if t != nil {
			id := t.ID()
			transferID, out.TransferID = &id, id
		}
		outcome, reason := "approved", ""
		if refused {
			outcome, reason = "refused", string(refusal.Reason)
			out.Refusal = &refusal
		} else {
			out.Amount, out.CollectedAt = t.Amount(), t.Voucher().CollectedAt
		}
		if _, err := tx.Exec(ctx, `INSERT INTO collection_requests (bank, retrieval_reference, stan, request_digest, transfer_id,
			outcome, reason, attempts_left, locked_until, amount_cents, atm_id, atm_location, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
			string(req.Bank()), req.RRN(), req.STAN(), req.Digest(), transferID, outcome, reason, refusal.AttemptsLeft,
			nullTime(refusal.LockedUntil), req.Amount().Cents(), req.ATMID(), req.Location(), at); err != nil {
			return fmt.Errorf("record collection request: %w", err)
		}
		out.Transfer = t
		return nil
	})
	if err != nil {
		return app.CollectOutcome{}, err
	}
	return out, nil
}

// lockUnknown returns the wrong-attempt count of number, which no voucher has, locked (FOR
// UPDATE) for the transaction: created at zero when it is tried for the first time.
func lockUnknown(ctx context.Context, tx pgx.Tx, number string, at time.Time) (*domain.UnknownNumber, error) {
	digest := unknownDigest(number)
	if _, err := tx.Exec(ctx, `INSERT INTO unknown_voucher_numbers (number_digest, failed_attempts, updated_at)
		VALUES ($1, 0, $2) ON CONFLICT (number_digest) DO NOTHING`, digest, at); err != nil {
		return nil, fmt.Errorf("unknown voucher number: %w", err)
	}
	var (
		u      domain.UnknownNumber
		locked *time.Time
	)
	if err := tx.QueryRow(ctx, `SELECT failed_attempts, locked_until FROM unknown_voucher_numbers WHERE number_digest = $1 FOR UPDATE`,
		digest).Scan(&u.FailedAttempts, &locked); err != nil {
		return nil, fmt.Errorf("unknown voucher number: %w", err)
	}
	u.LockedUntil = deref(locked)
	return &u, nil
}

// reversedEarly reports whether a reversal of req (its bank, retrieval reference and STAN, and
// its ATM and amount) arrived before req did. Rows from before 0019 carry no ATM or amount and
// match on the references alone.
func reversedEarly(ctx context.Context, tx pgx.Tx, req domain.CollectRequest) (bool, error) {
	var reversed bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM early_reversals
		WHERE bank = $1 AND retrieval_reference = $2 AND stan = $3
		AND (atm_id IS NULL OR atm_id = $4) AND (amount_cents IS NULL OR amount_cents = $5))`,
		string(req.Bank()), req.RRN(), req.STAN(), req.ATMID(), req.Amount().Cents()).Scan(&reversed); err != nil {
		return false, fmt.Errorf("read early reversal: %w", err)
	}
	return reversed, nil
}

// recordEarlyReversal remembers a reversal of a request not seen yet; a repeat of the reversal
// keeps the first.
func recordEarlyReversal(ctx context.Context, tx pgx.Tx, key domain.ReversalKey, at time.Time) error {
	if _, err := tx.Exec(ctx, `INSERT INTO early_reversals (bank, retrieval_reference, stan, received_at, atm_id, amount_cents)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (bank, retrieval_reference) DO NOTHING`,
		string(key.Bank), key.RRN, key.STAN, at, key.ATMID, key.Amount.Cents()); err != nil {
		return fmt.Errorf("record early reversal: %w", err)
	}
	return nil
}

// errNothingToReverse rolls a reversal back that found the voucher no longer collected by the
// request it names.
var errNothingToReverse = errors.New("nothing to reverse")

// Reverse implements app.Repository. Under the request's lock: the request must be recorded as
// an approval with this STAN, not reversed yet; it is marked reversed first (the database's
// guard admits the voucher's way back only for a reversed request), then fn undoes the
// collection on the locked voucher, which is saved with its event. A request not recorded at
// all is remembered as reversed early (early_reversals), so that it collects nothing should it
// arrive after its reversal. Anything else changes nothing: reversed is false.
func (r *Transfers) Reverse(ctx context.Context, key domain.ReversalKey, at time.Time, fn func(*domain.Transfer) error) (uuid.UUID, bool, error) {
	var (
		id       uuid.UUID
		reversed bool
	)
	err := platformpg.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		id, reversed = uuid.Nil, false
		if err := lockRequest(ctx, tx, key.Bank, key.RRN); err != nil {
			return err
		}
		q, found, err := readRequest(ctx, tx, key.Bank, key.RRN, true)
		if err != nil {
			return err
		}
		if !found {
			// The reversal overtook its request: remembered, so that the request, should it
			// still come, collects nothing (Collect).
			return recordEarlyReversal(ctx, tx, key, at)
		}
		if q.outcome != "approved" || q.transferID == nil || q.stan != key.STAN {
			return nil
		}
		if !key.Matches(q.atmID, domain.Cents(q.requested), q.createdAt, at) {
			return domain.ErrReversalMismatch
		}
		id = *q.transferID
		if q.reversedAt != nil {
			return nil // a repeated reversal
		}
		if _, err := tx.Exec(ctx, `UPDATE collection_requests SET reversed_at = $3 WHERE bank = $1 AND retrieval_reference = $2`,
			string(key.Bank), key.RRN, at); err != nil {
			return fmt.Errorf("reverse collection request: %w", err)
		}
		t, err := r.one(ctx, tx, `SELECT `+columns+` FROM transfers WHERE id = $1 FOR UPDATE`, id)
		if err != nil {
			return err
		}
		was := t.State()
		if err := fn(t); errors.Is(err, domain.ErrNotCollectedByRequest) {
			return errNothingToReverse
		} else if err != nil {
			return err
		}
		if err := r.save(ctx, tx, t, was); err != nil {
			return err
		}
		if t.ExpiryDue(at) {
			r.wakeOnCommit(tx) // reversed past its expiry: the worker expires it at once
		}
		reversed = true
		return nil
	})
	if errors.Is(err, errNothingToReverse) {
		return id, false, nil
	}
	if err != nil {
		return uuid.Nil, false, err
	}
	return id, reversed, nil
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

// ClaimCharge and ClaimCharges are in worker.go.

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

// RemindDue implements app.Repository: one transaction per batch, like ExpireDue; each voucher
// awaiting collection that expires within domain.ReminderBefore and was not reminded is marked
// reminded with its SMS request, once (reminder_sent_at, and SKIP LOCKED between workers).
func (r *Transfers) RemindDue(ctx context.Context, now time.Time, limit int, step app.Step) (int, error) {
	n := 0
	err := platformpg.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT `+columns+` FROM transfers
			WHERE collection_status = 'awaiting_collection' AND reminder_sent_at IS NULL
			AND voucher_expires_at > $1 AND voucher_expires_at <= $2 AND created_at < voucher_expires_at - $3::interval
			ORDER BY voucher_expires_at LIMIT $4 FOR UPDATE SKIP LOCKED`, now, now.Add(domain.ReminderBefore), domain.ReminderBefore, limit)
		if err != nil {
			return fmt.Errorf("vouchers to remind: %w", err)
		}
		due, err := pgx.CollectRows(rows, scan)
		if err != nil {
			return fmt.Errorf("vouchers to remind: %w", err)
		}
		for _, t := range due {
			if err := r.change(ctx, tx, t, step, func(t *domain.Transfer) error { return t.Remind(now) }); err != nil {
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

// PruneCollectionRecords implements app.Repository: up to limit unknown numbers' counts and up to
// limit early reversals, in one statement; the larger of the two counts is returned, so that
// the worker asks again while either had a full batch.
func (r *Transfers) PruneCollectionRecords(ctx context.Context, before time.Time, limit int) (int, error) {
	var numbers, reversals int
	err := r.pool.QueryRow(ctx, pruneCollectionRecordsSQL, before, limit).Scan(&numbers, &reversals)
	if err != nil {
		return 0, fmt.Errorf("prune unknown voucher numbers and early reversals: %w", err)
	}
	return max(numbers, reversals), nil
}

// pruneCollectionRecordsSQL is PruneCollectionRecords' statement ($1 the cut-off, $2 the limit).
// The unknown numbers' counts (a row per number mistyped or guessed at an ATM) are taken oldest
// first from unknown_voucher_numbers_updated_idx and deleted through the primary key, as an array
// of keys: pgx prepares the statement, and on a new, empty table the generic plan of its earlier
// form, "number_digest IN (SELECT … LIMIT $2)", was a hash semi-join over a sequential scan of
// the whole table (and another scan for the batch), kept as the table grew
// (TestWorkerPlansUseTheirIndexes). The early reversals (only those that overtook their own
// request) stay few, and their half keeps its form.
const pruneCollectionRecordsSQL = `WITH numbers AS (
			DELETE FROM unknown_voucher_numbers WHERE number_digest = ANY(ARRAY(
				SELECT number_digest FROM unknown_voucher_numbers WHERE updated_at < $1 ORDER BY updated_at LIMIT $2))
			RETURNING 1),
		reversals AS (
			DELETE FROM early_reversals WHERE (bank, retrieval_reference) IN (
				SELECT bank, retrieval_reference FROM early_reversals WHERE received_at < $1 LIMIT $2)
			RETURNING 1)
		SELECT (SELECT count(*) FROM numbers), (SELECT count(*) FROM reversals)`

// List implements app.Repository: the count and the page read one snapshot.
func (r *Transfers) List(ctx context.Context, userID uuid.UUID, f app.ListFilter) ([]*domain.Transfer, int, error) {
	where, args := []string{"user_id = $1"}, []any{userID}
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	statuses := make([]string, len(f.Statuses))
	for i, s := range f.Statuses {
		statuses[i] = string(s)
	}
	if len(statuses) > 0 {
		where = append(where, "status = ANY("+arg(statuses)+")")
	}
	// The window rides on transfers_user_created_idx (user_id, created_at DESC, id DESC): a
	// statement reads a range of that index, whatever the sender's history before or after.
	if !f.Window.From.IsZero() {
		where = append(where, "created_at >= "+arg(f.Window.From))
	}
	if !f.Window.Before.IsZero() {
		where = append(where, "created_at < "+arg(f.Window.Before))
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
	// The total: without a search or a window, the sender's running counts by status (a few
	// rows, kept by a trigger: migration 0016), so the page costs the same whatever the
	// history; with one, what it matches.
	count := `SELECT count(*) FROM transfers WHERE ` + cond
	if f.Query == "" && f.Window.From.IsZero() && f.Window.Before.IsZero() {
		count = `SELECT coalesce(sum(n), 0)::bigint FROM transfer_counts WHERE user_id = $1`
		if len(statuses) > 0 {
			count += ` AND status = ANY($2)`
		}
	}
	// One statement, so one round trip and one snapshot: the uncorrelated count runs once (an
	// InitPlan) and rides on every row of the page. This is the history page's hot path; an
	// explicit READ ONLY transaction around two statements cost four round trips.
	pageArgs := append(append([]any{}, args...), f.Limit, f.Offset)
	rows, err := r.pool.Query(ctx, `SELECT (`+count+`), `+columns+
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
		if err := r.pool.QueryRow(ctx, count, args...).Scan(&total); err != nil {
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
