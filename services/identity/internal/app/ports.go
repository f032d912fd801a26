package app

import (
	"context"
	"time"

	"github.com/thumela/thumela/services/platform/outbox"

	"github.com/thumela/thumela/services/identity/internal/domain"
)

// Store is identity's storage. Its methods run on their own outside InTx; inside InTx, fn's
// Tx sees and changes everything in one transaction, outbox messages included.
type Store interface {
	Queries
	InTx(ctx context.Context, fn func(tx Tx) error) error
}

// Queries are the reads and writes that need no transaction around them.
type Queries interface {
	SessionQueries
	PasskeyQueries
	// UserByEmail and UserByID answer domain.ErrUserNotFound when there is no such user.
	UserByEmail(ctx context.Context, email domain.Email) (domain.User, error)
	UserByID(ctx context.Context, id string) (domain.User, error)
	ThrottleQueries
	// RevokeSession marks the session with this token hash revoked; unknown hashes are ignored.
	RevokeSession(ctx context.Context, tokenHash []byte, at time.Time) error
	// Cleanup deletes what no rule will read again: failures older than failuresBefore,
	// sessions that ended before sessionsBefore, codes that expired before codesBefore.
	Cleanup(ctx context.Context, failuresBefore, sessionsBefore, codesBefore time.Time) (int64, error)
}

// Tx is one transaction.
type Tx interface {
	Queries
	// UserByEmailForUpdate and UserByIDForUpdate lock the user's row until the transaction
	// ends, which serialises everything done to one account (codes, sessions, passwords).
	UserByEmailForUpdate(ctx context.Context, email domain.Email) (domain.User, error)
	UserByIDForUpdate(ctx context.Context, id string) (domain.User, error)
	// InsertUser answers domain.ErrEmailTaken when the e-mail is registered.
	InsertUser(ctx context.Context, u domain.User) error
	UpdateUser(ctx context.Context, u domain.User) error
	// RenameUser gives the user the names of their profile as changed at changedAt, unless a
	// change at or after changedAt was applied already. It reports whether the names differ
	// from the ones the user had; an unknown user is domain.ErrUserNotFound.
	RenameUser(ctx context.Context, userID string, name domain.Name, changedAt time.Time) (bool, error)
	// Code returns the user's code for purpose (live or not), locked, or false.
	Code(ctx context.Context, userID string, purpose domain.CodePurpose) (domain.Code, bool, error)
	// SaveCode stores c as the user's one code for its purpose, replacing the previous one.
	SaveCode(ctx context.Context, c domain.Code) error
	// DeleteCodes removes every code of the user.
	DeleteCodes(ctx context.Context, userID string) error
	InsertSession(ctx context.Context, s domain.Session) error
	// SessionByTokenHash returns the session, locked, or domain.ErrSessionInvalid.
	SessionByTokenHash(ctx context.Context, tokenHash []byte) (domain.Session, error)
	UpdateSession(ctx context.Context, s domain.Session) error
	// RevokeUserSessions revokes every open session of the user except keepID (may be "").
	RevokeUserSessions(ctx context.Context, userID, keepID string, at time.Time) error
	// Publish writes messages to the outbox, to be published after commit.
	Publish(ctx context.Context, msgs ...outbox.Message) error
}

// SessionQueries are the sessions list's and the devices' reads and writes. On a Tx they run
// in its transaction.
type SessionQueries interface {
	// LiveSessions lists the user's sessions that are neither revoked nor expired at now, the
	// most recently seen first.
	LiveSessions(ctx context.Context, userID string, now time.Time) ([]domain.Session, error)
	// RevokeSessions revokes the user's open sessions that q selects and returns their ids.
	RevokeSessions(ctx context.Context, q RevokeQuery) ([]string, error)
	// RecordDevice notes that the user signed in from the device (its hash) at now and reports
	// whether the device was new to the user.
	RecordDevice(ctx context.Context, userID string, deviceHash []byte, now time.Time) (bool, error)
	// SignedInBefore reports whether the user has a session (live or not yet cleaned up) or a
	// known device other than deviceHash.
	SignedInBefore(ctx context.Context, userID string, deviceHash []byte) (bool, error)
}

// PasskeyQueries are the passkeys' and challenges' reads and writes.
type PasskeyQueries interface {
	// PasskeysByUser lists the user's passkeys, oldest first.
	PasskeysByUser(ctx context.Context, userID string) ([]Passkey, error)
	// PasskeyByCredentialID answers ErrPasskeyNotFound when no passkey has that credential id.
	PasskeyByCredentialID(ctx context.Context, credentialID []byte) (Passkey, error)
	// InsertPasskey answers ErrPasskeyExists when the credential id is taken.
	InsertPasskey(ctx context.Context, p Passkey) error
	// UpdatePasskeyUse writes what an assertion changed: sign count, flags, clone warning and
	// last use.
	UpdatePasskeyUse(ctx context.Context, p Passkey) error
	// DeletePasskey deletes the user's passkey; ErrPasskeyNotFound when the user has none
	// with that id (another user's included).
	DeletePasskey(ctx context.Context, userID, id string) error
	// InsertChallenge stores c (and drops some expired challenges on the way).
	InsertChallenge(ctx context.Context, c Challenge) error
	// TakeChallenge deletes and returns the challenge with this id and purpose, or
	// ErrChallengeInvalid. Expiry is the caller's to check.
	TakeChallenge(ctx context.Context, id string, purpose ChallengePurpose) (Challenge, error)
	// TakeSessionChallenge deletes every challenge of the session for purpose and returns the
	// newest, or ErrChallengeInvalid.
	TakeSessionChallenge(ctx context.Context, sessionID string, purpose ChallengePurpose) (Challenge, error)
	// StampStepUp records a step-up of the session at at.
	StampStepUp(ctx context.Context, sessionID string, at time.Time) error
	// SessionSteppedUpAt returns the session's last step-up (zero when none).
	SessionSteppedUpAt(ctx context.Context, sessionID string) (time.Time, error)
	// SaveStepUpProof records a step-up of the session for purpose (not money), live until
	// expires, replacing the session's earlier one for that purpose.
	SaveStepUpProof(ctx context.Context, sessionID string, purpose StepUpPurpose, at, expires time.Time) error
	// HasStepUpProof reports whether the session has a proof for purpose live at now.
	HasStepUpProof(ctx context.Context, sessionID string, purpose StepUpPurpose, now time.Time) (bool, error)
	// TakeStepUpProof deletes the session's proof for purpose and reports whether it was live
	// at now: of two concurrent takers, one gets it.
	TakeStepUpProof(ctx context.Context, sessionID string, purpose StepUpPurpose, now time.Time) (bool, error)
}

// ThrottleQueries are the throttle's reads and writes (PostgreSQL's throttle.go).
type ThrottleQueries interface {
	// RecordFailure stores a failed attempt for the throttles.
	RecordFailure(ctx context.Context, f Failure) error
	// FailureStats counts the failures matching q since q.Since and gives the latest one's time.
	FailureStats(ctx context.Context, q FailureQuery) (FailureStats, error)
}
