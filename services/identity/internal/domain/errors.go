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
	// ErrEmailTaken: an account with this e-mail exists. Only the storage says it: SignUp
	// answers the same for a taken address as for a new one.
	ErrEmailTaken = errors.New("an account with this email already exists")
	// ErrInvalidCredentials: unknown e-mail or wrong password; the two are never told apart
	// (Unauthenticated).
	ErrInvalidCredentials = errors.New("invalid email or password")
	// ErrEmailNotVerified: the password is right but the e-mail is not verified yet
	// (FailedPrecondition).
	ErrEmailNotVerified = errors.New("email not verified")
	// ErrCodeInvalid: a code form's one refusal: no such account, no code, or a wrong,
	// expired, used or dead code, or an account already verified. The cases are never told
	// apart, so the forms reveal nothing about which addresses have accounts (InvalidArgument
	// on "code").
	ErrCodeInvalid = errors.New("code invalid or expired")
	// ErrCodeExpired: no live code: never sent, expired, already used, replaced, or out of
	// tries. Code.Check's answer; the app answers ErrCodeInvalid.
	ErrCodeExpired = errors.New("code expired")
	// ErrTooManyCodeAttempts: the code took its last wrong try (Code.Check's answer).
	ErrTooManyCodeAttempts = errors.New("too many wrong codes")
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

// CodeIncorrectError is a wrong code that still has tries left (Code.Check's answer; the app
// answers ErrCodeInvalid, never the count).
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
