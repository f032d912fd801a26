package domain

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// sessionTokenBytes is 256 bits of randomness per session token.
const sessionTokenBytes = 32

var tokenEncoding = base64.RawURLEncoding.Strict()

// SessionPolicy is how long a session lives: IdleTTL after its last use (sliding), and never
// longer than AbsoluteTTL after it was opened.
type SessionPolicy struct {
	IdleTTL     time.Duration
	AbsoluteTTL time.Duration
}

// Client is the browser behind a call, as the BFF reports it.
type Client struct {
	Address   string
	UserAgent string
	// DeviceID is the browser's long-lived device cookie (empty when the caller sent none).
	DeviceID string
}

// WithDevice returns c with the device id the BFF forwarded, bounded like the rest.
func (c Client) WithDevice(deviceID string) Client {
	c.DeviceID = clip(deviceID, maxDeviceID)
	return c
}

// SignInMethod says how a session was opened.
type SignInMethod string

const (
	MethodPassword  SignInMethod = "password"
	MethodPasskey   SignInMethod = "passkey"
	MethodEmailCode SignInMethod = "email_code"
)

// ErrSessionNotFound: no live session of the user has that id (another user's included).
var ErrSessionNotFound = errors.New("session not found")

// touchEvery is how often a session's last use is written at most: the list shows "last
// seen" to the minute, and a busy tab must not turn every token exchange into a write.
const touchEvery = time.Minute

// NewClient trims and bounds what the BFF sent; these are recorded, never trusted.
func NewClient(address, userAgent string) Client {
	return Client{Address: clip(address, 64), UserAgent: clip(userAgent, 512)}
}

func clip(s string, n int) string {
	s = strings.ToValidUTF8(strings.TrimSpace(s), "")
	for len(s) > n {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}

// Session is a signed-in browser. Only the SHA-256 of its token is stored.
type Session struct {
	ID                string
	UserID            string
	TokenHash         []byte
	CreatedAt         time.Time
	LastSeenAt        time.Time
	IdleExpiresAt     time.Time
	AbsoluteExpiresAt time.Time
	RevokedAt         time.Time // zero while not revoked
	Client            Client
	// Device is parsed from Client.UserAgent when the session opens.
	Device Device
	Method SignInMethod
}

// NewSession opens a session and returns it with its token, which goes to the browser (through
// the BFF) and is never stored. Its method is MethodPassword until the caller says otherwise.
func NewSession(id, userID string, now time.Time, p SessionPolicy, c Client) (Session, string, error) {
	raw := make([]byte, sessionTokenBytes)
	if _, err := rand.Read(raw); err != nil {
		return Session{}, "", fmt.Errorf("session token: %w", err)
	}
	token := tokenEncoding.EncodeToString(raw)
	s := Session{
		ID:                id,
		UserID:            userID,
		TokenHash:         HashSessionToken(token),
		CreatedAt:         now,
		LastSeenAt:        now,
		AbsoluteExpiresAt: now.Add(p.AbsoluteTTL),
		Client:            c,
		Device:            ParseUserAgent(c.UserAgent),
		Method:            MethodPassword,
	}
	s.IdleExpiresAt = minTime(now.Add(p.IdleTTL), s.AbsoluteExpiresAt)
	return s, token, nil
}

// HashSessionToken is how a token is looked up.
func HashSessionToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// WellFormedSessionToken reports whether token could be one of ours (43 base64url
// characters), so garbage is refused without a database round trip.
func WellFormedSessionToken(token string) bool {
	if len(token) != tokenEncoding.EncodedLen(sessionTokenBytes) {
		return false
	}
	_, err := tokenEncoding.DecodeString(token)
	return err == nil
}

// Active reports whether the session can be used at now.
func (s *Session) Active(now time.Time) bool {
	return s.RevokedAt.IsZero() && now.Before(s.IdleExpiresAt) && now.Before(s.AbsoluteExpiresAt)
}

// Touch slides the idle expiry for a use at now, never past the absolute one. It reports
// whether anything changed enough to be written: a use within a minute of the last one
// recorded changes nothing (the idle expiry then lags by under a minute).
func (s *Session) Touch(now time.Time, p SessionPolicy) bool {
	if now.Sub(s.LastSeenAt) < touchEvery {
		return false
	}
	s.LastSeenAt = now
	s.IdleExpiresAt = minTime(now.Add(p.IdleTTL), s.AbsoluteExpiresAt)
	return true
}

// ExpiresAt is when the session ends if it is not used again.
func (s *Session) ExpiresAt() time.Time { return minTime(s.IdleExpiresAt, s.AbsoluteExpiresAt) }

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
