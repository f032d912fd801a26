package domain

import (
	"strings"

	"github.com/nyaruka/phonenumbers"
)

// Phone is a South African mobile number in E.164 (+27 and nine digits).
type Phone struct{ e164 string }

// E164 returns +27XXXXXXXXX.
func (p Phone) E164() string { return p.e164 }

// String is E164.
func (p Phone) String() string { return p.e164 }

const phoneRegion = "ZA"

// maxPhoneInput bounds what reaches the parser.
const maxPhoneInput = 32

// ParsePhone accepts a South African mobile number in any common notation ("082 123 4567",
// "0821234567", "+27 82 123 4567", "27821234567", "(082) 123-4567") and returns it in E.164.
// Blank input, landlines, other countries' numbers, letters, extensions and the short 08x
// service numbers are refused: the recipient's SMS must reach a phone.
func ParsePhone(s string) (Phone, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxPhoneInput || strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= '0' && r <= '9') && !strings.ContainsRune(" +-().", r)
	}) {
		return Phone{}, false
	}
	n, err := phonenumbers.Parse(s, phoneRegion)
	if err != nil || n.GetExtension() != "" || !phonenumbers.IsValidNumberForRegion(n, phoneRegion) {
		return Phone{}, false
	}
	switch phonenumbers.GetNumberType(n) {
	case phonenumbers.MOBILE, phonenumbers.FIXED_LINE_OR_MOBILE:
	default:
		return Phone{}, false
	}
	e164 := phonenumbers.Format(n, phonenumbers.E164)
	if len(e164) != len("+27")+9 {
		return Phone{}, false
	}
	return Phone{e164: e164}, true
}

// PhoneFromE164 rebuilds a Phone read from storage, where only ParsePhone's output is written.
func PhoneFromE164(s string) Phone { return Phone{e164: s} }
