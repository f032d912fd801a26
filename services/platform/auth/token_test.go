package auth_test

import (
	"context"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/thumela/thumela/services/platform/auth"
)

const issuer = "thumela-identity"

// t0 is the tests' fixed "now".
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func newSigner(t testing.TB, kid string) auth.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return auth.Signer{KeyID: kid, Key: priv}
}

func userClaims() auth.Claims {
	return auth.Claims{
		Subject: "0b9f8c1e-user", Kind: auth.KindUser, Email: "thandi@example.co.za",
		GivenName: "Thandi", FamilyName: "Nkosi", SessionID: "sess-1",
		IssuedAt: t0, ExpiresAt: t0.Add(5 * time.Minute), Issuer: issuer,
	}
}

func mustSign(t testing.TB, s auth.Signer, c auth.Claims) string {
	t.Helper()
	tok, err := s.Sign(c)
	if err != nil {
		t.Fatalf("Sign: %v", err)
	}
	return tok
}

var enc = base64.RawURLEncoding

// rawToken signs arbitrary header and payload JSON with priv, to build tokens Sign refuses to.
func rawToken(priv ed25519.PrivateKey, header, payload string) string {
	in := enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString([]byte(payload))
	return in + "." + enc.EncodeToString(ed25519.Sign(priv, []byte(in)))
}

func verifierAt(now time.Time, keys ...auth.PublicKey) *auth.Verifier {
	return auth.NewVerifier(auth.StaticKeys(keys), issuer, auth.WithClock(func() time.Time { return now }))
}

func TestSignVerifyRoundTrip(t *testing.T) {
	t.Parallel()
	s := newSigner(t, "k1")
	tests := []struct {
		name   string
		claims auth.Claims
	}{
		{"user", userClaims()},
		{"service", auth.Claims{Subject: "transfers", Kind: auth.KindService, IssuedAt: t0,
			ExpiresAt: t0.Add(time.Minute), Issuer: issuer}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tok := mustSign(t, s, tt.claims)
			header, _, _ := strings.Cut(tok, ".")
			if h := decodeJSON(t, header); !maps.Equal(h, map[string]any{"alg": "EdDSA", "typ": "JWT", "kid": "k1"}) {
				t.Errorf("header = %v", h)
			}
			got, err := verifierAt(t0.Add(time.Minute), s.PublicKey()).Verify(context.Background(), tok)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			want := tt.claims
			if got.Subject != want.Subject || got.Kind != want.Kind || got.Email != want.Email ||
				got.GivenName != want.GivenName || got.FamilyName != want.FamilyName ||
				got.SessionID != want.SessionID || got.Issuer != want.Issuer ||
				!got.IssuedAt.Equal(want.IssuedAt) || !got.ExpiresAt.Equal(want.ExpiresAt) {
				t.Fatalf("claims = %+v, want %+v", got, want)
			}
		})
	}
}

