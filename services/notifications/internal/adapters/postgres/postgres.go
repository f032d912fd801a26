// Package postgres stores deliveries and the support inbox in the notifications schema.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/thumela/thumela/services/notifications/internal/app"
	"github.com/thumela/thumela/services/notifications/internal/domain"
	"github.com/thumela/thumela/services/notifications/internal/events"
	"github.com/thumela/thumela/services/platform/outbox"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations is the notifications schema's own migration set.
var Migrations = platformpg.MigrationSet{Name: "notifications", FS: mustSub(migrationFiles, "migrations")}

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err) // embedded at build time
	}
	return sub
}

// Store implements app.Repository and app.SupportStore.
type Store struct{ pool *pgxpool.Pool }

// New returns the store over pool (search_path = notifications).
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

var (
	_ app.Repository   = (*Store)(nil)
	_ app.SupportStore = (*Store)(nil)
)

const columns = `id, request_id, user_id, reference, channel, template, recipient, status, attempts,
	dedup_id, provider_message_id, failure_reason, source_service, first_attempt_at, claimed_until,
	created_at, sent_at, delivered_at, failed_at, updated_at`

func scan(row pgx.CollectableRow) (domain.Delivery, error) {
	var (
		d                                                domain.Delivery
		channel, template, status                        string
		dedup                                            *int32
		providerID                                       *string
		firstAttempt, claimed, sent, delivered, failedAt *time.Time
	)
	if err := row.Scan(&d.ID, &d.RequestID, &d.UserID, &d.Reference, &channel, &template, &d.Recipient, &status,
		&d.Attempts, &dedup, &providerID, &d.FailureReason, &d.SourceService, &firstAttempt, &claimed,
		&d.QueuedAt, &sent, &delivered, &failedAt, &d.UpdatedAt); err != nil {
		return domain.Delivery{}, err
	}
	d.Channel, d.Template, d.Status = domain.Channel(channel), domain.Template(template), domain.Status(status)
	if dedup != nil {
		d.DedupID = *dedup
	}
	if providerID != nil {
		d.ProviderMessageID = *providerID
	}
	d.FirstAttemptAt, d.ClaimedUntil = deref(firstAttempt), deref(claimed)
	d.SentAt, d.DeliveredAt, d.FailedAt = deref(sent), deref(delivered), deref(failedAt)
	return d, nil
}

func deref(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// null stores the zero time as NULL.
func null(t time.Time) *time.Time {
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

// Enqueue implements app.Repository: the insert and its DeliveryChanged (queued) event commit
// together; a request already known is returned as stored, with no event. A delivery that
// arrives claimed (its first attempt started in memory) gets its SMS deduplication id drawn in
// the same statement, so the first attempt costs one transaction, not two. A delivery whose
// changes are not announced (an e-mail) has nothing to commit with its insert: the statement
// is its own transaction, one round trip instead of three.
func (s *Store) Enqueue(ctx context.Context, d domain.Delivery) (domain.Delivery, bool, error) {
	var saved domain.Delivery
	var inserted bool
	var err error
	if events.Announced(d) {
		err = platformpg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
			if saved, inserted, err = insert(ctx, tx, d); err != nil || !inserted {
				return err
			}
			return announce(ctx, tx, saved, "")
		})
	} else {
		saved, inserted, err = insert(ctx, s.pool, d)
	}
	if err != nil {
		return domain.Delivery{}, false, fmt.Errorf("enqueue delivery: %w", err)
	}
	return saved, inserted, nil
}

