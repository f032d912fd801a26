package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	platformpg "github.com/thumela/thumela/services/platform/postgres"

	"github.com/thumela/thumela/services/identity/internal/app"
	"github.com/thumela/thumela/services/platform/intconv"
)

//nolint:gosec // G101: column names, not a credential
const passkeyColumns = `id, user_id, credential_id, public_key, sign_count, transports, aaguid, attestation_type,
	attestation_format, attestation, flags, clone_warning, name, created_at, last_used_at`

func scanPasskey(row pgx.Row) (app.Passkey, error) {
	var (
		p         app.Passkey
		signCount int64
		flags     int16
		lastUsed  *time.Time
	)
	err := row.Scan(&p.ID, &p.UserID, &p.CredentialID, &p.PublicKey, &signCount, &p.Transports, &p.AAGUID,
		&p.AttestationType, &p.AttestationFormat, &p.Attestation, &flags, &p.CloneWarning, &p.Name, &p.CreatedAt, &lastUsed)
	if errors.Is(err, pgx.ErrNoRows) {
		return app.Passkey{}, app.ErrPasskeyNotFound
	}
	if err != nil {
		return app.Passkey{}, fmt.Errorf("read passkey: %w", err)
	}
	p.SignCount, p.Flags = intconv.Uint32From64(signCount), intconv.Byte(int(flags))
	if lastUsed != nil {
		p.LastUsedAt = *lastUsed
	}
	return p, nil
}

