package domain

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxNameLen is the longest first or last name accepted, in characters.
const MaxNameLen = 100

// Name is a person's first and last name, trimmed and checked. Build it with ParseName.
type Name struct {
	first, last string
}

// ParseName trims both names and checks that each is present, at most MaxNameLen characters,
// valid UTF-8 and free of control characters. Violations are reported on "first_name" and
// "last_name".
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
	s := strings.TrimSpace(raw)
	switch {
	case s == "":
		v.Add(field, label+" is required.")
	case !utf8.ValidString(s) || strings.IndexFunc(s, unicode.IsControl) >= 0:
		v.Add(field, label+" contains characters that are not allowed.")
	case utf8.RuneCountInString(s) > MaxNameLen:
		v.Add(field, label+" must be at most 100 characters.")
	}
	return s
}