func TestVerifyRefuses(t *testing.T) {
	t.Parallel()
	s := newSigner(t, "k1")
	impostor := newSigner(t, "k1") // same kid, different key
	other := newSigner(t, "k2")    // a second key the verifier also holds
	good := mustSign(t, s, userClaims())
	parts := strings.Split(good, ".")
	pub := s.PublicKey().Key

	hs256 := func() string {
		in := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT","kid":"k1"}`)) + "." + parts[1]
		mac := hmac.New(sha256.New, pub) // the classic confusion: the public key as HMAC secret
		mac.Write([]byte(in))
		return in + "." + enc.EncodeToString(mac.Sum(nil))
	}()
	tampered := func() string {
		c := userClaims()
		c.Subject = "someone-else"
		other := strings.Split(mustSign(t, s, c), ".")
		return parts[0] + "." + other[1] + "." + parts[2]
	}()
	// The attacker's own key, offered in the header next to our kid: only the key set decides.
	embeddedJWK := func() string {
		pub, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		x := enc.EncodeToString(pub)
		return rawToken(priv, `{"alg":"EdDSA","typ":"JWT","kid":"k1","jwk":{"kty":"OKP","crv":"Ed25519","x":"`+x+`"}}`, string(decodeSegment(t, parts[1])))
	}()
	const okHeader = `{"alg":"EdDSA","typ":"JWT","kid":"k1"}`

	tests := []struct {
		name  string
		token string
		now   time.Time
		want  error
	}{
		{name: "expired", token: good, now: t0.Add(6 * time.Minute), want: auth.ErrExpired},
		{name: "expired within leeway is fine", token: good, now: t0.Add(5*time.Minute + 20*time.Second), want: nil},
		{name: "issued in the future", token: good, now: t0.Add(-2 * time.Minute), want: auth.ErrIssuedInFuture},
		{name: "wrong key", token: mustSign(t, impostor, userClaims()), want: auth.ErrBadSignature},
		{name: "tampered payload", token: tampered, want: auth.ErrBadSignature},
		{name: "alg none", token: enc.EncodeToString([]byte(`{"alg":"none","typ":"JWT","kid":"k1"}`)) + "." + parts[1] + ".", want: auth.ErrUnsupportedAlg},
		{name: "alg HS256 with the public key", token: hs256, want: auth.ErrUnsupportedAlg},
		{name: "alg RS256", token: enc.EncodeToString([]byte(`{"alg":"RS256","typ":"JWT","kid":"k1"}`)) + "." + parts[1] + "." + parts[2], want: auth.ErrUnsupportedAlg},
		{name: "no alg", token: rawToken(s.Key, `{"typ":"JWT","kid":"k1"}`, `{}`), want: auth.ErrUnsupportedAlg},
		{name: "no kid", token: rawToken(s.Key, `{"alg":"EdDSA","typ":"JWT"}`, `{}`), want: auth.ErrMalformed},
		{name: "embedded jwk is not trusted", token: embeddedJWK, want: auth.ErrBadSignature},
		{name: "alg in other case", token: rawToken(s.Key, `{"alg":"eddsa","kid":"k1"}`, `{}`), want: auth.ErrUnsupportedAlg},
		{name: "kid of another known key", token: mustSign(t, auth.Signer{KeyID: "k2", Key: s.Key}, userClaims()), want: auth.ErrBadSignature},
		{name: "unknown kid", token: mustSign(t, auth.Signer{KeyID: "k9", Key: s.Key}, userClaims()), want: auth.ErrUnknownKey},
		{name: "wrong issuer", token: mustSign(t, s, func() auth.Claims { c := userClaims(); c.Issuer = "evil"; return c }()), want: auth.ErrWrongIssuer},
		{name: "two parts", token: parts[0] + "." + parts[1], want: auth.ErrMalformed},
		{name: "empty", token: "", want: auth.ErrMalformed},
		// Refused while decoding, before any signature is checked.
		{name: "padding in signature", token: good + "==", want: auth.ErrMalformed},
		{name: "critical extension", token: rawToken(s.Key, `{"alg":"EdDSA","kid":"k1","crit":["b64"]}`, `{}`), want: auth.ErrMalformed},
		{name: "wrong typ", token: rawToken(s.Key, `{"alg":"EdDSA","typ":"JOSE+JSON","kid":"k1"}`, `{}`), want: auth.ErrMalformed},
		{name: "no exp", token: rawToken(s.Key, okHeader, `{"sub":"u","knd":"user","iat":1772366400,"iss":"thumela-identity"}`), want: auth.ErrInvalidClaims},
		{name: "unknown kind", token: rawToken(s.Key, okHeader, `{"sub":"u","knd":"admin","iat":1772366400,"exp":1772366700,"iss":"thumela-identity"}`), want: auth.ErrInvalidClaims},
		{name: "fractional dates accepted", token: rawToken(s.Key, okHeader, `{"sub":"u","knd":"user","iat":1772366400.5,"exp":1772366700.25,"iss":"thumela-identity"}`), want: nil},
		{name: "too long", token: strings.Repeat("a", 9000), want: auth.ErrMalformed},
		{name: "sua not a date", token: rawToken(s.Key, okHeader, `{"sub":"u","knd":"user","sua":"soon","iat":1772366400,"exp":1772366700,"iss":"thumela-identity"}`), want: auth.ErrMalformed},
		{name: "sua on a service token", token: rawToken(s.Key, okHeader, `{"sub":"transfers","knd":"service","sua":1772366400,"iat":1772366400,"exp":1772366700,"iss":"thumela-identity"}`), want: auth.ErrInvalidClaims},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			now := tt.now
			if now.IsZero() {
				now = t0.Add(time.Minute)
			}
			_, err := verifierAt(now, s.PublicKey(), other.PublicKey()).Verify(context.Background(), tt.token)
			if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
				t.Fatalf("Verify = %v, want %v", err, tt.want)
			}
			if tt.want != nil && !errors.Is(err, auth.ErrInvalidToken) {
				t.Fatalf("%v does not wrap ErrInvalidToken", err)
			}
		})
	}
}

