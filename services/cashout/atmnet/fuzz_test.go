package atmnet_test

import (
	"bytes"
	cryptorand "crypto/rand"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/thumela/thumela/services/cashout/atmnet"
)

// The ATM network is the cash-out gateway's untrusted edge: every byte of a frame comes from a
// switch we do not control. The fuzz targets below assert properties, not only "no panic".
// Seed corpora: testdata/fuzz/<target>/ (run `make fuzz` to explore further; a crasher found
// there is committed beside them and fixed).

// FuzzUnpack: any payload either fails with ErrFormat or unpacks to a message that packs again
// and unpacks to the same message (the packed form is canonical, so it round-trips).
func FuzzUnpack(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 8 {
		b, err := atmnet.Pack(randomMessage(r))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	// Frames as a link sends them, MAC'd: DE 64, and DE 128 behind a secondary bitmap.
	key, err := atmnet.NewMACKey("zone-fuzz", bytes.Repeat([]byte{0x24}, 16))
	if err != nil {
		f.Fatal(err)
	}
	for range 8 {
		b, err := atmnet.PackMAC(randomMessage(r), key)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("0200"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, payload []byte) {
		m, err := atmnet.Unpack(payload)
		if err != nil {
			if !errors.Is(err, atmnet.ErrFormat) {
				t.Fatalf("Unpack error %v does not wrap ErrFormat", err)
			}
			return
		}
		packed, err := atmnet.Pack(m)
		if err != nil {
			// The library may accept on input what it refuses to produce (e.g. a length it
			// reads leniently); the gateway answers such a message with a format error, so
			// this is not a failure, but it must be ErrFormat.
			if !errors.Is(err, atmnet.ErrFormat) {
				t.Fatalf("Pack error %v does not wrap ErrFormat", err)
			}
			return
		}
		again, err := atmnet.Unpack(packed)
		if err != nil {
			t.Fatalf("a packed message does not unpack: %v", err)
		}
		if !reflect.DeepEqual(m, again) {
			t.Fatalf("round trip changed the message:\n first %+v\nsecond %+v", m, again)
		}
	})
}

// FuzzMessageRoundTrip: a message built from valid field values packs and unpacks to itself.
func FuzzMessageRoundTrip(f *testing.F) {
	for seed := range uint64(6) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		m := randomMessage(rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)))
		b, err := atmnet.Pack(m)
		if err != nil {
			t.Fatalf("Pack(%+v): %v", m, err)
		}
		got, err := atmnet.Unpack(b)
		if err != nil {
			t.Fatalf("Unpack: %v", err)
		}
		if !reflect.DeepEqual(m, got) {
			t.Fatalf("round trip changed the message:\n sent %+v\n  got %+v", m, got)
		}
		if mti, ok := atmnet.PeekMTI(b); !ok || mti != m.MTI {
			t.Fatalf("PeekMTI = %q, %v; want %q", mti, ok, m.MTI)
		}
	})
}

// FuzzMAC: a message MAC'd under a key verifies under it; the same frame with any one byte
// changed either does not unpack or does not verify (ErrMACMissing or ErrMACInvalid), and
// neither does any payload the fuzzer makes up, unless it is a frame PackMAC made.
func FuzzMAC(f *testing.F) {
	for seed := range uint64(6) {
		f.Add(seed, uint16(seed*7), byte(1<<seed))
	}
	f.Add(uint64(42), uint16(0), byte(0x20))
	f.Add(uint64(7), uint16(65535), byte(0xff))
	key, err := atmnet.NewMACKey("zone-fuzz", bytes.Repeat([]byte{0x24}, 32))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, seed uint64, pos uint16, flip byte) {
		m := randomMessage(rand.New(rand.NewPCG(seed, seed^0x51ed2701)))
		frame, err := atmnet.PackMAC(m, key)
		if err != nil {
			t.Fatalf("PackMAC(%+v): %v", m, err)
		}
		got, err := atmnet.Unpack(frame)
		if err != nil {
			t.Fatalf("Unpack of PackMAC's frame: %v", err)
		}
		if err := atmnet.VerifyMAC(frame, got, key); err != nil {
			t.Fatalf("VerifyMAC of PackMAC's frame: %v", err)
		}
		if flip == 0 {
			return
		}
		tampered := bytes.Clone(frame)
		tampered[int(pos)%len(tampered)] ^= flip
		again, err := atmnet.Unpack(tampered)
		if err != nil {
			return
		}
		err = atmnet.VerifyMAC(tampered, again, key)
		if err == nil {
			t.Fatalf("byte %d ^ %#x of a MAC'd frame accepted: %q", int(pos)%len(tampered), flip, tampered)
		}
		if !errors.Is(err, atmnet.ErrMACInvalid) && !errors.Is(err, atmnet.ErrMACMissing) {
			t.Fatalf("VerifyMAC of a tampered frame: %v, want ErrMACInvalid or ErrMACMissing", err)
		}
	})
}

