package atmnet

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"slices"
	"strings"

	"github.com/thumela/thumela/services/platform/intconv"
)

// The PIN travels as an ISO 9564-1 format 4 PIN block enciphered with AES under a zone PIN key
// (ZPK) shared by the switch and the gateway. Format 4 is the one ISO 9564 defines for AES (a
// 16-byte block), and the one PCI PIN Security Requirement 18-3 moves networks to; formats 0–3
// exist for TDES's 8-byte block, which PCI is retiring for PIN encipherment. Format 4 also binds
// the PIN to the account number (here the voucher number) through a second encipherment, and
// fills with random bits, so the same PIN never gives the same block twice.
//
//	plain PIN field (16 bytes): 4 | N | N PIN digits | A fill to nibble 15 | 8 random bytes
//	plain PAN field (16 bytes): M | PAN (M = length−12; PAN < 12 digits is left-filled with 0 to 12) | 0 fill
//	block = AES_K( AES_K(PIN field) XOR PAN field )

// PIN block errors.
var (
	// ErrPINBlock: the block does not decipher to a format 4 PIN field under this key and
	// voucher number: a wrong key, a block made for another voucher, or a corrupted block. It is
	// never mistaken for a wrong PIN.
	ErrPINBlock = errors.New("atmnet: PIN block does not decipher under this key")
	// ErrUnknownKey: DE 53 names no configured zone PIN key.
	ErrUnknownKey = errors.New("atmnet: unknown zone PIN key")
	// ErrInvalidPIN: a PIN to encipher is not 4 to 12 digits.
	ErrInvalidPIN = errors.New("atmnet: a PIN is 4 to 12 digits")
	// ErrInvalidPAN: an account (voucher) number is not 1 to 19 digits.
	ErrInvalidPAN = errors.New("atmnet: an account number is 1 to 19 digits")
	// ErrInvalidKey: a zone PIN key that cannot be used.
	ErrInvalidKey = errors.New("atmnet: invalid zone PIN key")
	// ErrUnboundKey: a gateway's zone PIN key issued to no acquirer id (DE 32). It is refused
	// rather than read as "any acquirer": that reading is what let any link speak for any bank.
	ErrUnboundKey = errors.New("atmnet: zone PIN key bound to no acquirer id")
)

