package domain

import (
	"errors"
	"strings"

	"github.com/nyaruka/phonenumbers"
)

// ErrInvalidPhone: not a South African mobile number.
var ErrInvalidPhone = errors.New("not a valid South African mobile number")

// Phone is a South African mobile number in E.164 (+27XXXXXXXXX); the zero value is "none".
type Phone struct{ e164 string }

// IsZero reports whether there is no number.
func (p Phone) IsZero() bool { return p.e164 == "" }

// E164 returns +27XXXXXXXXX, or "" for none.
func (p Phone) E164() string { return p.e164 }

// String is E164.
func (p Phone) String() string { return p.e164 }

const region = "ZA"

// maxPhoneInput bounds what is handed to the parser.
const maxPhoneInput = 32

// ParsePhone accepts a South African mobile number in any common notation: "082 123 4567",
// "0821234567", "+27 82 123 4567", "27821234567", "(082) 123-4567". Blank input is the zero
// Phone (none). Landlines, other countries' numbers, letters ("vanity" numbers) and extensions
// are refused with ErrInvalidPhone.
func ParsePhone(s string) (Phone, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Phone{}, nil
	}
	if len(s) > maxPhoneInput || strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= '0' && r <= '9') && !strings.ContainsRune(" +-().", r)
	}) {
		return Phone{}, ErrInvalidPhone
	}
	n, err := phonenumbers.Parse(s, region)
	if err != nil || n.GetExtension() != "" || !phonenumbers.IsValidNumberForRegion(n, region) {
		return Phone{}, ErrInvalidPhone
	}
	switch phonenumbers.GetNumberType(n) {
	case phonenumbers.MOBILE, phonenumbers.FIXED_LINE_OR_MOBILE:
	default:
		return Phone{}, ErrInvalidPhone
	}
	e164 := phonenumbers.Format(n, phonenumbers.E164)
	// The numbering plan also lists shorter 08x numbers (service and premium ranges); a
	// subscriber's mobile number is always ten digits nationally (0 and nine), +27 and nine.
	if len(e164) != len("+27")+9 {
		return Phone{}, ErrInvalidPhone
	}
	return Phone{e164: e164}, nil
}

// PhoneFromE164 rebuilds a Phone read from storage, where only ParsePhone's output is written.
func PhoneFromE164(s string) Phone { return Phone{e164: s} }