// querier is what insert and get read with: a transaction, or the pool for a statement that is
// a transaction of its own.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// insert stores d unless its request is known, and returns the row stored and whether it is d.
func insert(ctx context.Context, q querier, d domain.Delivery) (domain.Delivery, bool, error) {
	rows, err := q.Query(ctx, `INSERT INTO deliveries (request_id, user_id, reference, channel, template,
			recipient, status, source_service, attempts, first_attempt_at, claimed_until, dedup_id,
			created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11,
			CASE WHEN $4 = 'sms' AND $9 > 0 THEN nextval('deliveries_dedup_seq')::integer END, $12, $13)
		ON CONFLICT (request_id) DO NOTHING
		RETURNING `+columns,
		d.RequestID, d.UserID, d.Reference, string(d.Channel), string(d.Template), d.Recipient,
		string(d.Status), d.SourceService, d.Attempts, null(d.FirstAttemptAt), null(d.ClaimedUntil),
		d.QueuedAt, d.UpdatedAt)
	if err != nil {
		return domain.Delivery{}, false, err
	}
	found, err := pgx.CollectRows(rows, scan)
	if err != nil {
		return domain.Delivery{}, false, err
	}
	if len(found) == 1 {
		return found[0], true, nil
	}
	saved, err := get(ctx, q, d.RequestID, false)
	return saved, false, err
}

// announce writes d's announcements (its move from previous, "" for a new delivery:
// events.Announcements) when its channel's changes are published (events.Announced).
func announce(ctx context.Context, tx pgx.Tx, d domain.Delivery, previous domain.Status) error {
	if !events.Announced(d) {
		return nil
	}
	msgs, err := events.Announcements(d, previous)
	if err != nil {
		return err
	}
	// The last statements of Enqueue's transaction: the COMMIT goes with them.
	b := &pgx.Batch{}
	if err := outbox.Queue(ctx, tx, b, msgs...); err != nil {
		return err
	}
	platformpg.CommitWith(tx, b)
	return tx.SendBatch(ctx, b).Close()
}

func get(ctx context.Context, q querier, requestID uuid.UUID, lock bool) (domain.Delivery, error) {
	query := `SELECT ` + columns + ` FROM deliveries WHERE request_id = $1`
	if lock {
		query += ` FOR UPDATE`
	}
	rows, err := q.Query(ctx, query, requestID)
	if err != nil {
		return domain.Delivery{}, err
	}
	d, err := pgx.CollectExactlyOneRow(rows, scan)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Delivery{}, domain.ErrNotFound
	}
	return d, err
}

// updateSQL writes every mutable field of a delivery ($1 its row id); guardedSQL only while the
// row is still as the caller read it ($13–$15: its status, attempts and last change; see
// UpdateClaimed).
const (
	updateSQL = `UPDATE deliveries SET status = $2, attempts = $3, dedup_id = $4,
			provider_message_id = $5, failure_reason = $6, first_attempt_at = $7, claimed_until = $8,
			sent_at = $9, delivered_at = $10, failed_at = $11, updated_at = $12
		WHERE id = $1`
	guardedSQL = updateSQL + ` AND status = $13 AND attempts = $14 AND updated_at = $15`
)

func updateArgs(d domain.Delivery) []any {
	var dedup *int32
	if d.DedupID != 0 {
		dedup = &d.DedupID
	}
	return []any{d.ID, string(d.Status), d.Attempts, dedup, nullString(d.ProviderMessageID), d.FailureReason,
		null(d.FirstAttemptAt), null(d.ClaimedUntil), null(d.SentAt), null(d.DeliveredAt), null(d.FailedAt), d.UpdatedAt}
}

// save writes every mutable field of d and, when its status moved from previous, the
// DeliveryChanged event (for a channel that is announced). It is always its transaction's last
// statement (Claim, Update, UpdateSMS), so the COMMIT goes with it.
func save(ctx context.Context, tx pgx.Tx, d domain.Delivery, previous domain.Status) error {
	_, err := write(ctx, tx, d, previous, updateSQL, updateArgs(d), true)
	return err
}

// write runs the update sql with args and, when d's status moved from previous on a channel
// that is announced, inserts its announcements (events.Announcements): one round trip for all,
// the transaction's COMMIT too when last. It returns the rows the update changed.
func write(ctx context.Context, tx pgx.Tx, d domain.Delivery, previous domain.Status, sql string, args []any, last bool) (int64, error) {
	b := &pgx.Batch{}
	if err := queueWrite(ctx, tx, b, d, previous, sql, args); err != nil {
		return 0, err
	}
	if last {
		platformpg.CommitWith(tx, b)
	}
	br := tx.SendBatch(ctx, b)
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag.RowsAffected(), err
}

