package domain

import (
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

// CodePolicy is how long codes live, how soon a new one may be sent, and how many wrong tries
// kill one.
type CodePolicy struct {
	TTL         time.Duration
	ResendAfter time.Duration
	MaxAttempts int
}

// Code is a one-time code as stored: only a salted SHA-256 of the digits, never the digits.
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
// e-mail and nowhere else.
func NewCode(userID string, purpose CodePurpose, now time.Time, p CodePolicy) (Code, string, error) {
	return newCode(rand.Reader, userID, purpose, now, p)
}

func newCode(r io.Reader, userID string, purpose CodePurpose, now time.Time, p CodePolicy) (Code, string, error) {
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
		Hash:      hashCode(salt, purpose, digits),
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

func hashCode(salt []byte, purpose CodePurpose, digits string) []byte {
	h := sha256.New()
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

// Check tries digits against the code at now. A match marks the code used. A miss counts a
// try and answers *CodeIncorrectError while tries are left, ErrTooManyCodeAttempts on the last
// one. A code that is used, expired or out of tries answers ErrCodeExpired without counting.
// The caller must store the code whatever the answer: the count is the point.
func (c *Code) Check(digits string, now time.Time, p CodePolicy) error {
	if !c.Live(now, p) {
		return ErrCodeExpired
	}
	if subtle.ConstantTimeCompare(hashCode(c.Salt, c.Purpose, digits), c.Hash) == 1 {
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
