package domain

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"fmt"
	"io"
	"time"
)

// CodePurpose says what a one-time code is for; a user has at most one live code per purpose.
type CodePurpose string

const (
	PurposeEmailVerification CodePurpose = "email_verification"
	PurposePasswordReset     CodePurpose = "password_reset"
)

// CodeLen is the number of digits of a one-time code.
const CodeLen = 6

const codeSpace = 1_000_000 // 10^CodeLen

// MinCodeKeySize is the least length of CodePolicy.Key, in bytes (256 bits, HMAC-SHA256's
// output).
const MinCodeKeySize = 32

// ErrCodeKeySize: CodePolicy.Key is shorter than MinCodeKeySize.
var ErrCodeKeySize = fmt.Errorf("code key must be at least %d bytes", MinCodeKeySize)

// CodePolicy is how long codes live, how soon a new one may be sent, how many wrong tries
// kill one, and the key codes are stored under.
type CodePolicy struct {
	TTL         time.Duration
	ResendAfter time.Duration
	MaxAttempts int
	// Key keys the HMAC-SHA256 under which codes are stored (IDENTITY_CODE_KEY), at least
	// MinCodeKeySize bytes. It is kept apart from the database, in the secret store, so that a
	// dump reveals no code: a code has only 10^6 values, and with the salt in the same row any
	// unkeyed hash of one falls to trying them all in well under a second. Changing it fails
	// only the codes still live (at most TTL old), whose users request a new one.
	Key []byte
}

// Code is a one-time code as stored: only an HMAC-SHA256 of the digits under CodePolicy.Key,
// never the digits.
type Code struct {
	UserID    string
	Purpose   CodePurpose
	Salt      []byte
	Hash      []byte
	CreatedAt time.Time
	ExpiresAt time.Time
	Attempts  int
	UsedAt    time.Time // zero until used
}

// NewCode draws a fresh code for userID and returns it with its digits, which go into the
// e-mail and nowhere else. It answers ErrCodeKeySize rather than store a code under a short
// (or no) key.
func NewCode(userID string, purpose CodePurpose, now time.Time, p CodePolicy) (Code, string, error) {
	return newCode(rand.Reader, userID, purpose, now, p)
}

func newCode(r io.Reader, userID string, purpose CodePurpose, now time.Time, p CodePolicy) (Code, string, error) {
	if len(p.Key) < MinCodeKeySize {
		return Code{}, "", ErrCodeKeySize
	}
	digits, err := RandomDigits(r)
	if err != nil {
		return Code{}, "", err
	}
	salt := make([]byte, 16)
	if _, err := io.ReadFull(r, salt); err != nil {
		return Code{}, "", fmt.Errorf("code salt: %w", err)
	}
	return Code{
		UserID:    userID,
		Purpose:   purpose,
		Salt:      salt,
		Hash:      macCode(p.Key, salt, purpose, digits),
		CreatedAt: now,
		ExpiresAt: now.Add(p.TTL),
	}, digits, nil
}

// RandomDigits returns CodeLen decimal digits, uniformly distributed: 32-bit draws at or above
// the largest multiple of 10^6 below 2^32 are thrown away, so no value is more likely than
// another (plain modulo would favour the low ones).
func RandomDigits(r io.Reader) (string, error) {
	const limit = (1 << 32) - (1<<32)%codeSpace
	var b [4]byte
	for {
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return "", fmt.Errorf("code digits: %w", err)
		}
		if v := binary.BigEndian.Uint32(b[:]); uint64(v) < limit {
			return fmt.Sprintf("%0*d", CodeLen, v%codeSpace), nil
		}
	}
}

// macCode is what a code is stored as: HMAC-SHA256 under key of salt ‖ purpose ‖ 0x00 ‖
// digits. The salt keeps two users' equal codes apart, the purpose keeps a code of one purpose
// from passing for the other's, and the key keeps a database dump from telling which of the
// 10^6 digit strings each row is.
func macCode(key, salt []byte, purpose CodePurpose, digits string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write(salt)
	h.Write([]byte(purpose))
	h.Write([]byte{0})
	h.Write([]byte(digits))
	return h.Sum(nil)
}

// Live reports whether the code can still be tried at now.
func (c *Code) Live(now time.Time, p CodePolicy) bool {
	return c.UsedAt.IsZero() && now.Before(c.ExpiresAt) && c.Attempts < p.MaxAttempts
}

// Check tries digits against the code at now, under p.Key. A match marks the code used. A miss
// counts a try and answers *CodeIncorrectError while tries are left, ErrTooManyCodeAttempts on
// the last one. A code that is used, expired or out of tries answers ErrCodeExpired without counting.
// The caller must store the code whatever the answer: the count is the point. A code stored
// under another key (before a rotation, or unkeyed before keys) never matches: a miss.
func (c *Code) Check(digits string, now time.Time, p CodePolicy) error {
	if !c.Live(now, p) {
		return ErrCodeExpired
	}
	if subtle.ConstantTimeCompare(macCode(p.Key, c.Salt, c.Purpose, digits), c.Hash) == 1 {
		c.UsedAt = now
		return nil
	}
	c.Attempts++
	if c.Attempts >= p.MaxAttempts {
		return ErrTooManyCodeAttempts
	}
	return &CodeIncorrectError{Remaining: p.MaxAttempts - c.Attempts}
}

// ResendAvailableAt is when a new code may replace this one.
func (c *Code) ResendAvailableAt(p CodePolicy) time.Time {
	return c.CreatedAt.Add(p.ResendAfter)
}

// CheckResend answers a *ThrottledError when a new code would come too soon after this one.
// A used code does not hold back a new one (e.g. a reset right after verifying).
func (c *Code) CheckResend(now time.Time, p CodePolicy) error {
	if !c.UsedAt.IsZero() {
		return nil
	}
	if at := c.ResendAvailableAt(p); now.Before(at) {
		return &ThrottledError{What: ThrottleResend, RetryAfter: at.Sub(now)}
	}
	return nil
}
