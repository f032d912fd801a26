// Package postgres stores the paymentmethods service's data in its own schema: payment
// methods, the card vault's envelopes, usage records, charges and refunds.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/thumela/thumela/services/paymentmethods/internal/app"
	"github.com/thumela/thumela/services/paymentmethods/internal/domain"
	"github.com/thumela/thumela/services/paymentmethods/internal/events"
	"github.com/thumela/thumela/services/platform/outbox"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations is the paymentmethods schema's own migration set.
var Migrations = platformpg.MigrationSet{Name: "paymentmethods", FS: mustSub(migrationFiles, "migrations")}

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err) // embedded at build time
	}
	return sub
}

// Store implements app.Repository.
type Store struct{ pool *pgxpool.Pool }

// New returns the repository over pool (search_path = paymentmethods).
func New(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

var _ app.Repository = (*Store)(nil)

// querier is a pool or a transaction.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

const methodColumns = `id, user_id, name, brand, last_four, expiry_month, expiry_year, is_default, token, created_at, updated_at`

func scanMethod(row pgx.CollectableRow) (domain.PaymentMethod, error) {
	var (
		m     domain.PaymentMethod
		brand string
	)
	if err := row.Scan(&m.ID, &m.UserID, &m.Name, &brand, &m.LastFour, &m.Expiry.Month, &m.Expiry.Year,
		&m.IsDefault, &m.Token, &m.CreatedAt, &m.UpdatedAt); err != nil {
		return domain.PaymentMethod{}, err
	}
	b, err := domain.ParseBrand(brand)
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	m.Brand = b
	return m, nil
}

func getMethod(ctx context.Context, q querier, userID, id uuid.UUID, lock string) (domain.PaymentMethod, error) {
	rows, err := q.Query(ctx, `SELECT `+methodColumns+` FROM payment_methods WHERE id = $1 AND user_id = $2 `+lock, id, userID)
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	m, err := pgx.CollectExactlyOneRow(rows, scanMethod)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.PaymentMethod{}, domain.ErrNotFound
	}
	return m, err
}

// lockUser serializes the transactions that change one user's methods (add, update, set
// default, delete) for the rest of tx: with it, "exactly one default" and "at most
// MaxMethodsPerUser" hold under any concurrency, also for a card being inserted (a row lock
// could not cover a row that does not exist yet). The partial unique index on is_default is
// the database's own guarantee behind it.
func lockUser(ctx context.Context, tx pgx.Tx, userID uuid.UUID) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, platformpg.AdvisoryKey("thumela.paymentmethods.user."+userID.String()))
	return err
}

// writeEvents writes one PaymentMethodChanged per change, in order, to the outbox of tx.
func writeEvents(ctx context.Context, tx pgx.Tx, evs ...domain.Event) error {
	msgs := make([]outbox.Message, 0, len(evs))
	for _, e := range evs {
		msg, err := events.Changed(e)
		if err != nil {
			return err
		}
		msgs = append(msgs, msg)
	}
	return outbox.Write(ctx, tx, msgs...)
}

// List implements app.Repository.
func (s *Store) List(ctx context.Context, userID uuid.UUID) ([]domain.PaymentMethod, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+methodColumns+` FROM payment_methods WHERE user_id = $1
		ORDER BY is_default DESC, created_at DESC, id DESC`, userID)
	if err != nil {
		return nil, fmt.Errorf("list payment methods: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanMethod)
	if err != nil {
		return nil, fmt.Errorf("list payment methods: %w", err)
	}
	return out, nil
}

// Get implements app.Repository.
func (s *Store) Get(ctx context.Context, userID, id uuid.UUID) (domain.PaymentMethod, error) {
	m, err := getMethod(ctx, s.pool, userID, id, "")
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return m, fmt.Errorf("get payment method: %w", err)
	}
	return m, err
}

