package domain

import (
	"strings"
)

// Email is a normalised e-mail address: trimmed and lower-cased, so that "Thandi@Example.COM "
// and "thandi@example.com" are one account. Build it with ParseEmail.
type Email struct {
	s string
}

// Maximum lengths from RFC 5321: 64 for the local part, 254 for a usable path.
const (
	maxEmailLen     = 254
	maxLocalPartLen = 64
	maxLabelLen     = 63
)

// MsgInvalidEmail is the description of an invalid "email" field.
const MsgInvalidEmail = "Please enter a valid email address."

// ParseEmail trims, lower-cases and validates raw. It accepts the dot-atom addresses people
// type (local@domain.tld, ASCII, domain names with at least two labels) and refuses quoted
// local parts, IP-literal domains and internationalised addresses, which the e-mail adapter
// does not promise to deliver to.
func ParseEmail(raw string) (Email, error) {
	s := strings.ToLower(strings.TrimSpace(raw))
	if !validEmail(s) {
		v := &ValidationError{}
		v.Add("email", MsgInvalidEmail)
		return Email{}, v
	}
	return Email{s: s}, nil
}

// MustEmail is ParseEmail for constants in tests; it panics on an invalid address.
func MustEmail(raw string) Email {
	e, err := ParseEmail(raw)
	if err != nil {
		panic(err)
	}
	return e
}

// String returns the normalised address.
func (e Email) String() string { return e.s }

// IsZero reports whether e was never set.
func (e Email) IsZero() bool { return e.s == "" }

// LocalPart returns the part before the @.
func (e Email) LocalPart() string {
	local, _, _ := strings.Cut(e.s, "@")
	return local
}

func validEmail(s string) bool {
	if len(s) < 3 || len(s) > maxEmailLen {
		return false
	}
	local, domain, ok := strings.Cut(s, "@")
	if !ok || strings.Contains(domain, "@") {
		return false
	}
	return validLocalPart(local) && validDomain(domain)
}

func validLocalPart(local string) bool {
	if local == "" || len(local) > maxLocalPartLen || local[0] == '.' || local[len(local)-1] == '.' ||
		strings.Contains(local, "..") {
		return false
	}
	for i := 0; i < len(local); i++ {
		c := local[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '.':
		case strings.IndexByte("!#$%&'*+/=?^_`{|}~-", c) >= 0:
		default:
			return false
		}
	}
	return true
}

func validDomain(domain string) bool {
	labels := strings.Split(domain, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > maxLabelLen || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	tld := labels[len(labels)-1]
	if len(tld) < 2 {
		return false
	}
	// A top-level domain is never all digits (that would be an IP address typed as a domain).
	return strings.Trim(tld, "0123456789") != ""
}