// FuzzReadFrame: a stream of bytes reads as frames whose lengths match their prefixes, and
// writing those frames back gives the bytes that were consumed.
func FuzzReadFrame(f *testing.F) {
	f.Add([]byte{0, 4, '0', '8', '0', '0'})
	f.Add([]byte{0, 0, 0, 1, 'x'})
	f.Add([]byte{0xff, 0xff, 1})
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, stream []byte) {
		r := bytes.NewReader(stream)
		var rewritten bytes.Buffer
		for {
			payload, err := atmnet.ReadFrame(r)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				if !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("ReadFrame: %v, want io.ErrUnexpectedEOF for a cut stream", err)
				}
				return
			}
			if err := atmnet.WriteFrame(&rewritten, payload); err != nil {
				t.Fatalf("WriteFrame of a frame just read: %v", err)
			}
		}
		if !bytes.Equal(rewritten.Bytes(), stream) {
			t.Fatalf("frames read and written back differ from the stream")
		}
	})
}

// FuzzPINBlock: a valid PIN (4 to 12 digits) for a valid account number (1 to 19 digits)
// enciphers and deciphers to itself; any 16 bytes decipher to a PIN of 4 to 12 digits or to
// ErrPINBlock, never to anything else.
func FuzzPINBlock(f *testing.F) {
	f.Add("1234", "0123456789", []byte("0123456789abcdef"))
	f.Add("987654321098", "4000000000000002000", []byte{})
	f.Add("12a4", "", []byte{1, 2, 3})
	key, err := atmnet.NewZoneKey("zpk-fuzz", bytes.Repeat([]byte{0x42}, 16))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, pin, pan string, block []byte) {
		sealed, err := key.EncryptPIN(pin, pan, cryptorand.Reader)
		validPIN := len(pin) >= 4 && len(pin) <= 12 && isDigits(pin)
		validPAN := len(pan) >= 1 && len(pan) <= 19 && isDigits(pan)
		switch {
		case validPIN && validPAN:
			if err != nil {
				t.Fatalf("EncryptPIN(%q, %q): %v", pin, pan, err)
			}
			got, err := key.DecryptPIN(sealed, pan)
			if err != nil || got != pin {
				t.Fatalf("DecryptPIN = %q, %v; want %q", got, err, pin)
			}
			if bytes.Contains(sealed, []byte(pin)) && len(pin) > 6 {
				t.Fatalf("the PIN's digits appear in clear in the block")
			}
		case err == nil:
			t.Fatalf("EncryptPIN(%q, %q) accepted invalid input", pin, pan)
		}
		if !validPAN {
			return
		}
		got, err := key.DecryptPIN(block, pan)
		if err != nil {
			if !errors.Is(err, atmnet.ErrPINBlock) {
				t.Fatalf("DecryptPIN of arbitrary bytes: %v, want ErrPINBlock", err)
			}
			return
		}
		if len(got) < 4 || len(got) > 12 || !isDigits(got) {
			t.Fatalf("DecryptPIN of arbitrary bytes gave %q", got)
		}
	})
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
