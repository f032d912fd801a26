package atmnet_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/thumela/thumela/services/cashout/atmnet"
)

func testMACKey(t testing.TB, id string, fill byte) atmnet.MACKey {
	t.Helper()
	k, err := atmnet.NewMACKey(id, bytes.Repeat([]byte{fill}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// macMessages are a withdrawal (primary bitmap: the MAC in DE 64), and a reversal and an echo
// (a secondary bitmap for DE 90 and DE 70: the MAC in DE 128).
func macMessages(t testing.TB) map[string]*atmnet.Message {
	t.Helper()
	pinKey, err := atmnet.NewZoneKey("zone-1", bytes.Repeat([]byte{0x11}, 16))
	if err != nil {
		t.Fatal(err)
	}
	w, err := atmnet.NewWithdrawal(atmnet.Withdrawal{
		VoucherNumber: "1234567890", PIN: "4821", Phone: "082 123 4567", AmountCents: 50000,
		AcquirerID: atmnet.AcquirerFNB, TerminalID: "FNB00042", Location: "FNB ATM Sandton City",
		STAN: "000123", RRN: "633513000123",
	}, pinKey)
	if err != nil {
		t.Fatal(err)
	}
	echo := atmnet.NewEcho("000124", time.Time{})
	echo.PINKeyID = "zone-1"
	return map[string]*atmnet.Message{
		"withdrawal": w,
		"reversal":   atmnet.NewReversal(w, "000125", time.Time{}),
		"echo":       echo,
	}
}

func TestPackMACAndVerify(t *testing.T) {
	t.Parallel()
	key := testMACKey(t, "zone-1", 0x5a)
	for name, m := range macMessages(t) {
		t.Run(name, func(t *testing.T) {
			frame, err := atmnet.PackMAC(m, key)
			if err != nil {
				t.Fatal(err)
			}
			got, err := atmnet.Unpack(frame)
			if err != nil {
				t.Fatal(err)
			}
			secondary := m.OriginalData != "" || m.NetworkCode != ""
			if secondary && (len(got.SecondaryMAC) != atmnet.MACSize || got.MAC != nil) ||
				!secondary && (len(got.MAC) != atmnet.MACSize || got.SecondaryMAC != nil) {
				t.Fatalf("DE 64 %x, DE 128 %x: the MAC is not where ISO 8583 puts it", got.MAC, got.SecondaryMAC)
			}
			// The MAC is the message's last element, in upper-case hex.
			tag := got.MAC
			if secondary {
				tag = got.SecondaryMAC
			}
			if !bytes.HasSuffix(frame, []byte(strings.ToUpper(hex.EncodeToString(tag)))) {
				t.Errorf("the frame does not end with its MAC: %q", frame)
			}
			if err := atmnet.VerifyMAC(frame, got, key); err != nil {
				t.Fatalf("VerifyMAC of PackMAC's frame: %v", err)
			}
			if m.MAC != nil || m.SecondaryMAC != nil {
				t.Error("PackMAC changed its message")
			}

			// Under another key, or the same id with another key.
			if err := atmnet.VerifyMAC(frame, got, testMACKey(t, "zone-1", 0xa5)); !errors.Is(err, atmnet.ErrMACInvalid) {
				t.Errorf("another key: %v, want ErrMACInvalid", err)
			}
			// Without a MAC.
			plain, err := atmnet.Pack(m)
			if err != nil {
				t.Fatal(err)
			}
			unmacd, _ := atmnet.Unpack(plain)
			if err := atmnet.VerifyMAC(plain, unmacd, key); !errors.Is(err, atmnet.ErrMACMissing) {
				t.Errorf("no MAC: %v, want ErrMACMissing", err)
			}
			// Something after the MAC goes unauthenticated: refused.
			long := append(bytes.Clone(frame), "00"...)
			if again, err := atmnet.Unpack(long); err == nil {
				if err := atmnet.VerifyMAC(long, again, key); !errors.Is(err, atmnet.ErrMACInvalid) {
					t.Errorf("bytes after the MAC: %v, want ErrMACInvalid", err)
				}
			}
			// Lower-case hex is another frame: refused, so no byte of an accepted frame can change.
			lower := bytes.Clone(frame)
			copy(lower[len(lower)-16:], strings.ToLower(string(lower[len(lower)-16:])))
			if !bytes.Equal(lower, frame) {
				if err := atmnet.VerifyMAC(lower, got, key); !errors.Is(err, atmnet.ErrMACInvalid) {
					t.Errorf("lower-case MAC: %v, want ErrMACInvalid", err)
				}
			}
		})
	}
}

// A MAC in the data element the bitmap does not call for is refused: DE 64 beside a secondary
// bitmap, or both.
func TestMACInTheWrongElement(t *testing.T) {
	t.Parallel()
	key := testMACKey(t, "zone-1", 0x5a)
	rev := macMessages(t)["reversal"]
	for name, edit := range map[string]func(m *atmnet.Message){
		"DE 64 with a secondary bitmap": func(m *atmnet.Message) { m.MAC = make([]byte, atmnet.MACSize) },
		"both":                          func(m *atmnet.Message) { m.MAC, m.SecondaryMAC = make([]byte, 8), make([]byte, 8) },
	} {
		m := *rev
		edit(&m)
		frame, err := atmnet.Pack(&m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := atmnet.Unpack(frame)
		if err != nil {
			t.Fatal(err)
		}
		if err := atmnet.VerifyMAC(frame, got, key); !errors.Is(err, atmnet.ErrMACInvalid) {
			t.Errorf("%s: %v, want ErrMACInvalid", name, err)
		}
	}
}

// Every single byte changed in a MAC'd frame makes it unreadable or unauthenticated: no field
// can be altered after the MAC, the MAC field included.
func TestEveryByteIsAuthenticated(t *testing.T) {
	t.Parallel()
	key := testMACKey(t, "zone-1", 0x5a)
	for name, m := range macMessages(t) {
		frame, err := atmnet.PackMAC(m, key)
		if err != nil {
			t.Fatal(err)
		}
		for i := range frame {
			for _, flip := range []byte{0x01, 0x20, 0x80} {
				tampered := bytes.Clone(frame)
				tampered[i] ^= flip
				got, err := atmnet.Unpack(tampered)
				if err != nil {
					continue
				}
				if err := atmnet.VerifyMAC(tampered, got, key); err == nil {
					t.Fatalf("%s: byte %d ^ %#x accepted: %q", name, i, flip, tampered)
				}
			}
		}
	}
}

func TestMACKeys(t *testing.T) {
	t.Parallel()
	secret := strings.Repeat("5a", 32)
	keys, err := atmnet.ParseMACKeys([]string{"zone-2:" + secret, " zone-1:" + strings.Repeat("a5", 16)})
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 || keys[0].ID() != "zone-2" || keys[1].ID() != "zone-1" {
		t.Fatalf("keys %v", keys)
	}
	for _, s := range []string{fmt.Sprint(keys[0]), fmt.Sprintf("%v %+v %#v", keys[1], keys[1], keys[1])} {
		if strings.Contains(strings.ToLower(s), secret[:8]) || strings.Contains(strings.ToLower(s), "a5a5a5a5") {
			t.Errorf("a formatted MAC key shows key material: %s", s)
		}
	}
	for name, entries := range map[string][]string{
		"none":         nil,
		"no id":        {secret},
		"short key":    {"k:" + secret[:20]},
		"bad id":       {"k ey:" + secret},
		"duplicate id": {"k:" + secret, "k:" + secret},
	} {
		_, err := atmnet.ParseMACKeys(entries)
		if !errors.Is(err, atmnet.ErrInvalidMACKey) {
			t.Errorf("%s: %v, want ErrInvalidMACKey", name, err)
		}
		if err != nil && strings.Contains(err.Error(), secret[:16]) {
			t.Errorf("%s: the error shows the key: %v", name, err)
		}
	}
}

// Each zone PIN key has the MAC key of its id and each MAC key a PIN key; no key serves both.
func TestZones(t *testing.T) {
	t.Parallel()
	pinHex, macHex := strings.Repeat("11", 32), strings.Repeat("22", 32)
	pin, err := atmnet.ParseZoneKeys([]string{"fnb-1:" + pinHex + ":250655", "all-1:" + strings.Repeat("33", 16) + ":250655+051001"})
	if err != nil {
		t.Fatal(err)
	}
	mac, err := atmnet.ParseMACKeys([]string{"all-1:" + strings.Repeat("44", 16), "fnb-1:" + macHex})
	if err != nil {
		t.Fatal(err)
	}
	zones, err := atmnet.NewZones(pin, mac)
	if err != nil {
		t.Fatal(err)
	}
	if zones.Current().ID() != "fnb-1" || zones.Current().MAC.ID() != "fnb-1" || strings.Join(zones.IDs(), ",") != "fnb-1,all-1" {
		t.Fatalf("zones %v, current %s", zones.IDs(), zones.Current().ID())
	}
	fnb, _ := zones.Zone("fnb-1")
	if fnb.CheckAcquirer("250655") != nil || !errors.Is(fnb.CheckAcquirer("051001"), atmnet.ErrAcquirerNotBound) {
		t.Error("fnb-1 speaks for FNB (250655) only")
	}
	if all, _ := zones.Zone("all-1"); all.CheckAcquirer("051001") != nil {
		t.Error("all-1 speaks for Standard Bank (051001)")
	}
	if _, ok := zones.Zone("zone-9"); ok {
		t.Error("an unknown id names zone keys")
	}

	only := func(entries ...string) []atmnet.MACKey {
		k, err := atmnet.ParseMACKeys(entries)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	for name, macs := range map[string][]atmnet.MACKey{
		"a PIN key without its MAC key":    only("fnb-1:" + macHex),
		"a MAC key without its PIN key":    only("fnb-1:"+macHex, "all-1:"+macHex, "abs-1:"+macHex),
		"one key to encipher PINs and MAC": only("fnb-1:"+pinHex, "all-1:"+macHex),
	} {
		_, err := atmnet.NewZones(pin, macs)
		if !errors.Is(err, atmnet.ErrInvalidMACKey) {
			t.Errorf("%s: %v, want ErrInvalidMACKey", name, err)
		}
		if err != nil && (strings.Contains(err.Error(), pinHex[:16]) || strings.Contains(err.Error(), macHex[:16])) {
			t.Errorf("%s: the error shows a key: %v", name, err)
		}
	}
}