func (q queries) PasskeysByUser(ctx context.Context, userID string) ([]app.Passkey, error) {
	if !validUUID(userID) {
		return nil, nil
	}
	rows, err := q.db.Query(ctx, `SELECT `+passkeyColumns+` FROM passkeys WHERE user_id = $1 ORDER BY created_at, id`, userID)
	if err != nil {
		return nil, fmt.Errorf("list passkeys: %w", err)
	}
	defer rows.Close()
	var out []app.Passkey
	for rows.Next() {
		p, err := scanPasskey(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list passkeys: %w", err)
	}
	return out, nil
}

func (q queries) PasskeyByCredentialID(ctx context.Context, credentialID []byte) (app.Passkey, error) {
	if len(credentialID) == 0 || len(credentialID) > 1023 {
		return app.Passkey{}, app.ErrPasskeyNotFound
	}
	return scanPasskey(q.db.QueryRow(ctx, `SELECT `+passkeyColumns+` FROM passkeys WHERE credential_id = $1`, credentialID))
}

func (q queries) InsertPasskey(ctx context.Context, p app.Passkey) error {
	transports := p.Transports
	if transports == nil {
		transports = []string{}
	}
	aaguid := p.AAGUID
	if aaguid == nil {
		aaguid = []byte{}
	}
	attestation := p.Attestation
	if len(attestation) == 0 {
		attestation = []byte("{}")
	}
	_, err := q.db.Exec(ctx, `INSERT INTO passkeys (`+passkeyColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
		p.ID, p.UserID, p.CredentialID, p.PublicKey, int64(p.SignCount), transports, aaguid, p.AttestationType,
		p.AttestationFormat, attestation, int16(p.Flags), p.CloneWarning, p.Name, p.CreatedAt, nullTime(p.LastUsedAt))
	if constraint, ok := platformpg.IsUniqueViolation(err); ok && constraint == "passkeys_credential_id_key" {
		return app.ErrPasskeyExists
	}
	if err != nil {
		return fmt.Errorf("insert passkey: %w", err)
	}
	return nil
}

func (q queries) UpdatePasskeyUse(ctx context.Context, p app.Passkey) error {
	_, err := q.db.Exec(ctx, `UPDATE passkeys SET sign_count = $2, flags = $3, clone_warning = $4, last_used_at = $5
		WHERE id = $1`, p.ID, int64(p.SignCount), int16(p.Flags), p.CloneWarning, nullTime(p.LastUsedAt))
	if err != nil {
		return fmt.Errorf("update passkey: %w", err)
	}
	return nil
}

func (q queries) DeletePasskey(ctx context.Context, userID, id string) error {
	if !validUUID(userID) || !validUUID(id) {
		return app.ErrPasskeyNotFound
	}
	tag, err := q.db.Exec(ctx, `DELETE FROM passkeys WHERE id = $1 AND user_id = $2`, id, userID)
	if err != nil {
		return fmt.Errorf("delete passkey: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return app.ErrPasskeyNotFound
	}
	return nil
}

// expiredChallengesPerInsert bounds the clean-up each new challenge does: expired ones go
// without a background job, a few at a time, and never make an insert slow.
const expiredChallengesPerInsert = 50

func (q queries) InsertChallenge(ctx context.Context, c app.Challenge) error {
	if _, err := q.db.Exec(ctx, `DELETE FROM webauthn_challenges WHERE id IN (
		SELECT id FROM webauthn_challenges WHERE expires_at < $1 ORDER BY expires_at LIMIT $2)`,
		c.CreatedAt, expiredChallengesPerInsert); err != nil {
		return fmt.Errorf("drop expired challenges: %w", err)
	}
	_, err := q.db.Exec(ctx, `INSERT INTO webauthn_challenges (id, purpose, session_id, user_id, session_data, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		c.ID, string(c.Purpose), nullString(c.SessionID), nullString(c.UserID), c.SessionData, c.CreatedAt, c.ExpiresAt)
	if err != nil {
		return fmt.Errorf("insert challenge: %w", err)
	}
	return nil
}

const challengeColumns = `id, purpose, coalesce(session_id::text, ''), coalesce(user_id::text, ''), session_data, created_at, expires_at`

func scanChallenge(row pgx.Row) (app.Challenge, error) {
	var (
		c       app.Challenge
		purpose string
	)
	err := row.Scan(&c.ID, &purpose, &c.SessionID, &c.UserID, &c.SessionData, &c.CreatedAt, &c.ExpiresAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return app.Challenge{}, app.ErrChallengeInvalid
	}
	if err != nil {
		return app.Challenge{}, fmt.Errorf("read challenge: %w", err)
	}
	c.Purpose = app.ChallengePurpose(purpose)
	return c, nil
}

// TakeChallenge deletes as it reads: of two concurrent Finish calls, one gets the row.
func (q queries) TakeChallenge(ctx context.Context, id string, purpose app.ChallengePurpose) (app.Challenge, error) {
	if !validUUID(id) {
		return app.Challenge{}, app.ErrChallengeInvalid
	}
	return scanChallenge(q.db.QueryRow(ctx, `DELETE FROM webauthn_challenges WHERE id = $1 AND purpose = $2
		RETURNING `+challengeColumns, id, string(purpose)))
}

func (q queries) TakeSessionChallenge(ctx context.Context, sessionID string, purpose app.ChallengePurpose) (app.Challenge, error) {
	if !validUUID(sessionID) {
		return app.Challenge{}, app.ErrChallengeInvalid
	}
	return scanChallenge(q.db.QueryRow(ctx, `WITH taken AS (
			DELETE FROM webauthn_challenges WHERE session_id = $1 AND purpose = $2 RETURNING *)
		SELECT `+challengeColumns+` FROM taken ORDER BY created_at DESC, id DESC LIMIT 1`, sessionID, string(purpose)))
}

func (q queries) StampStepUp(ctx context.Context, sessionID string, at time.Time) error {
	tag, err := q.db.Exec(ctx, `UPDATE sessions SET stepped_up_at = $2 WHERE id = $1`, sessionID, at)
	if err != nil {
		return fmt.Errorf("stamp step-up: %w", err)
	}
	if tag.RowsAffected() != 1 {
		return fmt.Errorf("stamp step-up: session %s not found", sessionID)
	}
	return nil
}

func (q queries) SessionSteppedUpAt(ctx context.Context, sessionID string) (time.Time, error) {
	if !validUUID(sessionID) {
		return time.Time{}, nil
	}
	var at *time.Time
	err := q.db.QueryRow(ctx, `SELECT stepped_up_at FROM sessions WHERE id = $1`, sessionID).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && at == nil) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("read step-up: %w", err)
	}
	return *at, nil
}

func (q queries) SaveStepUpProof(ctx context.Context, sessionID string, purpose app.StepUpPurpose, at, expires time.Time) error {
	if _, err := q.db.Exec(ctx, `INSERT INTO step_up_proofs (session_id, purpose, proved_at, expires_at)
		VALUES ($1, $2, $3, $4)
		ON CONFLICT (session_id, purpose) DO UPDATE SET proved_at = EXCLUDED.proved_at, expires_at = EXCLUDED.expires_at`,
		sessionID, string(purpose), at, expires); err != nil {
		return fmt.Errorf("save step-up proof: %w", err)
	}
	return nil
}

func (q queries) HasStepUpProof(ctx context.Context, sessionID string, purpose app.StepUpPurpose, now time.Time) (bool, error) {
	if !validUUID(sessionID) {
		return false, nil
	}
	var live bool
	if err := q.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM step_up_proofs
		WHERE session_id = $1 AND purpose = $2 AND expires_at > $3)`, sessionID, string(purpose), now).Scan(&live); err != nil {
		return false, fmt.Errorf("read step-up proof: %w", err)
	}
	return live, nil
}

// TakeStepUpProof deletes as it reads, expired or not, so a proof answers one action.
func (q queries) TakeStepUpProof(ctx context.Context, sessionID string, purpose app.StepUpPurpose, now time.Time) (bool, error) {
	if !validUUID(sessionID) {
		return false, nil
	}
	var expires time.Time
	err := q.db.QueryRow(ctx, `DELETE FROM step_up_proofs WHERE session_id = $1 AND purpose = $2 RETURNING expires_at`,
		sessionID, string(purpose)).Scan(&expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("take step-up proof: %w", err)
	}
	return now.Before(expires), nil
}

func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
