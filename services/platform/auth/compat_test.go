package auth_test

import (
	"context"
	"crypto/ed25519"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/thumela/thumela/services/platform/auth"
)

// Tokens signed by the hand-written JWS code that go-jose replaced, with a fixed key. A rolling
// deploy has old and new code side by side: the new must accept the old's tokens, and write
// tokens the old reads (the same header members and the very same claims JSON).
const (
	oldCompatKid       = "2026-03-a"
	oldUserToken       = "eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCIsImtpZCI6IjIwMjYtMDMtYSJ9.eyJzdWIiOiIwYjlmOGMxZS11c2VyIiwia25kIjoidXNlciIsImVtYWlsIjoidGhhbmRpQGV4YW1wbGUuY28uemEiLCJnaXZlbl9uYW1lIjoiVGhhbmRpIiwiZmFtaWx5X25hbWUiOiJOa29zaSIsInNpZCI6InNlc3MtMSIsInN1YSI6MTc3MjM2NjM3MCwiaWF0IjoxNzcyMzY2NDAwLCJleHAiOjE3NzIzNjY3MDAsImlzcyI6InRodW1lbGEtaWRlbnRpdHkifQ.2hLVRaP6gLz9wy4lZpjpBY7LNgzbrsJm0JP9l3-s0TpqM9if_PgO-EibrcMhBlMEv1b19LdKq3lCOqjdi3IfDw"
	oldServiceToken    = "eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCIsImtpZCI6IjIwMjYtMDMtYSJ9.eyJzdWIiOiJ0cmFuc2ZlcnMiLCJrbmQiOiJzZXJ2aWNlIiwiaWF0IjoxNzcyMzY2NDAwLCJleHAiOjE3NzIzNjY0NjAsImlzcyI6InRodW1lbGEtaWRlbnRpdHkifQ.HX6EWzvwrBtQ1g5Vfz9dH883nWr0v5pzSNKYO8ss6a0Sj6qQSi1pJkll5l9F36y8QziSMuepe3N3XxUzOJndAw"
	oldCompatHeaderRaw = `{"alg":"EdDSA","typ":"JWT","kid":"2026-03-a"}`
)

// compatSigner holds the key the old tokens were signed with: seed bytes 1…32.
func compatSigner() auth.Signer {
	seed := make([]byte, ed25519.SeedSize)
	for i := range seed {
		seed[i] = byte(i + 1)
	}
	return auth.Signer{KeyID: oldCompatKid, Key: ed25519.NewKeyFromSeed(seed)}
}

func TestTokensOfTheHandWrittenSignerStillVerify(t *testing.T) {
	t.Parallel()
	s := compatSigner()
	user := userClaims()
	user.SteppedUpAt = t0.Add(-30 * time.Second)
	service := auth.Claims{Subject: "transfers", Kind: auth.KindService, IssuedAt: t0,
		ExpiresAt: t0.Add(time.Minute), Issuer: issuer}
	tests := []struct {
		name   string
		old    string
		claims auth.Claims
	}{
		{"user with step-up", oldUserToken, user},
		{"service", oldServiceToken, service},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := verifierAt(t0.Add(30*time.Second), s.PublicKey()).Verify(context.Background(), tt.old)
			if err != nil {
				t.Fatalf("Verify(old token): %v", err)
			}
			if got != tt.claims {
				t.Fatalf("claims = %+v, want %+v", got, tt.claims)
			}

			// What the new code signs, the old parsed: its header into a struct, so the members'
			// order does not matter, and the payload is the same bytes.
			oldParts := strings.Split(tt.old, ".")
			newParts := strings.Split(mustSign(t, s, tt.claims), ".")
			oldHeader, oldPayload, newHeader, newPayload := oldParts[0], oldParts[1], newParts[0], newParts[1]
			if h, want := decodeJSON(t, newHeader), decodeJSON(t, oldHeader); !maps.Equal(h, want) {
				t.Errorf("header = %v, the old code wrote %v", h, want)
			}
			if string(decodeSegment(t, oldHeader)) != oldCompatHeaderRaw {
				t.Errorf("old header vector = %s", decodeSegment(t, oldHeader))
			}
			if newPayload != oldPayload {
				t.Errorf("payload = %s, the old code wrote %s", decodeSegment(t, newPayload), decodeSegment(t, oldPayload))
			}
		})
	}
}
