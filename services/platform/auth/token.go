package auth

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
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
	typJWT = "JWT"
	// maxTokenLen bounds the work an attacker can make a verifier do; real tokens are ~400 B.
	maxTokenLen = 8 << 10
)

// allowedAlgs is the only algorithm signed or accepted. go-jose refuses any other before it
// reads further; pinning it, rather than trusting the header, is what rules out "none" and
// HMAC-with-the-public-key confusion.
var allowedAlgs = []jose.SignatureAlgorithm{jose.EdDSA}

// headerCritical is RFC 7515's "crit", which go-jose leaves among the extra headers.
const headerCritical jose.HeaderKey = "crit"

// payload is the claims' JSON. Its field order is the wire format every token since the first
// has had, so tokens signed before and after a change of library read the same.
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
	// encoding/json, not go-jose's jwt builder: its own JSON package would write json.Number
	// as a string.
	p, err := json.Marshal(payload{
		Sub: c.Subject, Knd: c.Kind, Email: c.Email, GivenName: c.GivenName, FamilyName: c.FamilyName,
		Sid: c.SessionID, Sua: sua, Iat: &iat, Exp: &exp, Iss: c.Issuer,
	})
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrCannotSign, err)
	}
	signer, err := jose.NewSigner(
		jose.SigningKey{Algorithm: jose.EdDSA, Key: jose.JSONWebKey{Key: s.Key, KeyID: s.KeyID}},
		(&jose.SignerOptions{}).WithType(typJWT),
	)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrCannotSign, err)
	}
	jws, err := signer.Sign(p)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrCannotSign, err)
	}
	token, err := jws.CompactSerialize()
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrCannotSign, err)
	}
	return token, nil
}

// parsed is a token decoded and its header checked, not yet trusted.
type parsed struct {
	jws *jose.JSONWebSignature
	kid string
}

// parse decodes the token's structure and header, refusing anything but our one algorithm.
// go-jose's messages (a base64 offset, a header field's name) carry no part of the signature.
func parse(token string) (parsed, error) {
	if len(token) > maxTokenLen {
		return parsed{}, fmt.Errorf("%w: %d bytes", ErrMalformed, len(token))
	}
	jws, err := jose.ParseSignedCompact(token, allowedAlgs)
	var wrongAlg *jose.ErrUnexpectedSignatureAlgorithm
	switch {
	case errors.As(err, &wrongAlg):
		return parsed{}, fmt.Errorf("%w: %q", ErrUnsupportedAlg, wrongAlg.Got)
	case err != nil:
		return parsed{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	// A compact JWS has exactly one signature, and all its header is protected.
	h := jws.Signatures[0].Header
	if typ, ok := h.ExtraHeaders[jose.HeaderType]; ok {
		if s, isString := typ.(string); !isString || !strings.EqualFold(s, typJWT) {
			return parsed{}, fmt.Errorf("%w: typ %v", ErrMalformed, typ)
		}
	}
	if _, ok := h.ExtraHeaders[headerCritical]; ok {
		// RFC 7515 §4.1.11: critical extensions we do not implement must be refused. go-jose
		// would honour "b64", which no token of ours uses.
		return parsed{}, fmt.Errorf("%w: critical header extensions", ErrMalformed)
	}
	if h.KeyID == "" {
		return parsed{}, fmt.Errorf("%w: no key id", ErrMalformed)
	}
	return parsed{jws: jws, kid: h.KeyID}, nil
}

// verifiedPayload checks the signature with key and returns the payload it covers.
func (p parsed) verifiedPayload(key ed25519.PublicKey) ([]byte, error) {
	b, err := p.jws.Verify(key)
	if err != nil {
		return nil, ErrBadSignature
	}
	return b, nil
}

// claimsOf decodes a payload whose signature has been checked.
func claimsOf(verified []byte) (Claims, error) {
	var w payload
	if err := json.Unmarshal(verified, &w); err != nil {
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
