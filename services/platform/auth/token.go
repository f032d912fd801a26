package auth

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Verification errors. Every one but ErrKeysUnavailable wraps ErrInvalidToken, so callers that
// only need "reject" test for that.
var (
	ErrInvalidToken    = errors.New("auth: invalid token")
	ErrMalformed       = fmt.Errorf("%w: malformed", ErrInvalidToken)
	ErrUnsupportedAlg  = fmt.Errorf("%w: unsupported algorithm", ErrInvalidToken)
	ErrUnknownKey      = fmt.Errorf("%w: unknown signing key", ErrInvalidToken)
	ErrBadSignature    = fmt.Errorf("%w: bad signature", ErrInvalidToken)
	ErrInvalidClaims   = fmt.Errorf("%w: invalid claims", ErrInvalidToken)
	ErrExpired         = fmt.Errorf("%w: expired", ErrInvalidToken)
	ErrIssuedInFuture  = fmt.Errorf("%w: issued in the future", ErrInvalidToken)
	ErrWrongIssuer     = fmt.Errorf("%w: wrong issuer", ErrInvalidToken)
	ErrKeysUnavailable = errors.New("auth: verification keys unavailable")
	// ErrCannotSign: Sign was given an unusable key or incomplete claims.
	ErrCannotSign = errors.New("auth: cannot sign")
)

const (
	// algEdDSA is the only algorithm signed or accepted. Pinning it, rather than trusting the
	// header, is what rules out "none" and HMAC-with-the-public-key confusion.
	algEdDSA = "EdDSA"
	typJWT   = "JWT"
	// maxTokenLen bounds the work an attacker can make a verifier do; real tokens are ~400 B.
	maxTokenLen = 8 << 10
)

// b64 is the JWS encoding: URL alphabet, no padding, and strict, so a token has exactly one
// valid spelling.
var b64 = base64.RawURLEncoding.Strict()

type header struct {
	Alg  string          `json:"alg"`
	Typ  string          `json:"typ,omitempty"`
	Kid  string          `json:"kid"`
	Crit json.RawMessage `json:"crit,omitempty"`
}

type payload struct {
	Sub        string       `json:"sub"`
	Knd        Kind         `json:"knd"`
	Email      string       `json:"email,omitempty"`
	GivenName  string       `json:"given_name,omitempty"`
	FamilyName string       `json:"family_name,omitempty"`
	Sid        string       `json:"sid,omitempty"`
	Sua        *json.Number `json:"sua,omitempty"`
	Iat        *json.Number `json:"iat"`
	Exp        *json.Number `json:"exp"`
	Iss        string       `json:"iss,omitempty"`
}

// Signer signs access tokens. Identity holds the private key; nothing else should.
type Signer struct {
	KeyID string
	Key   ed25519.PrivateKey
}

// PublicKey returns the key verifiers need for this signer's tokens.
func (s Signer) PublicKey() PublicKey {
	if len(s.Key) != ed25519.PrivateKeySize {
		return PublicKey{ID: s.KeyID}
	}
	pub, _ := s.Key.Public().(ed25519.PublicKey)
	return PublicKey{ID: s.KeyID, Key: pub}
}

// Sign returns c as a compact JWS. A zero IssuedAt means now; ExpiresAt is required, because a
// token that never expires cannot be revoked. Times are truncated to whole seconds.
func (s Signer) Sign(c Claims) (string, error) {
	switch {
	case len(s.Key) != ed25519.PrivateKeySize:
		return "", fmt.Errorf("%w: Ed25519 private key has %d bytes", ErrCannotSign, len(s.Key))
	case s.KeyID == "":
		return "", fmt.Errorf("%w: no key id", ErrCannotSign)
	case c.Subject == "":
		return "", fmt.Errorf("%w: no subject", ErrCannotSign)
	case c.Kind != KindUser && c.Kind != KindService:
		return "", fmt.Errorf("%w: kind %q", ErrCannotSign, c.Kind)
	case c.ExpiresAt.IsZero():
		return "", fmt.Errorf("%w: no expiry", ErrCannotSign)
	}
	if c.IssuedAt.IsZero() {
		c.IssuedAt = time.Now()
	}
	if !c.ExpiresAt.After(c.IssuedAt) {
		return "", fmt.Errorf("%w: expires before it is issued", ErrCannotSign)
	}
	h, err := json.Marshal(header{Alg: algEdDSA, Typ: typJWT, Kid: s.KeyID})
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrCannotSign, err)
	}
	iat := json.Number(strconv.FormatInt(c.IssuedAt.Unix(), 10))
	exp := json.Number(strconv.FormatInt(c.ExpiresAt.Unix(), 10))
	var sua *json.Number
	if !c.SteppedUpAt.IsZero() {
		if c.Kind != KindUser {
			return "", fmt.Errorf("%w: a step-up on a %s token", ErrCannotSign, c.Kind)
		}
		n := json.Number(strconv.FormatInt(c.SteppedUpAt.Unix(), 10))
		sua = &n
	}
	p, err := json.Marshal(payload{
		Sub: c.Subject, Knd: c.Kind, Email: c.Email, GivenName: c.GivenName, FamilyName: c.FamilyName,
		Sid: c.SessionID, Sua: sua, Iat: &iat, Exp: &exp, Iss: c.Issuer,
	})
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrCannotSign, err)
	}
	signingInput := b64.EncodeToString(h) + "." + b64.EncodeToString(p)
	sig := ed25519.Sign(s.Key, []byte(signingInput))
	return signingInput + "." + b64.EncodeToString(sig), nil
}

