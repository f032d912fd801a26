// Package domain holds the profile: a user's names and South African mobile number, and the
// rules a change to them must satisfy.
package domain

import (
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/platform/personname"
)

// ErrNotFound: no profile for that user id (or one the caller may not see).
var ErrNotFound = errors.New("profile not found")

// MaxNameLength is the longest first or last name, in characters (the rule every service
// applies to a person's name: platform/personname).
const MaxNameLength = personname.MaxLen

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
	MsgFirstNameTooLong  = "First name must be at most 50 characters"
	MsgLastNameTooLong   = "Last name must be at most 50 characters"
	MsgFirstNameNoLetter = "First name must include at least one letter"
	MsgLastNameNoLetter  = "Last name must include at least one letter"
	// MsgNameCharacters: a name with a control, format or bidirectional-override character (or
	// a digit, a symbol, an emoji). Names reach other people's SMS and e-mail.
	MsgNameCharacters = personname.MsgCharacters
	// MsgNameWebAddress: a name that carries a web address ("Visit fnb-secure.co.za").
	MsgNameWebAddress = personname.MsgWebAddress
	MsgInvalidPhone   = "Please enter a valid South African mobile number."
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

// NewChange validates a change: both names required after trimming, at most MaxNameLength
// characters, letters, marks, spaces, apostrophes, hyphens and full stops only, no web address;
// phone empty (cleared) or a South African mobile number in any common notation. All
// violations are reported at once.
func NewChange(firstName, lastName, phone string) (Change, error) {
	var violations []FieldViolation
	first, v := validateName(firstName, FieldFirstName, MsgFirstNameRequired, MsgFirstNameTooLong, MsgFirstNameNoLetter)
	violations = append(violations, v...)
	last, v := validateName(lastName, FieldLastName, MsgLastNameRequired, MsgLastNameTooLong, MsgLastNameNoLetter)
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

func validateName(raw, field, required, tooLong, noLetter string) (string, []FieldViolation) {
	name, problem := personname.Parse(raw)
	msg := ""
	switch problem {
	case personname.OK:
		return name, nil
	case personname.Empty:
		msg = required
	case personname.TooLong:
		msg = tooLong
	case personname.NoLetter:
		msg = noLetter
	case personname.WebAddress:
		msg = MsgNameWebAddress
	default:
		msg = MsgNameCharacters
	}
	return "", []FieldViolation{{Field: field, Message: msg}}
}

// SignUpName prepares a name carried by the access token (the one given at sign-up) for a new
// profile: what the name rule allows of it (an account made before the rule may carry a
// control character, or a web address, whose word is dropped), cut to MaxNameLength
// characters. It may be empty; the user then fills it in on the profile page.
func SignUpName(name string) string {
	return personname.Clean(name)
}
