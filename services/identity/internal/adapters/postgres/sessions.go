package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/thumela/thumela/services/identity/internal/app"
	"github.com/thumela/thumela/services/identity/internal/domain"
)

// The sessions list, revocations that say what they revoked, and the devices a user has signed
// in from (app.SessionQueries).

const sessionColumns = `id, user_id, token_hash, created_at, last_seen_at, idle_expires_at, absolute_expires_at,
	revoked_at, client_address, user_agent, browser, os, device_type, method`

// scanSession reads one row of sessionColumns; pgx.ErrNoRows passes through unwrapped.
func scanSession(row pgx.Row) (domain.Session, error) {
	var (
		s       domain.Session
		revoked *time.Time
		method  string
	)
	err := row.Scan(&s.ID, &s.UserID, &s.TokenHash, &s.CreatedAt, &s.LastSeenAt, &s.IdleExpiresAt, &s.AbsoluteExpiresAt,
		&revoked, &s.Client.Address, &s.Client.UserAgent, &s.Device.Browser, &s.Device.OS, &s.Device.Type, &method)
	if err == pgx.ErrNoRows {
		return domain.Session{}, err
	}
	if err != nil {
		return domain.Session{}, fmt.Errorf("read session: %w", err)
	}
	if revoked != nil {
		s.RevokedAt = *revoked
	}
	s.Method = domain.SignInMethod(method)
	return s, nil
}

func (q queries) LiveSessions(ctx context.Context, userID string, now time.Time) ([]domain.Session, error) {
	if !validUUID(userID) {
		return nil, nil
	}
	rows, err := q.db.Query(ctx, `SELECT `+sessionColumns+` FROM sessions
		WHERE user_id = $1 AND revoked_at IS NULL AND idle_expires_at > $2 AND absolute_expires_at > $2
		ORDER BY last_seen_at DESC, id`, userID, now)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	var out []domain.Session
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}

func (q queries) RevokeSessions(ctx context.Context, r app.RevokeQuery) ([]string, error) {
	if !validUUID(r.UserID) || (r.Only != "" && !validUUID(r.Only)) || (r.Except != "" && !validUUID(r.Except)) {
		return nil, nil
	}
	// Empty ids select nothing to keep (or everything): '' is no uuid, so they go as NULL.
	rows, err := q.db.Query(ctx, `UPDATE sessions SET revoked_at = $2
		WHERE user_id = $1 AND revoked_at IS NULL
		  AND ($3::uuid IS NULL OR id = $3) AND ($4::uuid IS NULL OR id <> $4)
		RETURNING id`, r.UserID, r.At, nullID(r.Only), nullID(r.Except))
	if err != nil {
		return nil, fmt.Errorf("revoke sessions: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("revoke sessions: %w", err)
	}
	return ids, nil
}

func (q queries) RecordDevice(ctx context.Context, userID string, deviceHash []byte, now time.Time) (bool, error) {
	// xmax is 0 on a row this statement inserted, the updating transaction's id otherwise.
	var inserted bool
	err := q.db.QueryRow(ctx, `INSERT INTO known_devices (user_id, device_hash, first_seen_at, last_seen_at)
		VALUES ($1, $2, $3, $3)
		ON CONFLICT (user_id, device_hash) DO UPDATE SET last_seen_at = EXCLUDED.last_seen_at
		RETURNING xmax = 0`, userID, deviceHash, now).Scan(&inserted)
	if err != nil {
		return false, fmt.Errorf("record device: %w", err)
	}
	return inserted, nil
}

// signedInBeforeSQL asks whether the user has any session, live or revoked (sessions_user_all_idx),
// or a known device other than this one ($2; the primary key).
const signedInBeforeSQL = `SELECT EXISTS (SELECT 1 FROM sessions WHERE user_id = $1)
		OR EXISTS (SELECT 1 FROM known_devices WHERE user_id = $1 AND device_hash <> $2)`

func (q queries) SignedInBefore(ctx context.Context, userID string, deviceHash []byte) (bool, error) {
	var before bool
	err := q.db.QueryRow(ctx, signedInBeforeSQL, userID, deviceHash).Scan(&before)
	if err != nil {
		return false, fmt.Errorf("earlier sign-ins: %w", err)
	}
	return before, nil
}

func nullID(id string) *string {
	if id == "" {
		return nil
	}
	return &id
}
