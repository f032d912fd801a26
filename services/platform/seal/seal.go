// Package seal keeps a message's secrets (a voucher PIN, a one-time code) readable by one
// service alone while they travel through other services' outboxes and the event bus: the
// producer seals them to the recipient service's public key (an anonymous NaCl sealed box:
// X25519, XSalsa20-Poly1305, a fresh ephemeral key per message), and only the holder of the
// private key opens them, in memory. Every sealed value names the key id it was sealed to, so
// the recipient can rotate its key pair: it keeps the retired private keys until everything
// sealed to them has been delivered.
//
// Keys travel in configuration as "<key id>:<base64 of 32 bytes>".
package seal

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/curve25519"
	"golang.org/x/crypto/nacl/box"
)

// Errors.
var (
	// ErrMalformedKey is returned for a key that is not "<id>:<base64 of 32 bytes>".
	ErrMalformedKey = errors.New("seal: malformed key")
	// ErrUnknownKey is returned by Open for a box sealed to a key id the keyring lacks.
	ErrUnknownKey = errors.New("seal: sealed to an unknown key")
	// ErrOpen is returned by Open for a box that does not open (tampered, or another key).
	ErrOpen = errors.New("seal: the box does not open")
)

// PublicKey is what a producer seals to.
type PublicKey struct {
	ID  string
	key [32]byte
}

// PrivateKey opens what was sealed to its public key.
type PrivateKey struct {
	ID     string
	public [32]byte
	key    [32]byte
}

// Sealed is one sealed message and the id of the key it was sealed to.
type Sealed struct {
	KeyID string
	Box   []byte
}

// GenerateKey makes a new key pair with the given id.
func GenerateKey(id string) (PrivateKey, error) {
	if err := validID(id); err != nil {
		return PrivateKey{}, err
	}
	pub, priv, err := box.GenerateKey(rand.Reader)
	if err != nil {
		return PrivateKey{}, fmt.Errorf("seal: generate key: %w", err)
	}
	return PrivateKey{ID: id, public: *pub, key: *priv}, nil
}

// Public returns the key's public half.
func (k PrivateKey) Public() PublicKey { return PublicKey{ID: k.ID, key: k.public} }

// String encodes the private key for configuration. Keep it in a secret store.
func (k PrivateKey) String() string { return encode(k.ID, k.key) }

// String encodes the public key for configuration.
func (k PublicKey) String() string { return encode(k.ID, k.key) }

// ParsePublicKey reads "<id>:<base64>".
func ParsePublicKey(s string) (PublicKey, error) {
	id, raw, err := decode(s)
	if err != nil {
		return PublicKey{}, err
	}
	return PublicKey{ID: id, key: raw}, nil
}

// ParsePrivateKey reads "<id>:<base64>" and derives the public half.
func ParsePrivateKey(s string) (PrivateKey, error) {
	id, raw, err := decode(s)
	if err != nil {
		return PrivateKey{}, err
	}
	pub, err := curve25519.X25519(raw[:], curve25519.Basepoint)
	if err != nil {
		return PrivateKey{}, fmt.Errorf("%w: %v", ErrMalformedKey, err)
	}
	k := PrivateKey{ID: id, key: raw}
	copy(k.public[:], pub)
	return k, nil
}

// Seal seals plaintext to pub.
func Seal(pub PublicKey, plaintext []byte) (Sealed, error) {
	if pub.ID == "" {
		return Sealed{}, fmt.Errorf("%w: no key id", ErrMalformedKey)
	}
	out, err := box.SealAnonymous(nil, plaintext, &pub.key, rand.Reader)
	if err != nil {
		return Sealed{}, fmt.Errorf("seal: %w", err)
	}
	return Sealed{KeyID: pub.ID, Box: out}, nil
}

// Keyring holds the current private key and the retired ones still needed to open older boxes.
type Keyring struct {
	keys map[string]PrivateKey
}

// NewKeyring returns a keyring of keys; ids must be distinct.
func NewKeyring(keys ...PrivateKey) (*Keyring, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: no key", ErrMalformedKey)
	}
	kr := &Keyring{keys: make(map[string]PrivateKey, len(keys))}
	for _, k := range keys {
		if _, dup := kr.keys[k.ID]; dup {
			return nil, fmt.Errorf("%w: key id %q appears twice", ErrMalformedKey, k.ID)
		}
		kr.keys[k.ID] = k
	}
	return kr, nil
}

// ParseKeyring reads comma-separated private keys ("<id>:<base64>,<id>:<base64>").
func ParseKeyring(list []string) (*Keyring, error) {
	keys := make([]PrivateKey, 0, len(list))
	for i, s := range list {
		k, err := ParsePrivateKey(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("key %d: %w", i, err)
		}
		keys = append(keys, k)
	}
	return NewKeyring(keys...)
}

// Open opens s with the key it names. The plaintext is for use in memory only.
func (kr *Keyring) Open(s Sealed) ([]byte, error) {
	k, ok := kr.keys[s.KeyID]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownKey, s.KeyID)
	}
	out, ok := box.OpenAnonymous(nil, s.Box, &k.public, &k.key)
	if !ok {
		return nil, ErrOpen
	}
	return out, nil
}

func encode(id string, key [32]byte) string {
	return id + ":" + base64.StdEncoding.EncodeToString(key[:])
}

func decode(s string) (string, [32]byte, error) {
	var raw [32]byte
	id, b64, ok := strings.Cut(s, ":")
	if !ok {
		return "", raw, fmt.Errorf("%w: want <key id>:<base64>", ErrMalformedKey)
	}
	if err := validID(id); err != nil {
		return "", raw, err
	}
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(b) != len(raw) {
		return "", raw, fmt.Errorf("%w: want 32 bytes of base64", ErrMalformedKey)
	}
	copy(raw[:], b)
	return id, raw, nil
}

func validID(id string) error {
	if id == "" || len(id) > 64 || strings.ContainsAny(id, ":, \t\r\n") {
		return fmt.Errorf("%w: key id must be 1–64 characters without ':', ',' or spaces", ErrMalformedKey)
	}
	return nil
}
