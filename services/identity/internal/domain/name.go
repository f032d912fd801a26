package domain

import (
	"fmt"

	"github.com/thumela/thumela/services/platform/personname"
)

// MaxNameLen is the longest first or last name accepted, in characters (the rule every
// service applies to a person's name: platform/personname).
const MaxNameLen = personname.MaxLen

// Name is a person's first and last name, trimmed and checked. Build it with ParseName.
type Name struct {
	first, last string
}

// ParseName trims both names and checks each with personname.Parse: present, at most
// MaxNameLen characters, letters, marks, spaces, apostrophes, hyphens and full stops only (no
// control, format or bidirectional-override characters: names reach other people's SMS and
// e-mail), and no web address (the first name is the sender's name in the recipient's voucher
// SMS). Violations are reported on "first_name" and "last_name".
func ParseName(first, last string) (Name, error) {
	v := &ValidationError{}
	f := checkName(v, "first_name", "First name", first)
	l := checkName(v, "last_name", "Last name", last)
	if err := v.Err(); err != nil {
		return Name{}, err
	}
	return Name{first: f, last: l}, nil
}

// First returns the first name.
func (n Name) First() string { return n.first }

// Last returns the last name.
func (n Name) Last() string { return n.last }

func checkName(v *ValidationError, field, label, raw string) string {
	name, problem := personname.Parse(raw)
	switch problem {
	case personname.OK:
	case personname.Empty:
		v.Add(field, label+" is required.")
	case personname.TooLong:
		v.Add(field, fmt.Sprintf("%s must be at most %d characters.", label, MaxNameLen))
	case personname.NoLetter:
		v.Add(field, label+" must include at least one letter.")
	case personname.WebAddress:
		v.Add(field, personname.MsgWebAddress)
	default:
		// Characters, and any problem the rule learns later: refused, never an empty name let by.
		v.Add(field, personname.MsgCharacters)
	}
	return name
}
