package domain

import (
	"errors"
	"strings"
)

// Sentinel errors; the ports layer maps each to a status code once.
var (
	// ErrNotFound: no such transfer for this user (another user's transfer is not found).
	ErrNotFound = errors.New("transfer not found")
	// ErrIdempotencyConflict: the idempotency key was used before with a different request.
	ErrIdempotencyConflict = errors.New("idempotency key reused with a different request")
	// ErrInvalidTransition: a step the state machine does not allow (never backwards).
	ErrInvalidTransition = errors.New("invalid transfer state transition")
	// ErrNotCancellable: only a voucher awaiting collection can be cancelled.
	ErrNotCancellable = errors.New("transfer cannot be cancelled")
	// ErrVoucherNumberTaken: the voucher number drawn is already in use; draw another.
	ErrVoucherNumberTaken = errors.New("voucher number already in use")
)

// MsgPaymentMethodNotFound is what the sender reads of a card that is not theirs or no longer
// exists (another user's card answers the same: its existence is not given away).
const MsgPaymentMethodNotFound = "Payment method not found."

// Violation is one invalid field of a request; Message is what the sender reads.
type Violation struct {
	Field   string
	Message string
}

// ValidationError lists every invalid field of a request, in the form's order.
type ValidationError struct{ Violations []Violation }

func (e *ValidationError) Error() string {
	msgs := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		msgs[i] = v.Field + ": " + v.Message
	}
	return "invalid request: " + strings.Join(msgs, "; ")
}

func (e *ValidationError) add(field, msg string) {
	e.Violations = append(e.Violations, Violation{field, msg})
}

func (e *ValidationError) orNil() error {
	if len(e.Violations) == 0 {
		return nil
	}
	return e
}
