package domain

import (
	"errors"
	"strings"
)

// Errors the API maps to status codes (grpcport.toStatus). None of their texts, nor any error
// built on them, carries card data.
var (
	// ErrNotFound: no such payment method, charge or refund for this caller (another user's
	// id answers exactly like an unknown one).
	ErrNotFound = errors.New("not found")
	// ErrAlreadySaved: the user has saved this card number before (same keyed fingerprint).
	ErrAlreadySaved = errors.New("card already saved")
	// ErrInUse: a transfer or a charge uses the method, so it cannot be deleted.
	ErrInUse = errors.New("payment method is used in transactions")
	// ErrTooManyMethods: the user has MaxMethodsPerUser methods already.
	ErrTooManyMethods = errors.New("too many payment methods")
	// ErrIdempotencyConflict: an idempotency key was used before for a different request.
	ErrIdempotencyConflict = errors.New("idempotency key already used for a different request")
	// ErrNotRefundable: only an approved charge can be refunded.
	ErrNotRefundable = errors.New("charge cannot be refunded")
	// ErrRefundExceedsCharge: the refunds of a charge would exceed its amount.
	ErrRefundExceedsCharge = errors.New("refund exceeds the charge")
	// ErrProcessorUnavailable: the processor could not be reached or did not answer in time;
	// the operation is recorded as pending and a retry with the same idempotency key resumes
	// it without charging twice.
	ErrProcessorUnavailable = errors.New("payment processor unavailable")
	// ErrInProgress: the same idempotency key is being processed by another request right
	// now and did not finish while this one waited.
	ErrInProgress = errors.New("operation in progress")
)

// MaxMethodsPerUser is how many payment methods one user may save.
const MaxMethodsPerUser = 25

// DeclinedError is the processor's refusal of a card: at tokenization (the first
// authorization) or of a refund. Code is machine-readable (card_declined, …); Message is the
// processor's text for people.
type DeclinedError struct {
	Code    string
	Message string
}

func (e *DeclinedError) Error() string { return "declined: " + e.Code }

// FieldViolation is one invalid field.
type FieldViolation struct {
	Field   string
	Message string
}

// ValidationError lists every invalid field of a request, in the form's order.
type ValidationError struct{ Violations []FieldViolation }

func (e *ValidationError) Error() string {
	msgs := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		msgs[i] = v.Field + ": " + v.Message
	}
	return "invalid request: " + strings.Join(msgs, "; ")
}

// Violations collects a request's invalid fields while its parts are parsed, in the form's
// order, so every parser can say what is wrong at once.
type Violations []FieldViolation

// Add records v; a nil v (the part was valid) adds nothing.
func (vs *Violations) Add(v *FieldViolation) {
	if v != nil {
		*vs = append(*vs, *v)
	}
}

// Err is a *ValidationError with the collected violations, or nil when there are none.
func (vs Violations) Err() error {
	if len(vs) == 0 {
		return nil
	}
	return &ValidationError{Violations: vs}
}

// Invalid returns a ValidationError for one field.
func Invalid(field, msg string) *ValidationError {
	return &ValidationError{Violations: []FieldViolation{{Field: field, Message: msg}}}
}