// HasFingerprint implements app.Repository.
func (s *Store) HasFingerprint(ctx context.Context, userID uuid.UUID, fingerprint []byte) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM payment_methods WHERE user_id = $1 AND fingerprint = $2)`,
		userID, fingerprint).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("check fingerprint: %w", err)
	}
	return ok, nil
}

// Add implements app.Repository: the method, its vault envelope and its ADDED event commit
// together. The first card, or one added with the default flag, becomes the default and
// clears the flag of the others in the same transaction.
func (s *Store) Add(ctx context.Context, m app.NewMethod, limit int) (domain.PaymentMethod, error) {
	var saved domain.PaymentMethod
	err := platformpg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if err := lockUser(ctx, tx, m.UserID); err != nil {
			return err
		}
		var count int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM payment_methods WHERE user_id = $1`, m.UserID).Scan(&count); err != nil {
			return err
		}
		if count >= limit {
			return domain.ErrTooManyMethods
		}
		makeDefault := m.WantDefault || count == 0
		if makeDefault {
			if _, err := tx.Exec(ctx, `UPDATE payment_methods SET is_default = false, updated_at = now()
				WHERE user_id = $1 AND is_default`, m.UserID); err != nil {
				return err
			}
		}
		rows, err := tx.Query(ctx, `INSERT INTO payment_methods
			(id, user_id, name, brand, last_four, expiry_month, expiry_year, is_default, token, fingerprint)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
			RETURNING `+methodColumns,
			m.ID, m.UserID, m.Name, m.Brand.String(), m.LastFour, m.Expiry.Month, m.Expiry.Year, makeDefault, m.Token, m.Fingerprint)
		if err != nil {
			return err
		}
		if saved, err = pgx.CollectExactlyOneRow(rows, scanMethod); err != nil {
			if c, ok := platformpg.IsUniqueViolation(err); ok && c == "payment_methods_user_fingerprint_idx" {
				return domain.ErrAlreadySaved
			}
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO card_vault (token, kek_id, wrapped_key, ciphertext) VALUES ($1, $2, $3, $4)`,
			m.Token, m.Sealed.KEKID, m.Sealed.WrappedKey, m.Sealed.Ciphertext); err != nil {
			return err
		}
		return writeEvents(ctx, tx, domain.Event{UserID: m.UserID, PaymentMethodID: saved.ID, Change: domain.ChangeAdded, At: saved.CreatedAt})
	})
	if err != nil {
		return domain.PaymentMethod{}, wrap("add payment method", err)
	}
	return saved, nil
}

// setDefault makes id the user's default within tx (the user's lock held): the others'
// flag is cleared first, so the partial unique index never sees two.
func setDefault(ctx context.Context, tx pgx.Tx, userID, id uuid.UUID) error {
	if _, err := tx.Exec(ctx, `UPDATE payment_methods SET is_default = false, updated_at = now()
		WHERE user_id = $1 AND is_default AND id <> $2`, userID, id); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `UPDATE payment_methods SET is_default = true, updated_at = now()
		WHERE id = $1 AND user_id = $2`, id, userID)
	return err
}

// Update implements app.Repository. It writes UPDATED when the name changed and
// DEFAULT_CHANGED when the method became the default; nothing when nothing changed.
func (s *Store) Update(ctx context.Context, userID, id uuid.UUID, name string, makeDefault bool) (domain.PaymentMethod, error) {
	var saved domain.PaymentMethod
	err := platformpg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if err := lockUser(ctx, tx, userID); err != nil {
			return err
		}
		cur, err := getMethod(ctx, tx, userID, id, "FOR UPDATE")
		if err != nil {
			return err
		}
		var changes []domain.Change
		if name != cur.Name {
			if _, err := tx.Exec(ctx, `UPDATE payment_methods SET name = $3, updated_at = now() WHERE id = $1 AND user_id = $2`,
				id, userID, name); err != nil {
				return err
			}
			changes = append(changes, domain.ChangeUpdated)
		}
		if makeDefault && !cur.IsDefault {
			if err := setDefault(ctx, tx, userID, id); err != nil {
				return err
			}
			changes = append(changes, domain.ChangeDefaultChanged)
		}
		if len(changes) == 0 {
			saved = cur
			return nil
		}
		if saved, err = getMethod(ctx, tx, userID, id, ""); err != nil {
			return err
		}
		evs := make([]domain.Event, len(changes))
		for i, c := range changes {
			evs[i] = domain.Event{UserID: userID, PaymentMethodID: id, Change: c, At: saved.UpdatedAt}
		}
		return writeEvents(ctx, tx, evs...)
	})
	if err != nil {
		return domain.PaymentMethod{}, wrap("update payment method", err)
	}
	return saved, nil
}

// SetDefault implements app.Repository: one transaction under the user's lock clears the
// others' flag and sets this one; DEFAULT_CHANGED unless it was the default already.
func (s *Store) SetDefault(ctx context.Context, userID, id uuid.UUID) (domain.PaymentMethod, error) {
	var saved domain.PaymentMethod
	err := platformpg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if err := lockUser(ctx, tx, userID); err != nil {
			return err
		}
		cur, err := getMethod(ctx, tx, userID, id, "FOR UPDATE")
		if err != nil {
			return err
		}
		if cur.IsDefault {
			saved = cur
			return nil
		}
		if err := setDefault(ctx, tx, userID, id); err != nil {
			return err
		}
		if saved, err = getMethod(ctx, tx, userID, id, ""); err != nil {
			return err
		}
		return writeEvents(ctx, tx, domain.Event{UserID: userID, PaymentMethodID: id, Change: domain.ChangeDefaultChanged, At: saved.UpdatedAt})
	})
	if err != nil {
		return domain.PaymentMethod{}, wrap("set default payment method", err)
	}
	return saved, nil
}

// firstUseSQL is the first usage record of the method $1 in its primary key's order (true), or
// NULL when it has none.
//
// It is asked in the key's order, not as EXISTS: both statements that ask are prepared, and the
// generic plan PostgreSQL made of the EXISTS on a new, empty payment_method_usage (a fresh
// deploy, never analysed) was a sequential scan stopping at the first row found, which a few
// rows per method on an assumed ten pages make look cheaper than the index; the plan was kept as
// the table grew. Ordered by the key's columns after the method's, the first row comes from
// payment_method_usage_pkey, and any other plan would read every row and sort them
// (TestUsageLookupPlansUseThePrimaryKey).
const firstUseSQL = `(SELECT true FROM payment_method_usage WHERE payment_method_id = $1 ORDER BY source, reference LIMIT 1)`

// methodUsedSQL tells whether the method $1 has a usage record or a charge.
const methodUsedSQL = `SELECT ` + firstUseSQL + ` IS NOT NULL
			OR EXISTS (SELECT 1 FROM charges WHERE payment_method_id = $1)`

// Delete implements app.Repository. A method with a usage record or a charge is refused
// (domain.ErrInUse); the foreign keys refuse it too should a charge commit in between. The
// vault envelope goes with the method (ON DELETE CASCADE). A deleted default hands the flag to
// the most recently added remaining method (DEFAULT_CHANGED after DELETED).
func (s *Store) Delete(ctx context.Context, userID, id uuid.UUID) error {
	err := platformpg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		if err := lockUser(ctx, tx, userID); err != nil {
			return err
		}
		cur, err := getMethod(ctx, tx, userID, id, "FOR UPDATE")
		if err != nil {
			return err
		}
		var used bool
		if err := tx.QueryRow(ctx, methodUsedSQL, id).Scan(&used); err != nil {
			return err
		}
		if used {
			return domain.ErrInUse
		}
		var at time.Time
		if err := tx.QueryRow(ctx, `DELETE FROM payment_methods WHERE id = $1 AND user_id = $2 RETURNING now()`, id, userID).Scan(&at); err != nil {
			return err
		}
		evs := []domain.Event{{UserID: userID, PaymentMethodID: id, Change: domain.ChangeDeleted, At: at}}
		if cur.IsDefault {
			var promoted uuid.UUID
			err := tx.QueryRow(ctx, `UPDATE payment_methods SET is_default = true, updated_at = now()
				WHERE id = (SELECT id FROM payment_methods WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1)
				RETURNING id`, userID).Scan(&promoted)
			switch {
			case err == nil:
				evs = append(evs, domain.Event{UserID: userID, PaymentMethodID: promoted, Change: domain.ChangeDefaultChanged, At: at})
			case !errors.Is(err, pgx.ErrNoRows):
				return err
			}
		}
		return writeEvents(ctx, tx, evs...)
	})
	if _, ok := platformpg.IsForeignKeyViolation(err); ok {
		return domain.ErrInUse
	}
	return wrap("delete payment method", err)
}

// markUsedSQL records the transfer $3 as the first use of the user $2's method $1, unless the
// method has a use already.
const markUsedSQL = `INSERT INTO payment_method_usage (payment_method_id, source, reference)
		SELECT id, 'transfer', $3 FROM payment_methods
		WHERE id = $1 AND user_id = $2
			AND ` + firstUseSQL + ` IS NULL
		ON CONFLICT DO NOTHING`

// MarkUsedByTransfer implements app.Repository; a repeated event changes nothing. Only a
// method's first use is written: Delete asks whether any exists, so a row per transfer would
// be an insert per transfer that no one reads (a read-only statement commits without a write).
func (s *Store) MarkUsedByTransfer(ctx context.Context, userID, methodID uuid.UUID, transferID string) error {
	_, err := s.pool.Exec(ctx, markUsedSQL, methodID, userID, transferID)
	if _, ok := platformpg.IsForeignKeyViolation(err); ok {
		return nil // deleted meanwhile: nothing left to protect
	}
	return wrap("mark payment method used", err)
}

// VaultRecord implements app.Repository.
func (s *Store) VaultRecord(ctx context.Context, methodID uuid.UUID) (app.VaultRecord, error) {
	var r app.VaultRecord
	err := s.pool.QueryRow(ctx, `SELECT pm.token, pm.name, pm.expiry_month, pm.expiry_year, v.kek_id, v.wrapped_key, v.ciphertext
		FROM payment_methods pm JOIN card_vault v ON v.token = pm.token WHERE pm.id = $1`, methodID).
		Scan(&r.Token, &r.Name, &r.Expiry.Month, &r.Expiry.Year, &r.Sealed.KEKID, &r.Sealed.WrappedKey, &r.Sealed.Ciphertext)
	if errors.Is(err, pgx.ErrNoRows) {
		return app.VaultRecord{}, domain.ErrNotFound
	}
	return r, wrap("read vault record", err)
}

// rewrapBatch is how many envelopes one re-wrap transaction handles.
const rewrapBatch = 100

// RewrapAll implements app.Repository, in batches; rows locked by anyone else are skipped
// and picked up by a later run.
func (s *Store) RewrapAll(ctx context.Context, currentKEK string, rewrap func(string, app.Sealed) (app.Sealed, error)) (int, error) {
	total := 0
	for {
		n := 0
		err := platformpg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, `SELECT token, kek_id, wrapped_key, ciphertext FROM card_vault
				WHERE kek_id <> $1 ORDER BY token LIMIT $2 FOR UPDATE SKIP LOCKED`, currentKEK, rewrapBatch)
			if err != nil {
				return err
			}
			type rec struct {
				token  string
				sealed app.Sealed
			}
			recs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (rec, error) {
				var x rec
				err := r.Scan(&x.token, &x.sealed.KEKID, &x.sealed.WrappedKey, &x.sealed.Ciphertext)
				return x, err
			})
			if err != nil {
				return err
			}
			for _, x := range recs {
				out, err := rewrap(x.token, x.sealed)
				if err != nil {
					return err
				}
				if _, err := tx.Exec(ctx, `UPDATE card_vault SET kek_id = $2, wrapped_key = $3, updated_at = now() WHERE token = $1`,
					x.token, out.KEKID, out.WrappedKey); err != nil {
					return err
				}
			}
			n = len(recs)
			return nil
		})
		if err != nil {
			return total, wrap("re-wrap vault records", err)
		}
		total += n
		if n < rewrapBatch {
			return total, nil
		}
	}
}

// wrap adds context to unexpected errors and passes domain errors through unchanged.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	for _, known := range []error{
		domain.ErrNotFound, domain.ErrAlreadySaved, domain.ErrInUse, domain.ErrTooManyMethods,
		domain.ErrIdempotencyConflict, domain.ErrNotRefundable, domain.ErrRefundExceedsCharge,
	} {
		if errors.Is(err, known) {
			return err
		}
	}
	return fmt.Errorf("%s: %w", op, err)
}
