// Package domain holds identity's rules: what a valid e-mail, name and password are, how
// passwords are hashed, how one-time codes and sessions are made and checked. It has no I/O
// beyond crypto/rand; the app layer composes it with storage.
package domain

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinel errors. The ports layer maps each to a gRPC code and the message users see.
var (
	// ErrEmailTaken: an account with this e-mail exists (AlreadyExists).
	ErrEmailTaken = errors.New("an account with this email already exists")
	// ErrInvalidCredentials: unknown e-mail or wrong password; the two are never told apart
	// (Unauthenticated).
	ErrInvalidCredentials = errors.New("invalid email or password")
	// ErrEmailNotVerified: the password is right but the e-mail is not verified yet
	// (FailedPrecondition).
	ErrEmailNotVerified = errors.New("email not verified")
	// ErrCodeExpired: no live code: never sent, expired, already used, replaced, or out of
	// tries (FailedPrecondition).
	ErrCodeExpired = errors.New("code expired")
	// ErrTooManyCodeAttempts: the code took its last wrong try (FailedPrecondition).
	ErrTooManyCodeAttempts = errors.New("too many wrong codes")
	// ErrAlreadyVerified: the code was used and the account is verified (FailedPrecondition).
	ErrAlreadyVerified = errors.New("email already verified")
	// ErrSessionInvalid: unknown, revoked or expired session (Unauthenticated).
	ErrSessionInvalid = errors.New("session invalid")
	// ErrUserNotFound: no such user, or not the caller (NotFound).
	ErrUserNotFound = errors.New("user not found")
	// ErrWrongCurrentPassword: ChangePassword's current password is wrong (InvalidArgument).
	ErrWrongCurrentPassword = errors.New("current password is incorrect")
	// ErrInvalidServiceCredentials: IssueServiceToken's name or secret is wrong
	// (Unauthenticated).
	ErrInvalidServiceCredentials = errors.New("invalid service credentials")
	// ErrUnauthenticated: a method that needs a user's token was called without one.
	ErrUnauthenticated = errors.New("unauthenticated")
)

// CodeIncorrectError is a wrong code that still has tries left (InvalidArgument).
type CodeIncorrectError struct {
	Remaining int
}

func (e *CodeIncorrectError) Error() string {
	return fmt.Sprintf("code incorrect, %d tries left", e.Remaining)
}

// ThrottledError says the caller must wait RetryAfter before trying again
// (ResourceExhausted with RetryInfo).
type ThrottledError struct {
	// What is being throttled, for the message: ThrottleSignIn, ThrottleCodes, ThrottleResend.
	What       ThrottleKind
	RetryAfter time.Duration
}

// ThrottleKind names what a ThrottledError limits.
type ThrottleKind int

const (
	// ThrottleSignIn: too many failed sign-ins for the account or the address.
	ThrottleSignIn ThrottleKind = iota + 1
	// ThrottleCodes: too many wrong codes for the account.
	ThrottleCodes
	// ThrottleResend: a code was sent less than the resend interval ago.
	ThrottleResend
)

func (e *ThrottledError) Error() string {
	return fmt.Sprintf("throttled (%d), retry after %s", e.What, e.RetryAfter)
}

// FieldViolation is one invalid field of a request, in the words the user sees.
type FieldViolation struct {
	Field       string
	Description string
}

// ValidationError lists every invalid field of a request (InvalidArgument with
// google.rpc.BadRequest).
type ValidationError struct {
	Violations []FieldViolation
}

func (e *ValidationError) Error() string {
	return "invalid request: " + e.Message()
}

// Message joins the descriptions into one readable sentence list.
func (e *ValidationError) Message() string {
	parts := make([]string, 0, len(e.Violations))
	for _, v := range e.Violations {
		parts = append(parts, v.Description)
	}
	return strings.Join(parts, " ")
}

// Add records a violation.
func (e *ValidationError) Add(field string, descriptions ...string) {
	for _, d := range descriptions {
		e.Violations = append(e.Violations, FieldViolation{Field: field, Description: d})
	}
}

// Err returns e when it holds violations, else nil.
func (e *ValidationError) Err() error {
	if e == nil || len(e.Violations) == 0 {
		return nil
	}
	return e
}
