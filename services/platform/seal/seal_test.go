package seal_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/thumela/thumela/services/platform/seal"
)

func TestSealOpenRoundTripAndRotation(t *testing.T) {
	t.Parallel()
	old, err := seal.GenerateKey("k1")
	if err != nil {
		t.Fatal(err)
	}
	cur, err := seal.GenerateKey("k2")
	if err != nil {
		t.Fatal(err)
	}
	// Keys survive their configuration form.
	pub, err := seal.ParsePublicKey(cur.Public().String())
	if err != nil {
		t.Fatal(err)
	}
	reparsed, err := seal.ParsePrivateKey(cur.String())
	if err != nil {
		t.Fatal(err)
	}
	if reparsed.Public().String() != cur.Public().String() {
		t.Fatal("the public half derived from the private key differs")
	}
	kr, err := seal.ParseKeyring([]string{cur.String(), old.String()})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []seal.PublicKey{pub, old.Public()} {
		s, err := seal.Seal(p, []byte("PIN 4821"))
		if err != nil {
			t.Fatal(err)
		}
		if s.KeyID != p.ID || bytes.Contains(s.Box, []byte("4821")) {
			t.Fatalf("sealed %+v", s)
		}
		got, err := kr.Open(s)
		if err != nil || string(got) != "PIN 4821" {
			t.Fatalf("Open = %q, %v", got, err)
		}
	}
}

func TestOpenRefusesTamperingAndUnknownKeys(t *testing.T) {
	t.Parallel()
	k, _ := seal.GenerateKey("k1")
	other, _ := seal.GenerateKey("k1") // same id, another key
	kr, _ := seal.NewKeyring(k)
	s, err := seal.Seal(other.Public(), []byte("123456"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kr.Open(s); !errors.Is(err, seal.ErrOpen) {
		t.Fatalf("another key's box: %v", err)
	}
	s, _ = seal.Seal(k.Public(), []byte("123456"))
	s.Box[len(s.Box)-1] ^= 1
	if _, err := kr.Open(s); !errors.Is(err, seal.ErrOpen) {
		t.Fatalf("tampered box: %v", err)
	}
	s.KeyID = "k9"
	if _, err := kr.Open(s); !errors.Is(err, seal.ErrUnknownKey) {
		t.Fatalf("unknown key: %v", err)
	}
}

func TestParseRefusesMalformedKeys(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "k1", ":AAAA", "k1:not-base64!", "k1:AAAA", "a,b:" + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="} {
		if _, err := seal.ParsePublicKey(s); !errors.Is(err, seal.ErrMalformedKey) {
			t.Errorf("ParsePublicKey(%q) = %v", s, err)
		}
	}
	if _, err := seal.ParseKeyring(nil); !errors.Is(err, seal.ErrMalformedKey) {
		t.Errorf("empty keyring: %v", err)
	}
}