// queueWrite queues on b the update sql with args and, when d's status moved from previous on
// a channel that is announced, its announcements.
func queueWrite(ctx context.Context, tx pgx.Tx, b *pgx.Batch, d domain.Delivery, previous domain.Status, sql string, args []any) error {
	b.Queue(sql, args...)
	if d.Status == previous || !events.Announced(d) {
		return nil
	}
	msgs, err := events.Announcements(d, previous)
	if err != nil {
		return err
	}
	return outbox.Queue(ctx, tx, b, msgs...)
}

// errMoved: the row is no longer as the caller read it (UpdateClaimed).
var errMoved = errors.New("delivery changed since it was read")

// UpdateClaimed implements app.Repository: fn changes the caller's copy of a delivery whose
// attempt it holds, and the change is written without reading and locking the row again, on
// condition that the row still has the status, attempt and last change the copy has. Another
// attempt (a takeover after the lease, which counts one more) or a provider's report that
// arrived first has moved the row: then it is Update, which locks and reads it, as before. The
// write and its event are one transaction of one batch; a change with no event is one
// statement.
func (s *Store) UpdateClaimed(ctx context.Context, claimed domain.Delivery, fn func(*domain.Delivery) error) (domain.Delivery, error) {
	next := claimed
	if err := fn(&next); err != nil {
		return domain.Delivery{}, err
	}
	if next == claimed {
		return next, nil
	}
	args := append(updateArgs(next), string(claimed.Status), claimed.Attempts, claimed.UpdatedAt)
	var (
		changed int64
		err     error
	)
	if next.Status == claimed.Status || !events.Announced(next) {
		var tag pgconn.CommandTag
		tag, err = s.pool.Exec(ctx, guardedSQL, args...)
		changed = tag.RowsAffected()
	} else {
		err = platformpg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
			// Not last: whether the guard held decides between COMMIT and ROLLBACK.
			changed, err = write(ctx, tx, next, claimed.Status, guardedSQL, args, false)
			if err == nil && changed != 1 {
				return errMoved // rolls the event back
			}
			return err
		})
	}
	if err == nil && changed != 1 {
		err = errMoved
	}
	if errors.Is(err, errMoved) {
		return s.Update(ctx, claimed.RequestID, fn)
	}
	if err != nil {
		return domain.Delivery{}, fmt.Errorf("update claimed delivery: %w", err)
	}
	return next, nil
}

// Get returns the delivery of requestID (domain.ErrNotFound when none), without locking it.
func (s *Store) Get(ctx context.Context, requestID uuid.UUID) (domain.Delivery, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+columns+` FROM deliveries WHERE request_id = $1`, requestID)
	if err != nil {
		return domain.Delivery{}, fmt.Errorf("get delivery: %w", err)
	}
	d, err := pgx.CollectExactlyOneRow(rows, scan)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Delivery{}, domain.ErrNotFound
	}
	if err != nil {
		return domain.Delivery{}, fmt.Errorf("get delivery: %w", err)
	}
	return d, nil
}

// Claim implements app.Repository. The row lock serialises two replicas' claims; the lease
// written with it keeps the second away until the first's attempt has had its time.
func (s *Store) Claim(ctx context.Context, requestID uuid.UUID, now time.Time, lease time.Duration) (domain.Delivery, error) {
	var claimed domain.Delivery
	err := platformpg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		d, err := get(ctx, tx, requestID, true)
		if err != nil {
			return err
		}
		if err := d.Claim(now, lease); err != nil {
			return err
		}
		if d.Channel == domain.ChannelSMS && d.DedupID == 0 {
			if err := tx.QueryRow(ctx, `SELECT nextval('deliveries_dedup_seq')::integer`).Scan(&d.DedupID); err != nil {
				return err
			}
		}
		claimed = d
		return save(ctx, tx, d, d.Status)
	})
	if err != nil {
		return domain.Delivery{}, wrap("claim delivery", err)
	}
	return claimed, nil
}

