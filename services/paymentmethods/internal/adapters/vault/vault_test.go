package vault

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/thumela/thumela/services/paymentmethods/internal/app"
)

func newKEK(t *testing.T) KEK {
	t.Helper()
	raw := make([]byte, KeySize)
	if _, err := rand.Read(raw); err != nil {
		t.Fatal(err)
	}
	k, err := NewKEK(raw)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

const number = "4539148803436467"

func TestSealOpenRoundTrip(t *testing.T) {
	t.Parallel()
	ring := NewKeyring(newKEK(t))
	s1, err := ring.Seal("tok_a", []byte(number))
	if err != nil {
		t.Fatal(err)
	}
	s2, err := ring.Seal("tok_a", []byte(number))
	if err != nil {
		t.Fatal(err)
	}
	if s1.KEKID != ring.CurrentID() || !strings.HasPrefix(s1.KEKID, "kek_") {
		t.Fatalf("kek id = %q, keyring's %q", s1.KEKID, ring.CurrentID())
	}
	// A fresh data key and nonces per seal: the same number never encrypts the same way twice.
	if bytes.Equal(s1.Ciphertext, s2.Ciphertext) || bytes.Equal(s1.WrappedKey, s2.WrappedKey) {
		t.Fatal("two seals of the same number are equal")
	}
	for _, blob := range [][]byte{s1.Ciphertext, s1.WrappedKey} {
		if bytes.Contains(blob, []byte(number)) || bytes.Contains(blob, []byte(number[:6])) {
			t.Fatal("sealed bytes contain the number")
		}
	}
	got, err := ring.Open("tok_a", s1)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != number {
		t.Fatal("round trip changed the number")
	}
}

// Without the KEK the record does not open: not with another key (under its own id, or
// forged to carry the stored id), not moved onto another token, not tampered with.
func TestOpenNeedsTheKEKAndTheToken(t *testing.T) {
	t.Parallel()
	kek := newKEK(t)
	ring := NewKeyring(kek)
	sealed, err := ring.Seal("tok_a", []byte(number))
	if err != nil {
		t.Fatal(err)
	}

	other := newKEK(t)
	if _, err := NewKeyring(other).Open("tok_a", sealed); !errors.Is(err, ErrUnknownKEK) {
		t.Fatalf("another KEK: %v, want ErrUnknownKEK", err)
	}
	forged := KEK{id: kek.id, key: other.key}
	if _, err := NewKeyring(forged).Open("tok_a", sealed); !errors.Is(err, ErrOpen) {
		t.Fatalf("another key under the stored id: %v, want ErrOpen", err)
	}
	if _, err := ring.Open("tok_b", sealed); !errors.Is(err, ErrOpen) {
		t.Fatalf("another token: %v, want ErrOpen", err)
	}
	for i := range []int{0, 1} {
		tampered := app.Sealed{KEKID: sealed.KEKID, WrappedKey: bytes.Clone(sealed.WrappedKey), Ciphertext: bytes.Clone(sealed.Ciphertext)}
		blob := [][]byte{tampered.WrappedKey, tampered.Ciphertext}[i]
		blob[len(blob)-1] ^= 1
		if _, err := ring.Open("tok_a", tampered); !errors.Is(err, ErrOpen) {
			t.Fatalf("tampered blob %d: %v, want ErrOpen", i, err)
		}
	}
	if _, err := ring.Open("tok_a", app.Sealed{KEKID: sealed.KEKID, WrappedKey: []byte{1, 2}, Ciphertext: sealed.Ciphertext}); !errors.Is(err, ErrOpen) {
		t.Fatalf("truncated: %v", err)
	}
}

// Rotation: records under a retired KEK still open, Rewrap moves them to the current KEK
// without touching the ciphertext, and afterwards the retired key is not needed.
func TestRewrap(t *testing.T) {
	t.Parallel()
	old, current := newKEK(t), newKEK(t)
	sealed, err := NewKeyring(old).Seal("tok_a", []byte(number))
	if err != nil {
		t.Fatal(err)
	}
	ring := NewKeyring(current, old)
	if got, err := ring.Open("tok_a", sealed); err != nil || string(got) != number {
		t.Fatalf("open under a retired KEK: %v", err)
	}
	rewrapped, changed, err := ring.Rewrap("tok_a", sealed)
	if err != nil || !changed {
		t.Fatalf("rewrap: changed=%v err=%v", changed, err)
	}
	if rewrapped.KEKID != current.ID() || !bytes.Equal(rewrapped.Ciphertext, sealed.Ciphertext) {
		t.Fatalf("rewrapped = %q, ciphertext changed: %v", rewrapped.KEKID, !bytes.Equal(rewrapped.Ciphertext, sealed.Ciphertext))
	}
	if got, err := NewKeyring(current).Open("tok_a", rewrapped); err != nil || string(got) != number {
		t.Fatalf("open after rewrap with the current KEK only: %v", err)
	}
	if _, changed, err := ring.Rewrap("tok_a", rewrapped); changed || err != nil {
		t.Fatalf("second rewrap: changed=%v err=%v", changed, err)
	}
	if _, _, err := NewKeyring(current).Rewrap("tok_a", sealed); !errors.Is(err, ErrUnknownKEK) {
		t.Fatalf("rewrap without the retired KEK: %v", err)
	}
}

func TestParseKEK(t *testing.T) {
	t.Parallel()
	raw := make([]byte, KeySize)
	_, _ = rand.Read(raw)
	want, _ := NewKEK(raw)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		k, err := ParseKEK(enc.EncodeToString(raw))
		if err != nil || k.ID() != want.ID() {
			t.Fatalf("ParseKEK: %v, id %q want %q", err, k.ID(), want.ID())
		}
	}
	secret := "not base64 at all: s3cr3t!"
	if _, err := ParseKEK(secret); !errors.Is(err, ErrKeyFormat) || strings.Contains(err.Error(), "s3cr3t") {
		t.Fatalf("bad base64: %v", err)
	}
	if _, err := ParseKEK(base64.StdEncoding.EncodeToString(raw[:16])); !errors.Is(err, ErrKeySize) {
		t.Fatalf("16 bytes: %v", err)
	}
	if !regexp.MustCompile(`^kek_[0-9a-f]{12}$`).MatchString(want.ID()) {
		t.Fatalf("id %q", want.ID())
	}
}

func TestFingerprint(t *testing.T) {
	t.Parallel()
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	f, err := NewFingerprinter(key)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := NewFingerprinter(append([]byte{1}, key[1:]...))
	a, b := f.Sum([]byte(number)), f.Sum([]byte(number))
	if !bytes.Equal(a, b) || len(a) != 32 {
		t.Fatal("fingerprint is not deterministic")
	}
	if bytes.Equal(a, f.Sum([]byte("4242424242424242"))) || bytes.Equal(a, g.Sum([]byte(number))) {
		t.Fatal("fingerprint does not depend on the number and the key")
	}
	if _, err := NewFingerprinter(key[:31]); err == nil {
		t.Fatal("short key accepted")
	}
}

func TestNewToken(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`^tok_[A-Za-z0-9_-]{32}$`)
	ring := NewKeyring(newKEK(t))
	seen := map[string]bool{}
	for range 100 {
		tok, err := ring.NewToken()
		if err != nil || !re.MatchString(tok) || seen[tok] {
			t.Fatalf("token %q err %v", tok, err)
		}
		seen[tok] = true
	}
}
