// Package app is identity's use cases: sign-up, verification, sign-in, sessions, passwords and
// tokens. It composes the domain's rules with a Store (PostgreSQL in production) and signs
// access tokens; the ports layer turns requests and errors into gRPC.
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

// FailureKind is what failed: a password or a one-time code.
type FailureKind string

const (
	FailurePassword FailureKind = "password"
	FailureCode     FailureKind = "code"
)

// Failure is one failed attempt. Account is the normalised e-mail as typed, known or not, so an
// unknown e-mail is throttled exactly like a known one.
type Failure struct {
	Kind    FailureKind
	Account string
	Address string
	At      time.Time
}

// FailureQuery selects failures of one kind since Since by the pair, the address or the
// account (By says which of Account and Address count).
type FailureQuery struct {
	Kind    FailureKind
	By      FailureKey
	Account string
	Address string
	Since   time.Time
}
