package domain

import (
	"regexp"
	"strings"
)

// MsgReferralCodeInvalid is the sign-up form's message for a referral code of the wrong shape.
const MsgReferralCodeInvalid = "This referral code is not valid. Check the link your friend sent you."

// referralCodeShape is a referral code: "THU-" and 8 Crockford base32 characters (no I, L, O
// or U), as transfers derives them from user ids.
var referralCodeShape = regexp.MustCompile(`^THU-[0-9A-HJKMNP-TV-Z]{8}$`)

// ParseReferralCode normalises a referral code typed at sign-up (trimmed, upper case) and
// checks its shape; "" (none typed) is valid. Identity checks the shape only: which user owns
// a code is the transfers service's to know, and a code nobody owns pays nothing there.
func ParseReferralCode(raw string) (string, error) {
	code := strings.ToUpper(strings.TrimSpace(raw))
	if code == "" {
		return "", nil
	}
	if !referralCodeShape.MatchString(code) {
		v := &ValidationError{}
		v.Add("referral_code", MsgReferralCodeInvalid)
		return "", v
	}
	return code, nil
}
