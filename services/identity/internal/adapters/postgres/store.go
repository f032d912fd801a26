// Package postgres stores identity's users, codes, sessions and throttle records in
// PostgreSQL (schema "identity"), with the outbox in the same transactions.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/thumela/thumela/services/platform/outbox"
	platformpg "github.com/thumela/thumela/services/platform/postgres"

	"github.com/thumela/thumela/services/identity/internal/app"
	"github.com/thumela/thumela/services/identity/internal/domain"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are identity's own tables; the outbox's come from the platform.
var Migrations = platformpg.MigrationSet{Name: "identity", FS: mustSub(migrationFiles, "migrations")}

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err) // embedded at build time
	}
	return sub
}

// db is what queries run on: the pool or a transaction.
type db interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Store implements app.Store on a pool whose search_path is identity's schema.
type Store struct {
	queries
	pool *pgxpool.Pool
}

var _ app.Store = (*Store)(nil)

// New returns a store on pool.
func New(pool *pgxpool.Pool) *Store {
	return &Store{queries: queries{db: pool}, pool: pool}
}

// InTx implements app.Store.
func (s *Store) InTx(ctx context.Context, fn func(tx app.Tx) error) error {
	return platformpg.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		return fn(&txQueries{queries: queries{db: tx}, tx: tx})
	})
}

type queries struct {
	db db
}

type txQueries struct {
	queries
	tx pgx.Tx
}

var _ app.Tx = (*txQueries)(nil)

const userColumns = `id, email, password_hash, first_name, last_name, email_verified_at, created_at,
	updated_at, password_changed_at, referral_code`

func scanUser(row pgx.Row) (domain.User, error) {
	var (
		u                  domain.User
		email, first, last string
		verified           *time.Time
	)
	err := row.Scan(&u.ID, &email, &u.PasswordHash, &first, &last, &verified, &u.CreatedAt, &u.UpdatedAt, &u.PasswordChangedAt, &u.ReferralCode)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.User{}, domain.ErrUserNotFound
	}
	if err != nil {
		return domain.User{}, fmt.Errorf("read user: %w", err)
	}
	if verified != nil {
		u.EmailVerifiedAt = *verified
	}
	return domain.RestoreUser(u, email, first, last), nil
}

func (q queries) UserByEmail(ctx context.Context, email domain.Email) (domain.User, error) {
	return scanUser(q.db.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE lower(email) = $1`, email.String()))
}

func (q queries) UserByID(ctx context.Context, id string) (domain.User, error) {
	if !validUUID(id) {
		return domain.User{}, domain.ErrUserNotFound
	}
	return scanUser(q.db.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id))
}

func (q queries) RevokeSession(ctx context.Context, tokenHash []byte, at time.Time) error {
	_, err := q.db.Exec(ctx, `UPDATE sessions SET revoked_at = $2 WHERE token_hash = $1 AND revoked_at IS NULL`, tokenHash, at)
	if err != nil {
		return fmt.Errorf("revoke session: %w", err)
	}
	return nil
}

func (q queries) Cleanup(ctx context.Context, failuresBefore, sessionsBefore, codesBefore time.Time) (int64, error) {
	var total int64
	for _, stmt := range []struct {
		sql string
		arg time.Time
	}{
		{`DELETE FROM sign_in_attempts WHERE attempted_at < $1`, failuresBefore},
		{`DELETE FROM sessions WHERE revoked_at < $1 OR idle_expires_at < $1 OR absolute_expires_at < $1`, sessionsBefore},
		{`DELETE FROM one_time_codes WHERE expires_at < $1`, codesBefore},
	} {
		tag, err := q.db.Exec(ctx, stmt.sql, stmt.arg)
		if err != nil {
			return total, fmt.Errorf("cleanup: %w", err)
		}
		total += tag.RowsAffected()
	}
	return total, nil
}

func (t *txQueries) UserByEmailForUpdate(ctx context.Context, email domain.Email) (domain.User, error) {
	return scanUser(t.db.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE lower(email) = $1 FOR UPDATE`, email.String()))
}

func (t *txQueries) UserByIDForUpdate(ctx context.Context, id string) (domain.User, error) {
	if !validUUID(id) {
		return domain.User{}, domain.ErrUserNotFound
	}
	return scanUser(t.db.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1 FOR UPDATE`, id))
}

func (t *txQueries) InsertUser(ctx context.Context, u domain.User) error {
	_, err := t.db.Exec(ctx, `INSERT INTO users (`+userColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		u.ID, u.Email.String(), u.PasswordHash, u.Name.First(), u.Name.Last(), nullTime(u.EmailVerifiedAt),
		u.CreatedAt, u.UpdatedAt, u.PasswordChangedAt, u.ReferralCode)
	if constraint, ok := platformpg.IsUniqueViolation(err); ok && constraint == "users_email_key" {
		return domain.ErrEmailTaken
	}
	if err != nil {
		return fmt.Errorf("insert user: %w", err)
	}
	return nil
}

func (t *txQueries) UpdateUser(ctx context.Context, u domain.User) error {
	tag, err := t.db.Exec(ctx, `UPDATE users SET password_hash = $2, first_name = $3, last_name = $4,
		email_verified_at = $5, updated_at = $6, password_changed_at = $7 WHERE id = $1`,
		u.ID, u.PasswordHash, u.Name.First(), u.Name.Last(), nullTime(u.EmailVerifiedAt), u.UpdatedAt, u.PasswordChangedAt)
	if err != nil {
		return fmt.Errorf("update user: %w", err)
	}
	if tag.RowsAffected() != 1 {
		return domain.ErrUserNotFound
	}
	return nil
}

func (t *txQueries) RenameUser(ctx context.Context, userID string, name domain.Name, changedAt time.Time) (bool, error) {
	// The old names come from the row as the update found it (locked by it), so a change that
	// puts back the names the user had is applied, and moves names_changed_at, without an event.
	var renamed bool
	err := t.db.QueryRow(ctx, `
		WITH before AS (SELECT id, first_name, last_name FROM users WHERE id = $1 FOR UPDATE)
		UPDATE users u SET first_name = $2, last_name = $3, names_changed_at = $4, updated_at = greatest(u.updated_at, $4)
		FROM before
		WHERE u.id = before.id AND (u.names_changed_at IS NULL OR u.names_changed_at < $4)
		RETURNING (before.first_name, before.last_name) IS DISTINCT FROM ($2::text, $3::text)`,
		userID, name.First(), name.Last(), changedAt).Scan(&renamed)
	if errors.Is(err, pgx.ErrNoRows) {
		// No such user, or a change as new applied already: which one matters to the caller.
		var exists bool
		if err := t.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM users WHERE id = $1)`, userID).Scan(&exists); err != nil {
			return false, fmt.Errorf("rename user: %w", err)
		}
		if !exists {
			return false, domain.ErrUserNotFound
		}
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("rename user: %w", err)
	}
	return renamed, nil
}

