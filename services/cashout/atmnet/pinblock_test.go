package atmnet_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/thumela/thumela/services/cashout/atmnet"
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func randomKey(t testing.TB, r *mrand.Rand, id string) (atmnet.ZoneKey, []byte) {
	t.Helper()
	raw := make([]byte, []int{16, 24, 32}[r.IntN(3)])
	for i := range raw {
		raw[i] = byte(r.IntN(256))
	}
	k, err := atmnet.NewZoneKey(id, raw)
	if err != nil {
		t.Fatal(err)
	}
	return k, raw
}

// Known answers from an independent implementation of ISO 9564-1 format 4 (the psec Python
// package's documented examples), so the block is the standard's and not only our own.
func TestPINBlockKnownAnswers(t *testing.T) {
	t.Parallel()
	key, err := atmnet.NewZoneKey("kat", mustHex(t, "00112233445566778899AABBCCDDEEFF"))
	if err != nil {
		t.Fatal(err)
	}
	fill := bytes.NewReader(mustHex(t, "1122334455667788"))
	block, err := key.EncryptPIN("1234", "1234567890123456", fill)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.ToUpper(hex.EncodeToString(block)); got != "7CDF645C86CAF763AE34637A66997534" {
		t.Errorf("enciphered block %s", got)
	}
	pin, err := key.DecryptPIN(mustHex(t, "E4BE5B623AF7E006AC319E5B93544564"), "1234567890123456")
	if err != nil || pin != "1234" {
		t.Errorf("deciphered %q, %v; want 1234", pin, err)
	}
}

// Property: any PIN of 4 to 12 digits, for any account number of 1 to 19 digits, under any
// AES key, deciphers to itself; and the same PIN never gives the same block twice.
func TestPINBlockRoundTrip(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	r := mrand.New(mrand.NewPCG(seed, 2))
	for i := range 3000 {
		key, _ := randomKey(t, r, "k")
		pin := digits(r, 4+r.IntN(9))
		pan := digits(r, 1+r.IntN(19))
		block, err := key.EncryptPIN(pin, pan, rand.Reader)
		if err != nil {
			t.Fatalf("seed %d #%d: encrypt: %v", seed, i, err)
		}
		got, err := key.DecryptPIN(block, pan)
		if err != nil || got != pin {
			t.Fatalf("seed %d #%d: PIN %s, PAN %s: deciphered %q, %v", seed, i, pin, pan, got, err)
		}
		again, _ := key.EncryptPIN(pin, pan, rand.Reader)
		if bytes.Equal(again, block) {
			t.Fatalf("seed %d #%d: the same PIN block twice", seed, i)
		}
	}
}

