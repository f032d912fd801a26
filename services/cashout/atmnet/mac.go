package atmnet

import (
	"bytes"
	"crypto/aes"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	tinkmac "github.com/tink-crypto/tink-go/v2/mac/subtle"
)

// Every message on a link, both ways, carries a message authentication code: AES-CMAC (NIST SP
// 800-38B, as ISO 9797-1 MAC algorithm 5 and ISO 16609 use it with AES) under the link's zone
// MAC key, computed over the message as it travels, from the first byte of the MTI to the last
// byte before the MAC field, the bitmap included (with the MAC field's bit set). The MAC field
// is DE 64, or DE 128 when the message has a secondary bitmap, and is always the last element.
// It carries the leftmost 8 bytes of the CMAC (DE 64 and 128 are b 64), SP 800-38B's
// truncation.
//
// Without it, anyone on the link could alter a request or copy an approved withdrawal's fields
// into a reversal; DE 53 names the key, so a key issued to one link cannot speak for another.

// MACSize is the length of DE 64 and DE 128: 8 bytes (16 hexadecimal characters on the wire).
const MACSize = 8

// macHexLen is the MAC field as it travels.
const macHexLen = 2 * MACSize

// cmacLen is the untruncated AES-CMAC: one AES block.
const cmacLen = aes.BlockSize

// MAC errors.
var (
	// ErrMACMissing: the message has no MAC where ISO 8583 puts it (DE 64, or DE 128 when it has
	// a secondary bitmap).
	ErrMACMissing = errors.New("atmnet: message has no MAC")
	// ErrMACInvalid: the MAC does not verify under the zone MAC key: a wrong key, or a message
	// altered after it was MAC'd.
	ErrMACInvalid = errors.New("atmnet: MAC does not verify")
	// ErrInvalidMACKey: a zone MAC key that cannot be used.
	ErrInvalidMACKey = errors.New("atmnet: invalid zone MAC key")
)

// MACKey is one zone MAC key (ZAK): an AES-128, -192 or -256 key and the id of the zone keys it
// belongs to (DE 53). Its String and LogValue show the id only.
type MACKey struct {
	id   string
	cmac *tinkmac.AESCMAC
	// check is AES_K(0¹²⁸), kept to tell at start-up whether the same key was configured as a
	// zone PIN key too (one key, one use); it is never shown.
	check [aes.BlockSize]byte
}

// NewMACKey returns the MAC key of zone keys id.
func NewMACKey(id string, key []byte) (MACKey, error) {
	if !keyIDPattern.MatchString(id) {
		return MACKey{}, fmt.Errorf("%w: the id must be 1 to 16 of A-Z a-z 0-9 . _ -", ErrInvalidMACKey)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return MACKey{}, fmt.Errorf("%w %s: AES keys are 16, 24 or 32 bytes", ErrInvalidMACKey, id)
	}
	cmac, err := tinkmac.NewAESCMAC(key, cmacLen)
	if err != nil {
		return MACKey{}, fmt.Errorf("%w %s", ErrInvalidMACKey, id)
	}
	k := MACKey{id: id, cmac: cmac}
	block.Encrypt(k.check[:], make([]byte, aes.BlockSize))
	return k, nil
}

// ID is the id of the zone keys the MAC key belongs to, as DE 53 carries it.
func (k MACKey) ID() string { return k.id }

// String names the key, never its value.
func (k MACKey) String() string { return "zone MAC key " + k.id }

// GoString keeps %#v from printing the key schedule.
func (k MACKey) GoString() string { return k.String() }

// LogValue logs the id only.
func (k MACKey) LogValue() slog.Value { return slog.StringValue(k.id) }

// sum is the MAC of data: the leftmost MACSize bytes of its AES-CMAC.
func (k MACKey) sum(data []byte) ([]byte, error) {
	if k.cmac == nil {
		return nil, ErrInvalidMACKey
	}
	tag, err := k.cmac.ComputeMAC(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidMACKey, err)
	}
	return tag[:MACSize], nil
}

