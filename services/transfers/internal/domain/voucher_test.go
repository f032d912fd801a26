package domain_test

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

func pinKey(t *testing.T, seed string) domain.PINKey {
	t.Helper()
	k, err := domain.NewPINKey([]byte(seed + strings.Repeat("k", 32)))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func otherPIN(pin string) string {
	if pin == "0000" {
		return "1111"
	}
	return "0000"
}

func TestVoucher(t *testing.T) {
	t.Parallel()
	pins := domain.NewPINHasher(pinKey(t, "a"))
	id := uuid.New()
	v, err := domain.NewVoucher(pins, id, t0, domain.DefaultVoucherTTL)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Number) != 10 || strings.Trim(v.Number, "0123456789") != "" || len(v.PIN) != 4 || strings.Trim(v.PIN, "0123456789") != "" {
		t.Fatalf("voucher %q PIN %q", v.Number, v.PIN)
	}
	if !v.ExpiresAt.Equal(t0.Add(7 * 24 * time.Hour)) {
		t.Fatalf("expires %v", v.ExpiresAt)
	}
	if !pins.Verify(v.PINHash, id, v.PIN) {
		t.Fatal("the voucher's PIN does not verify")
	}
	other, _ := domain.NewVoucher(pins, id, t0, time.Hour)
	if other.Number == v.Number && other.PIN == v.PIN {
		t.Fatal("two vouchers alike")
	}
	if _, err := domain.NewVoucher(nil, id, t0, time.Hour); err == nil {
		t.Fatal("a voucher without a PIN hasher")
	}
}

// The PIN is stored as "hmac-sha256$<key id>$<MAC>", bound to the transfer: the right PIN of
// the right transfer under a key the hasher holds verifies, nothing else does.
func TestPINMAC(t *testing.T) {
	t.Parallel()
	key := pinKey(t, "a")
	pins := domain.NewPINHasher(key)
	id := uuid.New()
	hash := pins.Hash(id, "4821")

	parts := strings.Split(hash, "$")
	if len(parts) != 3 || parts[0] != "hmac-sha256" || parts[1] != key.ID() || parts[1] != pins.KeyID() {
		t.Fatalf("stored form %q, want hmac-sha256$%s$<mac>", hash, key.ID())
	}
	if mac, err := base64.RawStdEncoding.DecodeString(parts[2]); err != nil || len(mac) != 32 {
		t.Fatalf("MAC %q: %d bytes, %v", parts[2], len(mac), err)
	}
	if strings.Contains(hash, "4821") {
		t.Fatalf("stored form %q shows the PIN", hash)
	}
	if pins.Hash(id, "4821") != hash {
		t.Fatal("the MAC is not deterministic for one transfer and PIN")
	}

	if !pins.Verify(hash, id, "4821") {
		t.Fatal("the right PIN does not verify")
	}
	for _, wrong := range []string{"4822", "0000", "", "48210", "4821 "} {
		if pins.Verify(hash, id, wrong) {
			t.Errorf("wrong PIN %q verifies", wrong)
		}
	}
	if pins.Verify(hash, uuid.New(), "4821") {
		t.Fatal("the PIN verifies against another transfer")
	}

	// Equal PINs of two vouchers give unrelated MACs.
	if pins.Hash(uuid.New(), "4821") == hash {
		t.Fatal("two transfers with the same PIN have the same MAC")
	}

	// Another key (a new hasher without this one, or a forged key id) fails.
	other := domain.NewPINHasher(pinKey(t, "b"))
	if other.KeyID() == pins.KeyID() {
		t.Fatal("two keys with one id")
	}
	if other.Verify(hash, id, "4821") {
		t.Fatal("a MAC verifies under a key that did not make it")
	}
	forged := "hmac-sha256$" + other.KeyID() + "$" + parts[2]
	if other.Verify(forged, id, "4821") || pins.Verify(forged, id, "4821") {
		t.Fatal("a MAC verifies under another key id")
	}

	// Rotation: a hasher with the old key retired verifies old MACs and makes new ones with
	// the new key.
	rotated := domain.NewPINHasher(pinKey(t, "b"), key)
	if !rotated.Verify(hash, id, "4821") || rotated.Verify(hash, id, "4822") {
		t.Fatal("the retired key does not verify its MACs")
	}
	if h := rotated.Hash(id, "4821"); !strings.HasPrefix(h, "hmac-sha256$"+other.KeyID()+"$") || pins.Verify(h, id, "4821") {
		t.Fatalf("new MAC %q not under the new key", h)
	}

	for _, garbage := range []string{"", "garbage", "hmac-sha256$", "hmac-sha256$" + key.ID(), "hmac-sha256$" + key.ID() + "$!!!",
		"hmac-sha512$" + key.ID() + "$" + parts[2], "$argon2id$v=19$m=0,t=0,p=0$$",
		// An argon2id PHC string of PIN 4821: no stored voucher uses one, and no other scheme is
		// accepted.
		"$argon2id$v=19$m=19456,t=2,p=1$5cPbdDq7xT0YKGi1RMVbRg$wDb2JJymq34HATokau1/vTPXvBnTt1Vnr1wAoWnGEGU"} {
		if pins.Verify(garbage, id, "4821") {
			t.Errorf("%q verifies", garbage)
		}
	}
}

func TestParsePINKey(t *testing.T) {
	t.Parallel()
	raw := []byte("0123456789abcdef0123456789abcdef")
	want, err := domain.NewPINKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		k, err := domain.ParsePINKey(" " + enc.EncodeToString(raw) + "\n")
		if err != nil || k.ID() != want.ID() {
			t.Errorf("%v: id %q, %v", enc, k.ID(), err)
		}
	}
	if _, err := domain.ParsePINKey(base64.StdEncoding.EncodeToString(raw[:31])); !errors.Is(err, domain.ErrPINKeySize) {
		t.Errorf("31 bytes: %v, want ErrPINKeySize", err)
	}
	if _, err := domain.ParsePINKey("not base64 at all!"); !errors.Is(err, domain.ErrPINKeyFormat) {
		t.Errorf("garbage: %v, want ErrPINKeyFormat", err)
	}
	if _, err := domain.ParsePINKey(""); err == nil {
		t.Error("an empty key parses")
	}
}
