package domain

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/platform/randfmt"
)

// Money is an amount of rand in integer cents; never a float.
type Money struct{ cents int64 }

// Cents makes a Money of c cents.
func Cents(c int64) Money { return Money{cents: c} }

// Cents returns the amount in cents.
func (m Money) Cents() int64 { return m.cents }

// MaxAmount bounds one charge or refund: R1 000 000,00, far above any transfer limit and far
// from int64's range.
var MaxAmount = Cents(100_000_000)

// ParseAmount checks a charge or refund amount: positive and at most MaxAmount.
func ParseAmount(cents int64) (Money, *FieldViolation) {
	if cents <= 0 || cents > MaxAmount.cents {
		return Money{}, &FieldViolation{Field: FieldAmount, Message: "Amount must be between 1 cent and " + randfmt.EnZA(MaxAmount.cents)}
	}
	return Cents(cents), nil
}

// MaxIdempotencyKeyLength bounds an idempotency key (a transfer id is 36 characters).
const MaxIdempotencyKeyLength = 200

// ParseIdempotencyKey checks a key: 1-200 printable characters.
func ParseIdempotencyKey(key string) (string, *FieldViolation) {
	ok := key != "" && len(key) <= MaxIdempotencyKeyLength && utf8.ValidString(key) &&
		strings.IndexFunc(key, func(r rune) bool { return !unicode.IsPrint(r) }) < 0
	if !ok {
		return "", &FieldViolation{Field: FieldIdempotency, Message: "Idempotency key must be 1 to 200 printable characters"}
	}
	return key, nil
}

// MaxDescriptionLength bounds a charge description or refund reason.
const MaxDescriptionLength = 200

// ParseNote checks a free-text description or reason: at most 200 characters and no card
// number (it is stored in clear and sent to the processor).
func ParseNote(field, s string) (string, *FieldViolation) {
	s = strings.TrimSpace(s)
	switch {
	case !utf8.ValidString(s) || utf8.RuneCountInString(s) > MaxDescriptionLength:
		return "", &FieldViolation{Field: field, Message: "Must be at most 200 characters"}
	case ContainsCardNumber(s):
		return "", &FieldViolation{Field: field, Message: "Must not contain a card number"}
	}
	return s, nil
}

// Status of a charge or refund.
type Status string

// Statuses. A row is pending from its insert until the processor's answer is recorded.
const (
	StatusPending  Status = "pending"
	StatusApproved Status = "approved" // charge taken, or refund made
	StatusDeclined Status = "declined" // charge or refund refused by the processor
)

// Charge is one charge of a tokenized card, recorded before the processor is called.
type Charge struct {
	ID              uuid.UUID
	IdempotencyKey  string
	UserID          uuid.UUID
	PaymentMethodID uuid.UUID
	Token           string
	Amount          Money
	Description     string
	Status          Status
	DeclineCode     string
	DeclineMessage  string
	// ProcessorReference is the processor's id of the charge; refunds quote it.
	ProcessorReference string
	CreatedAt          time.Time
}

// Pending reports whether the processor's answer is not recorded yet.
func (c Charge) Pending() bool { return c.Status == StatusPending }

// Refund is one refund of an approved charge.
type Refund struct {
	ID             uuid.UUID
	IdempotencyKey string
	ChargeID       uuid.UUID
	Amount         Money
	Reason         string
	Status         Status
	FailureCode    string
	FailureMessage string
	// ChargeReference is the processor's id of the refunded charge.
	ChargeReference    string
	ProcessorReference string
	CreatedAt          time.Time
}

// Pending reports whether the processor's answer is not recorded yet.
func (r Refund) Pending() bool { return r.Status == StatusPending }

// Outcome is a processor's answer to a charge, refund or verification.
type Outcome struct {
	Approved       bool
	Reference      string // the processor's id of the operation
	DeclineCode    string // e.g. card_declined, insufficient_funds
	DeclineMessage string
}