// Property: a block deciphered under another key, for another voucher number, or altered in
// transit is an error, never a (wrong) PIN.
func TestPINBlockWrongKeyIsAnError(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	r := mrand.New(mrand.NewPCG(seed, 3))
	for i := range 3000 {
		key, _ := randomKey(t, r, "right")
		other, _ := randomKey(t, r, "wrong")
		pin, pan := digits(r, 4+r.IntN(9)), digits(r, 10)
		block, err := key.EncryptPIN(pin, pan, rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := other.DecryptPIN(block, pan); !errors.Is(err, atmnet.ErrPINBlock) {
			t.Fatalf("seed %d #%d: wrong key deciphered %q, %v; want ErrPINBlock", seed, i, got, err)
		}
		otherPAN := digits(r, 10)
		if otherPAN != pan {
			if got, err := key.DecryptPIN(block, otherPAN); !errors.Is(err, atmnet.ErrPINBlock) {
				t.Fatalf("seed %d #%d: another voucher deciphered %q, %v; want ErrPINBlock", seed, i, got, err)
			}
		}
		tampered := bytes.Clone(block)
		tampered[r.IntN(len(tampered))] ^= byte(1 + r.IntN(255))
		if got, err := key.DecryptPIN(tampered, pan); !errors.Is(err, atmnet.ErrPINBlock) {
			t.Fatalf("seed %d #%d: altered block deciphered %q, %v; want ErrPINBlock", seed, i, got, err)
		}
	}
	key, _ := randomKey(t, r, "k")
	if _, err := key.DecryptPIN(make([]byte, 8), "1234567890"); !errors.Is(err, atmnet.ErrPINBlock) {
		t.Errorf("an 8-byte (TDES-sized) block: %v", err)
	}
}

func TestEncryptPINRefusesBadInput(t *testing.T) {
	t.Parallel()
	key, _ := randomKey(t, mrand.New(mrand.NewPCG(1, 1)), "k")
	for _, pin := range []string{"", "123", "1234567890123", "12a4"} {
		if _, err := key.EncryptPIN(pin, "1234567890", rand.Reader); !errors.Is(err, atmnet.ErrInvalidPIN) {
			t.Errorf("PIN %q: %v", pin, err)
		}
	}
	for _, pan := range []string{"", "12345678901234567890", "12-4"} {
		if _, err := key.EncryptPIN("1234", pan, rand.Reader); !errors.Is(err, atmnet.ErrInvalidPAN) {
			t.Errorf("PAN %q: %v", pan, err)
		}
	}
}

func TestZoneKeys(t *testing.T) {
	t.Parallel()
	r := mrand.New(mrand.NewPCG(4, 4))
	_, old := randomKey(t, r, "old")
	_, cur := randomKey(t, r, "cur")
	keys, err := atmnet.ParseZoneKeys([]string{
		"zpk-2026:" + hex.EncodeToString(cur) + ":250655",
		" zpk-2025:" + base64.StdEncoding.EncodeToString(old) + ":250655+051001",
	})
	if err != nil {
		t.Fatal(err)
	}
	if keys.Current().ID() != "zpk-2026" || strings.Join(keys.IDs(), ",") != "zpk-2026,zpk-2025" {
		t.Fatalf("ids %v", keys.IDs())
	}
	if k, _ := keys.Key("zpk-2025"); strings.Join(k.Acquirers(), ",") != "250655,051001" {
		t.Errorf("acquirers of zpk-2025: %v", k.Acquirers())
	}
	// A block made under the retired key still deciphers (rotation without a flag day).
	oldKey, _ := atmnet.NewZoneKey("zpk-2025", old)
	block, _ := oldKey.EncryptPIN("4821", "9876543210", rand.Reader)
	if pin, err := keys.DecryptPIN("zpk-2025", block, "9876543210"); err != nil || pin != "4821" {
		t.Errorf("retired key: %q, %v", pin, err)
	}
	if _, err := keys.DecryptPIN("zpk-2026", block, "9876543210"); !errors.Is(err, atmnet.ErrPINBlock) {
		t.Errorf("the block under the other key: %v", err)
	}
	if _, err := keys.DecryptPIN("zpk-1999", block, "9876543210"); !errors.Is(err, atmnet.ErrUnknownKey) {
		t.Errorf("unknown key id: %v", err)
	}

	// Formatting a key never shows its bytes.
	for _, s := range []string{fmt.Sprint(keys.Current()), fmt.Sprintf("%v %+v %#v", oldKey, oldKey, oldKey)} {
		if strings.Contains(strings.ToLower(s), hex.EncodeToString(cur)[:8]) || strings.Contains(strings.ToLower(s), hex.EncodeToString(old)[:8]) {
			t.Errorf("a formatted key shows key material: %s", s)
		}
	}

	secret := hex.EncodeToString(cur)
	for name, entries := range map[string][]string{
		"none":                  nil,
		"no id":                 {secret},
		"short key":             {"k:" + hex.EncodeToString(cur[:10]) + ":250655"},
		"not base64":            {"k:!!" + secret[:20] + ":250655"},
		"bad id":                {"k ey:" + secret + ":250655"},
		"duplicate id":          {"k:" + secret + ":250655", "k:" + secret + ":250655"},
		"acquirer not digits":   {"k:" + secret + ":FNB"},
		"acquirer of 12 digits": {"k:" + secret + ":250655250655"},
		"an empty acquirer":     {"k:" + secret + ":250655++051001"},
		"too many parts":        {"k:" + secret + ":250655:051001"},
	} {
		_, err := atmnet.ParseZoneKeys(entries)
		if !errors.Is(err, atmnet.ErrInvalidKey) {
			t.Errorf("%s: %v, want ErrInvalidKey", name, err)
		}
		if err != nil && strings.Contains(err.Error(), secret[:16]) {
			t.Errorf("%s: the error shows the key: %v", name, err)
		}
	}
}

// A gateway's zone PIN key bound to no acquirer id is refused, not read as "any bank": the
// configuration of before the binding ("<id>:<key>") fails the start with an error naming the
// entry and its id, never the key.
func TestUnboundZoneKeysAreRefused(t *testing.T) {
	t.Parallel()
	secret := strings.Repeat("3c", 32)
	for name, entries := range map[string][]string{
		"the format of before": {"zpk-1:" + secret},
		"an empty binding":     {"zpk-1:" + secret + ":"},
		"one of two unbound":   {"zpk-1:" + secret + ":250655", "zpk-0:" + secret},
	} {
		_, err := atmnet.ParseZoneKeys(entries)
		if !errors.Is(err, atmnet.ErrUnboundKey) {
			t.Errorf("%s: %v, want ErrUnboundKey", name, err)
		}
		if err != nil && strings.Contains(err.Error(), secret[:16]) {
			t.Errorf("%s: the error shows the key: %v", name, err)
		}
	}
	unbound, err := atmnet.NewZoneKey("zpk-1", mustHex(t, secret))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := atmnet.NewZoneKeys(unbound); !errors.Is(err, atmnet.ErrUnboundKey) {
		t.Errorf("NewZoneKeys of an unbound key: %v, want ErrUnboundKey", err)
	}
}

func TestNewWithdrawalCarriesTheBlockOnly(t *testing.T) {
	t.Parallel()
	key, _ := randomKey(t, mrand.New(mrand.NewPCG(5, 5)), "zpk1")
	stan, rrn := atmnet.NewReferences(time.Now())
	m, err := atmnet.NewWithdrawal(atmnet.Withdrawal{
		VoucherNumber: "1234567890", PIN: "4821", Phone: "082 123 4567", AmountCents: 50000,
		AcquirerID: atmnet.AcquirerFNB, TerminalID: "FNB00042", Location: "FNB ATM Sandton City",
		STAN: stan, RRN: rrn,
	}, key)
	if err != nil {
		t.Fatal(err)
	}
	packed, err := atmnet.Pack(m)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(packed, []byte("4821")) {
		t.Errorf("the clear PIN is in the message: %q", packed)
	}
	if m.ProcessingCode != "010000" || m.Currency != "710" || m.PINKeyID != "zpk1" || len(m.PINBlock) != 16 {
		t.Errorf("withdrawal %+v", m)
	}
	if pin, err := key.DecryptPIN(m.PINBlock, m.VoucherNumber); err != nil || pin != "4821" {
		t.Errorf("PIN block: %q, %v", pin, err)
	}

	rev := atmnet.NewReversal(m, "000777", time.Now())
	orig, err := atmnet.ParseOriginalData(rev.OriginalData)
	if err != nil {
		t.Fatal(err)
	}
	if rev.MTI != "0420" || rev.RRN != rrn || rev.STAN != "000777" || orig.MTI != "0200" || orig.STAN != stan || rev.PINBlock != nil {
		t.Errorf("reversal %+v (original %+v)", rev, orig)
	}
	if _, err := atmnet.Pack(rev); err != nil {
		t.Errorf("reversal does not pack: %v", err)
	}
}