func TestSignRefuses(t *testing.T) {
	t.Parallel()
	s := newSigner(t, "k1")
	tests := []struct {
		name   string
		signer auth.Signer
		claims func(c *auth.Claims)
	}{
		{"no key", auth.Signer{KeyID: "k1"}, func(*auth.Claims) {}},
		{"no kid", auth.Signer{Key: s.Key}, func(*auth.Claims) {}},
		{"no subject", s, func(c *auth.Claims) { c.Subject = "" }},
		{"bad kind", s, func(c *auth.Claims) { c.Kind = "admin" }},
		{"step-up on a service token", s, func(c *auth.Claims) { c.Kind, c.SteppedUpAt = auth.KindService, t0 }},
		{"no expiry", s, func(c *auth.Claims) { c.ExpiresAt = time.Time{} }},
		{"expiry before issue", s, func(c *auth.Claims) { c.ExpiresAt = c.IssuedAt.Add(-time.Second) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := userClaims()
			tt.claims(&c)
			if _, err := tt.signer.Sign(c); !errors.Is(err, auth.ErrCannotSign) {
				t.Fatalf("Sign = %v, want ErrCannotSign", err)
			}
		})
	}
}

func TestClaimsLogValueHidesPersonalData(t *testing.T) {
	t.Parallel()
	v := userClaims().LogValue().String()
	if strings.Contains(v, "thandi") || strings.Contains(v, "Nkosi") || !strings.Contains(v, "0b9f8c1e-user") {
		t.Fatalf("LogValue = %s", v)
	}
}

func TestSteppedUpClaim(t *testing.T) {
	t.Parallel()
	s := newSigner(t, "k1")
	v := verifierAt(t0.Add(time.Minute), s.PublicKey())

	plain, err := v.Verify(context.Background(), mustSign(t, s, userClaims()))
	if err != nil {
		t.Fatal(err)
	}
	if !plain.SteppedUpAt.IsZero() || plain.SteppedUpWithin(5*time.Minute, t0) {
		t.Fatalf("a token without sua reads as stepped up: %v", plain.SteppedUpAt)
	}
	if _, payload, _ := strings.Cut(mustSign(t, s, userClaims()), "."); strings.Contains(decodePayload(t, payload), "sua") {
		t.Fatal("sua written for a token without a step-up")
	}

	c := userClaims()
	c.SteppedUpAt = t0.Add(-90*time.Second + 400*time.Millisecond) // sub-second is dropped
	tok := mustSign(t, s, c)
	_, rest, _ := strings.Cut(tok, ".")
	if p := decodePayload(t, rest); !strings.Contains(p, `"sua":1772366310`) {
		t.Fatalf("payload = %s, want sua in unix seconds", p)
	}
	got, err := v.Verify(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	if want := t0.Add(-90 * time.Second); !got.SteppedUpAt.Equal(want) {
		t.Fatalf("SteppedUpAt = %v, want %v", got.SteppedUpAt, want)
	}
	for _, tt := range []struct {
		now  time.Time
		want bool
	}{
		{t0, true},
		{t0.Add(3*time.Minute + 30*time.Second), true},  // exactly 5 minutes after
		{t0.Add(3*time.Minute + 31*time.Second), false}, // just past the window
		{t0.Add(-3 * time.Minute), false},               // stamped in the future: not trusted
	} {
		if ok := got.SteppedUpWithin(5*time.Minute, tt.now); ok != tt.want {
			t.Errorf("SteppedUpWithin(5m, %v) = %v, want %v", tt.now, ok, tt.want)
		}
	}
}

func decodePayload(t *testing.T, rest string) string {
	t.Helper()
	part, _, _ := strings.Cut(rest, ".")
	return string(decodeSegment(t, part))
}

func decodeSegment(t *testing.T, segment string) []byte {
	t.Helper()
	b, err := enc.DecodeString(segment)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decodeJSON reads a segment as a JSON object: its members' order carries no meaning.
func decodeJSON(t *testing.T, segment string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(decodeSegment(t, segment), &m); err != nil {
		t.Fatal(err)
	}
	return m
}
