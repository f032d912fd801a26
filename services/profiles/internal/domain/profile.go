// Package domain holds the profile: a user's names and South African mobile number, and the
// rules a change to them must satisfy.
package domain

import (
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// ErrNotFound: no profile for that user id (or one the caller may not see).
var ErrNotFound = errors.New("profile not found")

// MaxNameLength is the longest first or last name, in characters.
const MaxNameLength = 100

// Field names, as in the API's request messages, so violations map onto form fields.
const (
	FieldFirstName   = "first_name"
	FieldLastName    = "last_name"
	FieldPhoneNumber = "phone_number"
)

// User-facing messages.
const (
	MsgFirstNameRequired = "First name is required"
	MsgLastNameRequired  = "Last name is required"
	MsgFirstNameTooLong  = "First name must be at most 100 characters"
	MsgLastNameTooLong   = "Last name must be at most 100 characters"
	MsgInvalidPhone      = "Please enter a valid South African mobile number."
)

// FieldViolation is one invalid field.
type FieldViolation struct {
	Field   string
	Message string
}

// ValidationError lists every invalid field of a change, in the form's order.
type ValidationError struct{ Violations []FieldViolation }

func (e *ValidationError) Error() string {
	msgs := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		msgs[i] = v.Field + ": " + v.Message
	}
	return "invalid profile: " + strings.Join(msgs, "; ")
}

// Profile is a user's profile as stored.
type Profile struct {
	UserID    uuid.UUID
	FirstName string
	LastName  string
	Phone     Phone // zero when none
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Change is a validated replacement of a profile's editable fields.
type Change struct {
	firstName, lastName string
	phone               Phone
}

// FirstName is the trimmed first name.
func (c Change) FirstName() string { return c.firstName }

// LastName is the trimmed last name.
func (c Change) LastName() string { return c.lastName }

// Phone is the normalised mobile number, zero when cleared.
func (c Change) Phone() Phone { return c.phone }

// NewChange validates a change: both names required after trimming and at most
// MaxNameLength characters; phone empty (cleared) or a South African mobile number in any
// common notation. All violations are reported at once.
func NewChange(firstName, lastName, phone string) (Change, error) {
	var violations []FieldViolation
	first, v := validateName(firstName, FieldFirstName, MsgFirstNameRequired, MsgFirstNameTooLong)
	violations = append(violations, v...)
	last, v := validateName(lastName, FieldLastName, MsgLastNameRequired, MsgLastNameTooLong)
	violations = append(violations, v...)
	p, err := ParsePhone(phone)
	if err != nil {
		violations = append(violations, FieldViolation{Field: FieldPhoneNumber, Message: MsgInvalidPhone})
	}
	if len(violations) > 0 {
		return Change{}, &ValidationError{Violations: violations}
	}
	return Change{firstName: first, lastName: last, phone: p}, nil
}

func validateName(name, field, required, tooLong string) (string, []FieldViolation) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", []FieldViolation{{Field: field, Message: required}}
	case utf8.RuneCountInString(name) > MaxNameLength:
		return "", []FieldViolation{{Field: field, Message: tooLong}}
	}
	return name, nil
}

// SignUpName prepares a name carried by the access token (the one given at sign-up) for a new
// profile: trimmed and cut to MaxNameLength characters. It may be empty; the user then fills
// it in on the profile page.
func SignUpName(name string) string {
	name = strings.ToValidUTF8(strings.TrimSpace(name), "")
	if utf8.RuneCountInString(name) > MaxNameLength {
		name = strings.TrimSpace(string([]rune(name)[:MaxNameLength]))
	}
	return name
}
