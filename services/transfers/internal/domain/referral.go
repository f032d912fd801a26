package domain

import (
	"hash/fnv"
	"strconv"

	"github.com/google/uuid"
)

// crockford is Crockford's base32 alphabet: no I, L, O or U, so a code reads aloud and types
// without confusion.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// referralCodeLen is how many base32 characters follow "THU-": 40 bits of the hash.
const referralCodeLen = 8

// ReferralCode is the user's referral code: "THU-" and 8 Crockford base32 characters taken,
// least significant first, from the 64-bit FNV-1a hash of the id's text (lower-case UUID).
// It must stay byte for byte what web/src/features/referral/lib/referral-code.ts derives:
// codes were shown and shared before the server kept them.
func ReferralCode(userID uuid.UUID) string { return ReferralCodeCandidate(userID, 0) }

// MaxReferralCodeCandidates bounds the codes tried for one user.
const MaxReferralCodeCandidates = 5

// ReferralCodeCandidate is the attempt-th code tried for the user: ReferralCode for 0; for a
// later attempt the same derivation over "<id>/<attempt>". 40 bits make two users' codes clash
// about once in a trillion pairs, which a large user base does meet (by the birthday bound,
// likely past a million users): the user who comes second then takes their next candidate, and
// the server, which stores every code, is what the page shows.
func ReferralCodeCandidate(userID uuid.UUID, attempt int) string {
	text := userID.String()
	if attempt > 0 {
		text += "/" + strconv.Itoa(attempt)
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(text)) // never fails
	sum := h.Sum64()
	code := make([]byte, 0, 4+referralCodeLen)
	code = append(code, "THU-"...)
	for range referralCodeLen {
		code = append(code, crockford[sum&31])
		sum >>= 5
	}
	return string(code)
}