func (t *txQueries) Code(ctx context.Context, userID string, purpose domain.CodePurpose) (domain.Code, bool, error) {
	c := domain.Code{UserID: userID, Purpose: purpose}
	var used *time.Time
	err := t.db.QueryRow(ctx, `SELECT code_hash, salt, attempts, created_at, expires_at, used_at
		FROM one_time_codes WHERE user_id = $1 AND purpose = $2 FOR UPDATE`, userID, string(purpose)).
		Scan(&c.Hash, &c.Salt, &c.Attempts, &c.CreatedAt, &c.ExpiresAt, &used)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Code{}, false, nil
	}
	if err != nil {
		return domain.Code{}, false, fmt.Errorf("read code: %w", err)
	}
	if used != nil {
		c.UsedAt = *used
	}
	return c, true, nil
}

func (t *txQueries) SaveCode(ctx context.Context, c domain.Code) error {
	_, err := t.db.Exec(ctx, `INSERT INTO one_time_codes (user_id, purpose, code_hash, salt, attempts, created_at, expires_at, used_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (user_id, purpose) DO UPDATE SET code_hash = EXCLUDED.code_hash, salt = EXCLUDED.salt,
			attempts = EXCLUDED.attempts, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at,
			used_at = EXCLUDED.used_at`,
		c.UserID, string(c.Purpose), c.Hash, c.Salt, c.Attempts, c.CreatedAt, c.ExpiresAt, nullTime(c.UsedAt))
	if err != nil {
		return fmt.Errorf("save code: %w", err)
	}
	return nil
}

func (t *txQueries) DeleteCodes(ctx context.Context, userID string) error {
	if _, err := t.db.Exec(ctx, `DELETE FROM one_time_codes WHERE user_id = $1`, userID); err != nil {
		return fmt.Errorf("delete codes: %w", err)
	}
	return nil
}

func (t *txQueries) InsertSession(ctx context.Context, s domain.Session) error {
	_, err := t.db.Exec(ctx, `INSERT INTO sessions (`+sessionColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
		s.ID, s.UserID, s.TokenHash, s.CreatedAt, s.LastSeenAt, s.IdleExpiresAt, s.AbsoluteExpiresAt,
		nullTime(s.RevokedAt), s.Client.Address, s.Client.UserAgent, s.Device.Browser, s.Device.OS, s.Device.Type,
		string(s.Method))
	if err != nil {
		return fmt.Errorf("insert session: %w", err)
	}
	return nil
}

func (t *txQueries) SessionByTokenHash(ctx context.Context, tokenHash []byte) (domain.Session, error) {
	s, err := scanSession(t.db.QueryRow(ctx, `SELECT `+sessionColumns+` FROM sessions WHERE token_hash = $1 FOR UPDATE`, tokenHash))
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Session{}, domain.ErrSessionInvalid
	}
	return s, err
}

func (t *txQueries) UpdateSession(ctx context.Context, s domain.Session) error {
	_, err := t.db.Exec(ctx, `UPDATE sessions SET last_seen_at = $2, idle_expires_at = $3, revoked_at = $4 WHERE id = $1`,
		s.ID, s.LastSeenAt, s.IdleExpiresAt, nullTime(s.RevokedAt))
	if err != nil {
		return fmt.Errorf("update session: %w", err)
	}
	return nil
}

func (t *txQueries) RevokeUserSessions(ctx context.Context, userID, keepID string, at time.Time) error {
	var err error
	if keepID == "" {
		_, err = t.db.Exec(ctx, `UPDATE sessions SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL`, userID, at)
	} else {
		_, err = t.db.Exec(ctx, `UPDATE sessions SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL AND id <> $3`,
			userID, at, keepID)
	}
	if err != nil {
		return fmt.Errorf("revoke sessions: %w", err)
	}
	return nil
}

func (t *txQueries) Publish(ctx context.Context, msgs ...outbox.Message) error {
	return outbox.Write(ctx, t.tx, msgs...)
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// validUUID keeps ids that cannot be users' (from a token or a request) away from a uuid
// column, which would answer a type error instead of "no rows".
func validUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}