// Update implements app.Repository.
func (s *Store) Update(ctx context.Context, requestID uuid.UUID, fn func(*domain.Delivery) error) (domain.Delivery, error) {
	var out domain.Delivery
	err := platformpg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		d, err := get(ctx, tx, requestID, true)
		if err != nil {
			return err
		}
		out, err = apply(ctx, tx, d, fn)
		return err
	})
	if err != nil {
		return domain.Delivery{}, wrap("update delivery", err)
	}
	return out, nil
}

func apply(ctx context.Context, tx pgx.Tx, d domain.Delivery, fn func(*domain.Delivery) error) (domain.Delivery, error) {
	before := d
	if err := fn(&d); err != nil {
		return domain.Delivery{}, err
	}
	if d == before {
		return d, nil
	}
	return d, save(ctx, tx, d, before.Status)
}

// UpdateSMSBatch implements app.Repository. One statement reads and locks every SMS delivery
// the batch could name, in id order, so two batches naming the same rows queue rather than
// deadlock; the changed rows and their events go in one more round trip, with the COMMIT. A
// provider batches its reports (BulkSMS posts a JSON array), so a busy hour's reports cost a
// transaction per request, not per report.
func (s *Store) UpdateSMSBatch(ctx context.Context, targets []app.SMSTarget, fn func(int, *domain.Delivery)) error {
	var providerIDs []string
	var rowIDs []int64
	for _, t := range targets {
		if t.ProviderMessageID != "" {
			providerIDs = append(providerIDs, t.ProviderMessageID)
		}
		if t.RowID != 0 {
			rowIDs = append(rowIDs, t.RowID)
		}
	}
	err := platformpg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		found, err := lockSMSDeliveries(ctx, tx, providerIDs, rowIDs)
		if err != nil {
			return err
		}
		before := slices.Clone(found)
		byProvider := make(map[string]int, len(found)) // the lowest row id per provider id
		byRow := make(map[int64]int, len(found))
		for i, d := range found {
			if _, seen := byProvider[d.ProviderMessageID]; d.ProviderMessageID != "" && !seen {
				byProvider[d.ProviderMessageID] = i
			}
			byRow[d.ID] = i
		}
		for i, t := range targets {
			k, ok := byProvider[t.ProviderMessageID]
			if !ok {
				// Our own id, echoed by the provider: accepted only for a delivery whose provider
				// id is not known yet (a crash before it was recorded) or is the same.
				k, ok = byRow[t.RowID]
				ok = ok && t.RowID != 0 &&
					(found[k].ProviderMessageID == "" || found[k].ProviderMessageID == t.ProviderMessageID)
			}
			if !ok {
				fn(i, nil)
				continue
			}
			fn(i, &found[k])
			if pid := found[k].ProviderMessageID; pid != "" {
				if _, seen := byProvider[pid]; !seen {
					byProvider[pid] = k // learnt from this report: the batch's later ones find it
				}
			}
		}
		b := &pgx.Batch{}
		for i, d := range found {
			if d == before[i] {
				continue
			}
			if err := queueWrite(ctx, tx, b, d, before[i].Status, updateSQL, updateArgs(d)); err != nil {
				return err
			}
		}
		if b.Len() == 0 {
			return nil
		}
		platformpg.CommitWith(tx, b)
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return wrap("update sms deliveries", err)
	}
	return nil
}