// parsed is a token split and decoded, not yet trusted.
type parsed struct {
	header       header
	payload      []byte
	signingInput string
	signature    []byte
}

// parse decodes the token's structure and header, refusing anything but our one algorithm.
func parse(token string) (parsed, error) {
	if len(token) > maxTokenLen {
		return parsed{}, fmt.Errorf("%w: %d bytes", ErrMalformed, len(token))
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return parsed{}, fmt.Errorf("%w: want 3 parts, got %d", ErrMalformed, len(parts))
	}
	rawHeader, err := b64.DecodeString(parts[0])
	if err != nil {
		return parsed{}, fmt.Errorf("%w: header encoding", ErrMalformed)
	}
	var h header
	if err := json.Unmarshal(rawHeader, &h); err != nil {
		return parsed{}, fmt.Errorf("%w: header", ErrMalformed)
	}
	if h.Alg != algEdDSA {
		return parsed{}, fmt.Errorf("%w: %q", ErrUnsupportedAlg, h.Alg)
	}
	if h.Typ != "" && !strings.EqualFold(h.Typ, typJWT) {
		return parsed{}, fmt.Errorf("%w: typ %q", ErrMalformed, h.Typ)
	}
	if h.Crit != nil {
		// RFC 7515 §4.1.11: critical extensions we do not implement must be refused.
		return parsed{}, fmt.Errorf("%w: critical header extensions", ErrMalformed)
	}
	if h.Kid == "" {
		return parsed{}, fmt.Errorf("%w: no key id", ErrMalformed)
	}
	rawPayload, err := b64.DecodeString(parts[1])
	if err != nil {
		return parsed{}, fmt.Errorf("%w: payload encoding", ErrMalformed)
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil || len(sig) != ed25519.SignatureSize {
		return parsed{}, ErrBadSignature
	}
	return parsed{
		header:       h,
		payload:      rawPayload,
		signingInput: parts[0] + "." + parts[1],
		signature:    sig,
	}, nil
}

// claims decodes a payload whose signature has been checked.
func (p parsed) claims() (Claims, error) {
	var w payload
	if err := json.Unmarshal(p.payload, &w); err != nil {
		return Claims{}, fmt.Errorf("%w: payload", ErrMalformed)
	}
	if w.Sub == "" || (w.Knd != KindUser && w.Knd != KindService) {
		return Claims{}, fmt.Errorf("%w: subject or kind", ErrInvalidClaims)
	}
	if w.Iat == nil || w.Exp == nil {
		return Claims{}, fmt.Errorf("%w: iat and exp are required", ErrInvalidClaims)
	}
	iat, err := numericDate(*w.Iat)
	if err != nil {
		return Claims{}, fmt.Errorf("%w: iat", ErrInvalidClaims)
	}
	exp, err := numericDate(*w.Exp)
	if err != nil {
		return Claims{}, fmt.Errorf("%w: exp", ErrInvalidClaims)
	}
	var sua time.Time
	if w.Sua != nil {
		// A step-up only means something for a user's session.
		if sua, err = numericDate(*w.Sua); err != nil || w.Knd != KindUser {
			return Claims{}, fmt.Errorf("%w: sua", ErrInvalidClaims)
		}
	}
	return Claims{
		Subject: w.Sub, Kind: w.Knd, Email: w.Email, GivenName: w.GivenName, FamilyName: w.FamilyName,
		SessionID: w.Sid, SteppedUpAt: sua, IssuedAt: iat, ExpiresAt: exp, Issuer: w.Iss,
	}, nil
}

// numericDate reads seconds since the epoch; RFC 7519 allows fractions.
func numericDate(n json.Number) (time.Time, error) {
	if i, err := n.Int64(); err == nil {
		return time.Unix(i, 0).UTC(), nil
	}
	f, err := n.Float64()
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1e11 {
		return time.Time{}, errors.New("not a date")
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC(), nil
}