// keyIDPattern: DE 53 carries the id, so it is short and plain.
var keyIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,16}$`)

// acquirerPattern is DE 32, n..11.
var acquirerPattern = regexp.MustCompile(`^[0-9]{1,11}$`)

// ZoneKey is one zone PIN key: an AES-128, -192 or -256 key, the id DE 53 names it by, and the
// acquiring institutions (DE 32) it was issued to. Its String and LogValue show the id only.
type ZoneKey struct {
	id    string
	block cipher.Block
	// acquirers are the DE 32 ids a request under this key may name: a switch's key exchange
	// issues a link's keys for the institutions that link carries, and a key that speaks for
	// every bank would let any link claim any bank's ATMs.
	acquirers []string
}

// NewZoneKey returns the key id → key (16, 24 or 32 bytes), issued to acquirers (DE 32 ids). A
// client's key needs no acquirers; the gateway's (NewZoneKeys) must have some.
func NewZoneKey(id string, key []byte, acquirers ...string) (ZoneKey, error) {
	if !keyIDPattern.MatchString(id) {
		return ZoneKey{}, fmt.Errorf("%w: the id must be 1 to 16 of A-Z a-z 0-9 . _ -", ErrInvalidKey)
	}
	for _, a := range acquirers {
		if !acquirerPattern.MatchString(a) {
			return ZoneKey{}, fmt.Errorf("%w %s: an acquirer id (DE 32) is 1 to 11 digits", ErrInvalidKey, id)
		}
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return ZoneKey{}, fmt.Errorf("%w %s: AES keys are 16, 24 or 32 bytes", ErrInvalidKey, id)
	}
	return ZoneKey{id: id, block: block, acquirers: slices.Clone(acquirers)}, nil
}

// ID is the key's id, as DE 53 carries it.
func (k ZoneKey) ID() string { return k.id }

// Acquirers are the DE 32 ids the key was issued to.
func (k ZoneKey) Acquirers() []string { return slices.Clone(k.acquirers) }

// String names the key, never its value.
func (k ZoneKey) String() string { return "zone PIN key " + k.id }

// GoString keeps %#v from printing the cipher's round keys.
func (k ZoneKey) GoString() string { return k.String() }

// LogValue logs the id only.
func (k ZoneKey) LogValue() slog.Value { return slog.StringValue(k.id) }

// EncryptPIN builds the format 4 PIN block of pin for account number pan (the voucher number).
// random supplies the 8 fill bytes (crypto/rand.Reader; a fixed reader only in tests).
func (k ZoneKey) EncryptPIN(pin, pan string, random io.Reader) ([]byte, error) {
	if k.block == nil {
		return nil, ErrInvalidKey
	}
	pinField, err := pinField(pin, random)
	if err != nil {
		return nil, err
	}
	panField, err := panField(pan)
	if err != nil {
		return nil, err
	}
	out := make([]byte, PINBlockSize)
	k.block.Encrypt(out, pinField[:])
	subtle.XORBytes(out, out, panField[:])
	k.block.Encrypt(out, out)
	clear(pinField[:])
	return out, nil
}

// DecryptPIN recovers the PIN from a format 4 PIN block made for pan. Anything but a
// well-formed PIN field (control nibble 4, a length of 4 to 12, digits, then A fill) is
// ErrPINBlock: under a wrong key or another account number the chance of a well-formed field
// is about 2⁻⁴⁷, so a wrong key reads as a cryptographic error and never as a wrong PIN.
func (k ZoneKey) DecryptPIN(block []byte, pan string) (string, error) {
	if k.block == nil {
		return "", ErrInvalidKey
	}
	if len(block) != PINBlockSize {
		return "", fmt.Errorf("%w: %d bytes, want %d", ErrPINBlock, len(block), PINBlockSize)
	}
	panField, err := panField(pan)
	if err != nil {
		return "", err
	}
	var field [PINBlockSize]byte
	k.block.Decrypt(field[:], block)
	subtle.XORBytes(field[:], field[:], panField[:])
	k.block.Decrypt(field[:], field[:])
	defer clear(field[:])
	return decodePINField(field)
}

func nibble(b []byte, i int) byte {
	if i%2 == 0 {
		return b[i/2] >> 4
	}
	return b[i/2] & 0x0f
}

func setNibble(b []byte, i int, v byte) {
	if i%2 == 0 {
		b[i/2] = b[i/2]&0x0f | v<<4
	} else {
		b[i/2] = b[i/2]&0xf0 | v&0x0f
	}
}

func allDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func pinField(pin string, random io.Reader) ([PINBlockSize]byte, error) {
	var f [PINBlockSize]byte
	if len(pin) < 4 || len(pin) > 12 || !allDigits(pin) {
		return f, ErrInvalidPIN
	}
	setNibble(f[:], 0, 4)
	setNibble(f[:], 1, intconv.Byte(len(pin)))
	for i := range len(pin) {
		setNibble(f[:], 2+i, pin[i]-'0')
	}
	for i := 2 + len(pin); i < 16; i++ {
		setNibble(f[:], i, 0xA)
	}
	if _, err := io.ReadFull(random, f[8:]); err != nil {
		return f, fmt.Errorf("atmnet: PIN block fill: %w", err)
	}
	return f, nil
}

func panField(pan string) ([PINBlockSize]byte, error) {
	var f [PINBlockSize]byte
	if len(pan) < 1 || len(pan) > 19 || !allDigits(pan) {
		return f, ErrInvalidPAN
	}
	m := 0
	if len(pan) < 12 {
		pan = strings.Repeat("0", 12-len(pan)) + pan
	} else {
		m = len(pan) - 12
	}
	setNibble(f[:], 0, intconv.Byte(m))
	for i := range len(pan) {
		setNibble(f[:], 1+i, pan[i]-'0')
	}
	return f, nil
}

func decodePINField(f [PINBlockSize]byte) (string, error) {
	if nibble(f[:], 0) != 4 {
		return "", ErrPINBlock
	}
	n := int(nibble(f[:], 1))
	if n < 4 || n > 12 {
		return "", ErrPINBlock
	}
	pin := make([]byte, n)
	for i := range n {
		d := nibble(f[:], 2+i)
		if d > 9 {
			return "", ErrPINBlock
		}
		pin[i] = '0' + d
	}
	for i := 2 + n; i < 16; i++ {
		if nibble(f[:], i) != 0xA {
			return "", ErrPINBlock
		}
	}
	return string(pin), nil
}

// ZoneKeys are the configured zone PIN keys: the first is the current one (what a client
// enciphers with), every one deciphers, so a key can be rotated without a flag day.
type ZoneKeys struct {
	keys []ZoneKey
}

// NewZoneKeys returns the gateway's key set; keys[0] is the current key. Ids must be unique and
// every key bound to at least one acquirer id (ErrUnboundKey).
func NewZoneKeys(keys ...ZoneKey) (*ZoneKeys, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: no key", ErrInvalidKey)
	}
	seen := map[string]bool{}
	for _, k := range keys {
		if k.block == nil {
			return nil, ErrInvalidKey
		}
		if len(k.acquirers) == 0 {
			return nil, fmt.Errorf("%w: key %s; write <id>:<key>:<acquirer id>[+<acquirer id>…]", ErrUnboundKey, k.id)
		}
		if seen[k.id] {
			return nil, fmt.Errorf("%w: id %s is listed twice", ErrInvalidKey, k.id)
		}
		seen[k.id] = true
	}
	return &ZoneKeys{keys: keys}, nil
}

// ParseZoneKeys reads the keys from their configuration, the current key first, each
// "<id>:<key>:<acquirer id>[+<acquirer id>…]": the DE 32 ids the key was issued to. A key is hex
// when it is 32, 48 or 64 hex digits, otherwise standard base64. An entry without acquirer ids
// (the "<id>:<key>" of before the binding) is ErrUnboundKey. Errors name the entry's position
// and id, never the key.
func ParseZoneKeys(entries []string) (*ZoneKeys, error) {
	keys := make([]ZoneKey, 0, len(entries))
	for i, e := range entries {
		parts := strings.Split(strings.TrimSpace(e), ":")
		if len(parts) < 2 || len(parts) > 3 {
			return nil, fmt.Errorf("%w: entry %d is not <id>:<key>:<acquirer id>[+<acquirer id>…]", ErrInvalidKey, i)
		}
		id, value := parts[0], parts[1]
		if len(parts) == 2 || strings.TrimSpace(parts[2]) == "" {
			return nil, fmt.Errorf("%w: entry %d (%s): write <id>:<key>:<acquirer id>[+<acquirer id>…], the DE 32 ids the key was issued to", ErrUnboundKey, i, id)
		}
		var acquirers []string
		for a := range strings.SplitSeq(parts[2], "+") {
			acquirers = append(acquirers, strings.TrimSpace(a))
		}
		raw, err := decodeKey(value)
		if err != nil {
			return nil, fmt.Errorf("%w: entry %d (%s): neither hex nor base64", ErrInvalidKey, i, id)
		}
		k, err := NewZoneKey(id, raw, acquirers...)
		clear(raw)
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", i, err)
		}
		keys = append(keys, k)
	}
	return NewZoneKeys(keys...)
}

func decodeKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	switch len(s) {
	case 32, 48, 64:
		if b, err := hex.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return base64.StdEncoding.DecodeString(s)
}

// Current is the key a client enciphers new PIN blocks with.
func (z *ZoneKeys) Current() ZoneKey { return z.keys[0] }

// IDs lists the key ids, current first (for the start-up log line).
func (z *ZoneKeys) IDs() []string {
	ids := make([]string, len(z.keys))
	for i, k := range z.keys {
		ids[i] = k.id
	}
	return ids
}

// Key is the key named id.
func (z *ZoneKeys) Key(id string) (ZoneKey, bool) {
	for _, k := range z.keys {
		if k.id == id {
			return k, true
		}
	}
	return ZoneKey{}, false
}

// DecryptPIN deciphers block with the key DE 53 names: ErrUnknownKey when there is none,
// ErrPINBlock when it does not decipher.
func (z *ZoneKeys) DecryptPIN(keyID string, block []byte, pan string) (string, error) {
	k, ok := z.Key(keyID)
	if !ok {
		return "", ErrUnknownKey
	}
	return k.DecryptPIN(block, pan)
}