// lockSMSDeliveries reads and locks, in id order, the SMS deliveries that have one of the
// provider's message ids or one of our row ids: one statement, on the provider id's index and
// then the primary key, whatever the table's size or statistics.
//
// pgx prepares the statement, and PostgreSQL keeps one generic plan of it per connection. On a
// new database (deliveries never analysed: the planner assumes an almost empty table) the
// statement as it was, "channel = 'sms' AND (provider_message_id = ANY($1) OR id = ANY($2))",
// was planned as a walk of every SMS delivery (through deliveries_sms_recipient_idx, whose
// condition the query's channel test matches) or a sequential scan, and kept that plan as the
// table grew: a diagnostic run found it reading 478 blocks a call, every delivery for each
// batch of reports (docs/decisions.md, "A create no longer looks its idempotency key up
// first"). So the statement names the two indexes' columns only (the rows' channel is checked
// here instead), and the sequential scan is off for this transaction (SET LOCAL: it ends with
// the transaction, and travels in the statement's round trip). Checked on an empty table with
// a generic plan: two index probes (TestSMSReportBatchPlanUsesTheIndexes).
func lockSMSDeliveries(ctx context.Context, tx pgx.Tx, providerIDs []string, rowIDs []int64) ([]domain.Delivery, error) {
	found, err := platformpg.QueryUnder(ctx, tx, []string{noSeqScan}, lockSMSDeliveriesSQL, []any{providerIDs, rowIDs}, scan)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(found, func(d domain.Delivery) bool { return d.Channel != domain.ChannelSMS }), nil
}

// noSeqScan and lockSMSDeliveriesSQL are lockSMSDeliveries' statements.
const (
	noSeqScan            = `SET LOCAL enable_seqscan = off`
	lockSMSDeliveriesSQL = `SELECT ` + columns + ` FROM deliveries
		WHERE id = ANY(ARRAY(SELECT id FROM deliveries WHERE provider_message_id = ANY($1)) || $2::bigint[])
		ORDER BY id FOR UPDATE`
)

// wrap keeps domain errors recognisable and adds context to the others.
func wrap(op string, err error) error {
	var claimed *domain.ClaimedError
	if errors.Is(err, domain.ErrNotFound) || errors.Is(err, domain.ErrNotPending) || errors.As(err, &claimed) {
		return err
	}
	return fmt.Errorf("%s: %w", op, err)
}

// QueuedBefore implements app.Repository.
func (s *Store) QueuedBefore(ctx context.Context, t, now time.Time, limit int) ([]uuid.UUID, error) {
	rows, err := s.pool.Query(ctx, `SELECT request_id FROM deliveries
		WHERE status = 'queued' AND created_at < $1 AND (claimed_until IS NULL OR claimed_until <= $2)
		ORDER BY created_at LIMIT $3`, t, now, limit)
	if err != nil {
		return nil, fmt.Errorf("queued deliveries: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return nil, fmt.Errorf("queued deliveries: %w", err)
	}
	return ids, nil
}

// listSQL is List's statement ($1 the user, $2 the references): for each reference (once,
// however often it is named) a probe of deliveries_user_reference_idx with the user and the
// reference, newest first; then the newest 500 of them all.
//
// Not "user_id = $1 AND reference = ANY($2)": pgx prepares the statement, and the generic plan
// PostgreSQL made of that on a new, empty table (a fresh deploy) probed the index with the user
// alone and filtered the references, a walk of every delivery the user ever had, kept as the
// table grew. In a LATERAL subquery with its own LIMIT, which the planner cannot merge into a
// join, the reference is a value of the outer row and goes into the index condition
// (TestListPlanProbesEachReference).
const listSQL = `SELECT d.* FROM (SELECT DISTINCT unnest($2::text[]) AS ref) r
		CROSS JOIN LATERAL (SELECT ` + columns + ` FROM deliveries
			WHERE user_id = $1 AND reference = r.ref
			ORDER BY created_at DESC, id DESC LIMIT 500) d
		ORDER BY d.created_at DESC, d.id DESC LIMIT 500`

// List implements app.Repository.
func (s *Store) List(ctx context.Context, userID string, references []string) ([]domain.Delivery, error) {
	rows, err := s.pool.Query(ctx, listSQL, userID, references)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scan)
}

// smsSentToSQL counts one sender's SMS to one number since a moment, stopping at a limit.
const smsSentToSQL = `SELECT count(*) FROM (SELECT 1 FROM deliveries
	WHERE channel = 'sms' AND recipient = $1 AND user_id = $2 AND created_at > $3 LIMIT $4) AS recent`