// PackMAC encodes m with its MAC under k, as a link sends it: m's own MAC fields are ignored;
// the MAC goes in DE 64, or in DE 128 when m has a secondary bitmap. m is not changed.
func PackMAC(m *Message, k MACKey) ([]byte, error) {
	c := *m
	c.MAC, c.SecondaryMAC = nil, nil
	msg, err := marshal(&c)
	if err != nil {
		return nil, err
	}
	// Packed with a placeholder first: the bitmap must already say that the MAC is there, and
	// the MAC field, fixed-length and last, is then the packed message's last 16 characters.
	placeholder := make([]byte, MACSize)
	if err := msg.BinaryField(macField(msg), placeholder); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	b, err := pack(msg)
	if err != nil {
		return nil, err
	}
	body := len(b) - macHexLen
	if body < 0 || !bytes.Equal(b[body:], []byte(strings.Repeat("0", macHexLen))) {
		return nil, fmt.Errorf("%w: the MAC field is not the message's last element", ErrFormat)
	}
	tag, err := k.sum(b[:body])
	if err != nil {
		return nil, err
	}
	copy(b[body:], strings.ToUpper(hex.EncodeToString(tag)))
	return b, nil
}

// VerifyMAC checks the MAC of frame, a message as it arrived, whose unpacking is m, under k:
// ErrMACMissing when the MAC field ISO 8583 calls for is absent, ErrMACInvalid when it does not
// verify, is not the message's last element, or the MAC is in the other MAC field.
func VerifyMAC(frame []byte, m *Message, k MACKey) error {
	c := *m
	c.MAC, c.SecondaryMAC = nil, nil
	msg, err := marshal(&c)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrMACInvalid, err)
	}
	got, other := m.MAC, m.SecondaryMAC
	if macField(msg) == fieldSecondaryMAC {
		got, other = m.SecondaryMAC, m.MAC
	}
	switch {
	case len(got) == 0 && len(other) == 0:
		return ErrMACMissing
	case len(got) == 0 || len(other) != 0:
		return fmt.Errorf("%w: the MAC is not in the data element ISO 8583 puts it in", ErrMACInvalid)
	case len(got) != MACSize || len(frame) < macHexLen:
		return ErrMACInvalid
	}
	// The MAC covers every byte before its own field, which must close the message (nothing
	// after it goes unauthenticated) and be written as PackMAC writes it, in upper-case hex, so
	// that no byte of an accepted frame can be changed.
	body := len(frame) - macHexLen
	want, err := k.sum(frame[:body])
	if err != nil {
		return err
	}
	if subtle.ConstantTimeCompare([]byte(strings.ToUpper(hex.EncodeToString(want))), frame[body:]) != 1 {
		return ErrMACInvalid
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%w: the MAC is not the message's last element", ErrMACInvalid)
	}
	return nil
}

// ParseMACKeys reads the zone MAC keys from their configuration, "<id>:<key>" each, the id
// being that of the zone PIN key of the same link. A key is hex when it is 32, 48 or 64 hex
// digits, otherwise standard base64. Errors name the entry's position and id, never the key.
func ParseMACKeys(entries []string) ([]MACKey, error) {
	if len(entries) == 0 {
		return nil, fmt.Errorf("%w: no key", ErrInvalidMACKey)
	}
	keys := make([]MACKey, 0, len(entries))
	seen := map[string]bool{}
	for i, e := range entries {
		id, value, ok := strings.Cut(strings.TrimSpace(e), ":")
		if !ok {
			return nil, fmt.Errorf("%w: entry %d is not <id>:<key>", ErrInvalidMACKey, i)
		}
		raw, err := decodeKey(value)
		if err != nil {
			return nil, fmt.Errorf("%w: entry %d (%s): neither hex nor base64", ErrInvalidMACKey, i, id)
		}
		k, err := NewMACKey(id, raw)
		clear(raw)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		if seen[id] {
			return nil, fmt.Errorf("%w: id %s is listed twice", ErrInvalidMACKey, id)
		}
		seen[id] = true
		keys = append(keys, k)
	}
	return keys, nil
}
