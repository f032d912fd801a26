package domain

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinel errors.
var (
	// ErrNotFound: no such delivery.
	ErrNotFound = errors.New("delivery not found")
	// ErrNotPending: the delivery is past queued; nothing is sent again.
	ErrNotPending = errors.New("delivery is no longer pending")
)

// ClaimedError: another attempt at the same request holds its lease (another replica is
// sending it now).
type ClaimedError struct{ Until time.Time }

func (e *ClaimedError) Error() string {
	return "delivery claimed by another attempt until " + e.Until.Format(time.RFC3339)
}

// InvalidRequestError: the request can never be sent as it is (an unknown template, a
// missing parameter, secrets that do not open). Retrying cannot help.
type InvalidRequestError struct {
	// Reason is safe to log: it names fields and rules, never values.
	Reason string
}

func (e *InvalidRequestError) Error() string { return "invalid notification request: " + e.Reason }

func invalid(format string, args ...any) error {
	return &InvalidRequestError{Reason: fmt.Sprintf(format, args...)}
}

// SendError is a provider's refusal or failure, classified where it happened (the adapter).
// Errors other than a SendError (a timeout, a refused connection) count as transient.
type SendError struct {
	// Permanent: retrying cannot help (the mailbox or the number is refused for good).
	Permanent bool
	// Reason describes the failure for logs and traces without personal data (status codes,
	// the provider's error type), never the recipient or the text.
	Reason string
	// UserReason is the failure in words a sender may read (permanent errors).
	UserReason string
}

func (e *SendError) Error() string {
	kind := "transient"
	if e.Permanent {
		kind = "permanent"
	}
	return kind + " send failure: " + e.Reason
}

// IsPermanent reports whether err is a permanent SendError.
func IsPermanent(err error) bool {
	var se *SendError
	return errors.As(err, &se) && se.Permanent
}

// FieldViolation is one invalid field of a support message.
type FieldViolation struct {
	Field   string
	Message string
}

// ValidationError lists every invalid field of a support message, in the form's order.
type ValidationError struct{ Violations []FieldViolation }

func (e *ValidationError) Error() string {
	msgs := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		msgs[i] = v.Field + ": " + v.Message
	}
	return "invalid request: " + strings.Join(msgs, "; ")
}

// RateLimitedError: too many support messages from one visitor's client address, or from one
// signed-in sender's account (Account); try after RetryAfter.
type RateLimitedError struct {
	RetryAfter time.Duration
	Account    bool
}

func (e *RateLimitedError) Error() string {
	if e.Account {
		return fmt.Sprintf("too many support messages from the account; retry after %s", e.RetryAfter)
	}
	return fmt.Sprintf("too many support messages from the address; retry after %s", e.RetryAfter)
}

// Message is what the sender reads: whose budget is spent (the connection's, the account's) and
// when to try again, in whole minutes rounded up (at least 1), as the web's tooManyMessages
// counts them: "Too many messages from your account. Please try again in 7 minutes."
func (e *RateLimitedError) Message() string {
	when := "later"
	if e.RetryAfter > 0 {
		minutes := max(1, int64((e.RetryAfter+time.Minute-1)/time.Minute))
		when = fmt.Sprintf("in %d minutes", minutes)
		if minutes == 1 {
			when = "in 1 minute"
		}
	}
	if e.Account {
		return fmt.Sprintf(MsgRateLimitedAccount, when)
	}
	return fmt.Sprintf(MsgRateLimited, when)
}