// SMSSentTo implements app.Repository, through deliveries_sms_recipient_user_idx; the count stops at
// limit, so a number that had thousands costs what one at the limit does.
func (s *Store) SMSSentTo(ctx context.Context, recipient, userID string, since time.Time, limit int) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, smsSentToSQL, recipient, userID, since, limit).Scan(&n); err != nil {
		return 0, fmt.Errorf("count SMS to a recipient: %w", err)
	}
	return n, nil
}

// OldestQueued implements app.Repository.
func (s *Store) OldestQueued(ctx context.Context) (time.Time, bool, error) {
	var t *time.Time
	if err := s.pool.QueryRow(ctx, `SELECT min(created_at) FROM deliveries WHERE status = 'queued'`).Scan(&t); err != nil {
		return time.Time{}, false, fmt.Errorf("oldest queued delivery: %w", err)
	}
	if t == nil {
		return time.Time{}, false, nil
	}
	return *t, true, nil
}

// ticketAttempts bounds the draws of a fresh ticket: a repeat is one in a billion per stored
// ticket, so a second draw is already rare.
const ticketAttempts = 5

// SubmitSupport implements app.SupportStore. A signed-in sender is counted by their account
// (every message of theirs, from any address) and a visitor by the client's address (the
// visitors' messages from it only): many customers share one address behind a carrier's NAT or
// an office's, and other people's messages must not refuse a customer whom the account already
// names. A transaction-scoped advisory lock on the key serialises the count and the insert
// across replicas, so that concurrent messages under one key cannot all pass the limit.
func (s *Store) SubmitSupport(ctx context.Context, m domain.SupportMessage, limits []domain.RateLimit, recipient string) (domain.SupportMessage, error) {
	var longest time.Duration
	for _, l := range limits {
		longest = max(longest, l.Window)
	}
	var client *netip.Prefix
	if m.Client.IsValid() {
		client = &m.Client
	}
	var user *uuid.UUID
	if m.UserID != "" {
		id, err := uuid.Parse(m.UserID)
		if err != nil {
			return domain.SupportMessage{}, fmt.Errorf("support message: user id: %w", err)
		}
		user = &id
	}
	err := platformpg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		key, where, arg := "", "", any(nil)
		switch {
		case user != nil:
			key, where, arg = "user:"+user.String(), `user_id = $1`, *user
		case client != nil:
			key, where, arg = "address:"+client.String(), `client_address = $1 AND user_id IS NULL`, *client
		default:
			return errors.New("support message without a client address or a user")
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "support:"+key); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT created_at FROM support_messages WHERE `+where+
			` AND created_at > $2 ORDER BY created_at`, arg, m.CreatedAt.Add(-longest))
		if err != nil {
			return err
		}
		times, err := pgx.CollectRows(rows, pgx.RowTo[time.Time])
		if err != nil {
			return err
		}
		var wait time.Duration
		for _, l := range limits {
			wait = max(wait, l.RetryAfter(times, m.CreatedAt))
		}
		if wait > 0 {
			return &domain.RateLimitedError{RetryAfter: wait, Account: user != nil}
		}

		for range ticketAttempts {
			ticket, err := domain.NewTicket()
			if err != nil {
				return err
			}
			tag, err := tx.Exec(ctx, `INSERT INTO support_messages (ticket, kind, name, email, subject, message,
					details, user_id, client_address, created_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
				ON CONFLICT (ticket) DO NOTHING`,
				ticket, string(m.Kind), m.Name, m.Email, m.Subject, m.Message, detailsJSON(m.Details), user, client, m.CreatedAt)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 1 {
				m.Ticket = ticket
				break
			}
		}
		if m.Ticket == "" {
			return errors.New("no free ticket reference")
		}
		msg, err := events.SupportRequest(m, recipient)
		if err != nil {
			return err
		}
		return outbox.Write(ctx, tx, msg)
	})
	if err != nil {
		var rl *domain.RateLimitedError
		if errors.As(err, &rl) {
			return domain.SupportMessage{}, err
		}
		return domain.SupportMessage{}, fmt.Errorf("store support message: %w", err)
	}
	return m, nil
}

func detailsJSON(d map[string]string) map[string]string {
	if d == nil {
		return map[string]string{}
	}
	return d
}
