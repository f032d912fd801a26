package atmnet

import (
	"encoding/hex"
	"testing"
)

// Known answers: the AES-128 examples of RFC 4493 (AES-CMAC), whose tags DE 64 carries cut to
// their leftmost 8 bytes. They pin the algorithm to the standard, not only to our own round trip.
func TestMACKnownAnswers(t *testing.T) {
	t.Parallel()
	key, err := NewMACKey("kat", mustHex(t, "2b7e151628aed2a6abf7158809cf4f3c"))
	if err != nil {
		t.Fatal(err)
	}
	const m = "6bc1bee22e409f96e93d7e117393172a" + "ae2d8a571e03ac9c9eb76fac45af8e51" +
		"30c81c46a35ce411e5fbc1191a0a52ef" + "f69f2445df4f9b17ad2b417be66c3710"
	for _, tc := range []struct {
		name, message, tag string
	}{
		{"empty", "", "bb1d6929e95937287fa37d129b756746"},
		{"one block", m[:32], "070a16b46b4d4144f79bdd9dd04a287c"},
		{"40 bytes", m[:80], "dfa66747de9ae63030ca32611497c827"},
		{"four blocks", m, "51f0bebf7e3b9d92fc49741779363cfe"},
	} {
		got, err := key.sum(mustHex(t, tc.message))
		if err != nil {
			t.Fatal(err)
		}
		if want := tc.tag[:2*MACSize]; hex.EncodeToString(got) != want {
			t.Errorf("%s: MAC %x, want %s (the leftmost 8 bytes of %s)", tc.name, got, want, tc.tag)
		}
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
