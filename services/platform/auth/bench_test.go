package auth_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/thumela/thumela/services/platform/auth"
)

// BenchmarkVerify measures the check on every request's path: "signature" is a token not seen
// before (parse, Ed25519, claims), "remembered" the same token again (the BFF's usual case).
func BenchmarkVerify(b *testing.B) {
	s := newSigner(b, "k1")
	ctx := context.Background()
	newVerifier := func() *auth.Verifier { return verifierAt(t0.Add(time.Minute), s.PublicKey()) }

	b.Run("signature", func(b *testing.B) {
		// Distinct tokens, and a new verifier per round, so that none is answered from the
		// verified-token cache; the one key fetch per round is noise next to 1024 signatures.
		tokens := make([]string, 1024)
		for i := range tokens {
			c := userClaims()
			c.Subject = fmt.Sprintf("user-%04d", i)
			tokens[i] = mustSign(b, s, c)
		}
		var v *auth.Verifier
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if i%len(tokens) == 0 {
				v = newVerifier()
			}
			if _, err := v.Verify(ctx, tokens[i%len(tokens)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("remembered", func(b *testing.B) {
		tok := mustSign(b, s, userClaims())
		v := newVerifier()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := v.Verify(ctx, tok); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkSign(b *testing.B) {
	s := newSigner(b, "k1")
	c := userClaims()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Sign(c); err != nil {
			b.Fatal(err)
		}
	}
}
