// Package vault is the card vault's cryptography, app's Vault and Fingerprinter: envelope
// encryption of card numbers and keyed fingerprints, under keys from configuration. It is an
// adapter because the keys are an outside concern: in production an HSM or a KMS would hold the
// key-encryption keys and do the wrapping behind the same interface.
//
// Each card gets a fresh random 256-bit data key; the number is sealed under it with
// AES-256-GCM, and the data key is sealed ("wrapped") under a key-encryption key (KEK) that
// lives in configuration, never in the database. The stored record is (kek id, wrapped data
// key, ciphertext): a database dump alone decrypts nothing. The KEK's id is stored with the
// wrapped key so that KEKs can rotate: a Keyring holds the current KEK (used to wrap) and
// retired ones (still accepted to unwrap) and can re-wrap old records without touching their
// ciphertext.
//
// Both seals are bound to the card's token as GCM additional data, so a ciphertext or wrapped
// key copied onto another token does not open.
package vault

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/thumela/thumela/services/paymentmethods/internal/app"
)

// KeySize is the size of every AES key here: AES-256.
const KeySize = 32

// formatV1 is the first byte of every sealed blob: version 1 = nonce (12 bytes) || GCM output.
const formatV1 = 0x01

const nonceSize = 12

// Errors. None carries key or card material.
var (
	ErrKeySize    = errors.New("vault: a key-encryption key must be 32 bytes")
	ErrKeyFormat  = errors.New("vault: key is not valid base64")
	ErrUnknownKEK = errors.New("vault: record is wrapped under a key-encryption key that is not configured")
	ErrOpen       = errors.New("vault: record does not decrypt (wrong key or tampered data)")
)

// KEK is a key-encryption key with its id.
type KEK struct {
	id  string
	key []byte
}

// ID identifies the key in stored records: "kek_" and 12 hex digits of a key check value
// (HMAC-SHA256 of a fixed label under the key), so the id follows from the key itself, needs
// no separate configuration, and reveals nothing about it.
func (k KEK) ID() string { return k.id }

// NewKEK makes a KEK from 32 raw bytes (copied).
func NewKEK(raw []byte) (KEK, error) {
	if len(raw) != KeySize {
		return KEK{}, ErrKeySize
	}
	key := append([]byte(nil), raw...)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("thumela.paymentmethods.kek-id.v1"))
	return KEK{id: "kek_" + hex.EncodeToString(mac.Sum(nil)[:6]), key: key}, nil
}

// ParseKEK reads a base64 (standard or URL alphabet, padded or not) 32-byte key.
func ParseKEK(b64 string) (KEK, error) {
	raw, err := DecodeKey(b64)
	if err != nil {
		return KEK{}, err
	}
	return NewKEK(raw)
}

// DecodeKey decodes base64 in any of the common alphabets. The error never echoes the input.
func DecodeKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, ErrKeyFormat
}

// Keyring wraps new data keys under its current KEK and unwraps under any configured KEK.
type Keyring struct {
	current KEK
	byID    map[string]KEK
}

var (
	_ app.Vault         = (*Keyring)(nil)
	_ app.Fingerprinter = (*Fingerprinter)(nil)
)

// NewKeyring returns a keyring that wraps with current and also unwraps records of retired
// keys.
func NewKeyring(current KEK, retired ...KEK) *Keyring {
	k := &Keyring{current: current, byID: map[string]KEK{current.id: current}}
	for _, r := range retired {
		if _, dup := k.byID[r.id]; !dup {
			k.byID[r.id] = r
		}
	}
	return k
}

// CurrentID is the id of the KEK new records are wrapped with.
func (k *Keyring) CurrentID() string { return k.current.id }

func dataAAD(token string) []byte { return []byte("thumela.paymentmethods.card.v1|" + token) }

func wrapAAD(kekID, token string) []byte {
	return []byte("thumela.paymentmethods.dek.v1|" + kekID + "|" + token)
}

// Seal encrypts plaintext (the card number) for token under a fresh data key, wrapped with the
// current KEK.
func (k *Keyring) Seal(token string, plaintext []byte) (app.Sealed, error) {
	dek := make([]byte, KeySize)
	defer clear(dek)
	if _, err := rand.Read(dek); err != nil {
		return app.Sealed{}, fmt.Errorf("vault: data key: %w", err)
	}
	ct, err := seal(dek, plaintext, dataAAD(token))
	if err != nil {
		return app.Sealed{}, err
	}
	wrapped, err := seal(k.current.key, dek, wrapAAD(k.current.id, token))
	if err != nil {
		return app.Sealed{}, err
	}
	return app.Sealed{KEKID: k.current.id, WrappedKey: wrapped, Ciphertext: ct}, nil
}

// Open decrypts a record of token. The caller wipes the result after use.
func (k *Keyring) Open(token string, s app.Sealed) ([]byte, error) {
	dek, err := k.unwrap(token, s)
	if err != nil {
		return nil, err
	}
	defer clear(dek)
	return open(dek, s.Ciphertext, dataAAD(token))
}

// Rewrap re-wraps a record's data key under the current KEK when another KEK wrapped it; the
// ciphertext stays as it is. It reports whether anything changed.
func (k *Keyring) Rewrap(token string, s app.Sealed) (app.Sealed, bool, error) {
	if s.KEKID == k.current.id {
		return s, false, nil
	}
	dek, err := k.unwrap(token, s)
	if err != nil {
		return s, false, err
	}
	defer clear(dek)
	wrapped, err := seal(k.current.key, dek, wrapAAD(k.current.id, token))
	if err != nil {
		return s, false, err
	}
	return app.Sealed{KEKID: k.current.id, WrappedKey: wrapped, Ciphertext: s.Ciphertext}, true, nil
}

func (k *Keyring) unwrap(token string, s app.Sealed) ([]byte, error) {
	kek, ok := k.byID[s.KEKID]
	if !ok {
		return nil, ErrUnknownKEK
	}
	dek, err := open(kek.key, s.WrappedKey, wrapAAD(kek.id, token))
	if err != nil {
		return nil, err
	}
	if len(dek) != KeySize {
		clear(dek)
		return nil, ErrOpen
	}
	return dek, nil
}

func seal(key, plaintext, aad []byte) ([]byte, error) {
	gcm, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 1+nonceSize, 1+nonceSize+len(plaintext)+gcm.Overhead())
	out[0] = formatV1
	if _, err := rand.Read(out[1 : 1+nonceSize]); err != nil {
		return nil, fmt.Errorf("vault: nonce: %w", err)
	}
	return gcm.Seal(out, out[1:1+nonceSize], plaintext, aad), nil
}

func open(key, blob, aad []byte) ([]byte, error) {
	gcm, err := newGCM(key)
	if err != nil {
		return nil, err
	}
	if len(blob) < 1+nonceSize+gcm.Overhead() || blob[0] != formatV1 {
		return nil, ErrOpen
	}
	pt, err := gcm.Open(nil, blob[1:1+nonceSize], blob[1+nonceSize:], aad)
	if err != nil {
		return nil, ErrOpen
	}
	return pt, nil
}

func newGCM(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("vault: cipher: %w", err)
	}
	return cipher.NewGCM(block)
}

// MinFingerprintKeySize is the shortest accepted fingerprint key.
const MinFingerprintKeySize = 32

// Fingerprinter computes HMAC-SHA256(key, number): equal numbers give equal fingerprints, so a
// card saved twice is recognised, while a dump without the key cannot test guesses against
// them (a bare hash of a 16-digit number would fall to brute force).
type Fingerprinter struct{ key []byte }

// NewFingerprinter makes a Fingerprinter from a key of at least 32 bytes (copied).
func NewFingerprinter(key []byte) (*Fingerprinter, error) {
	if len(key) < MinFingerprintKeySize {
		return nil, fmt.Errorf("vault: a fingerprint key must be at least %d bytes", MinFingerprintKeySize)
	}
	return &Fingerprinter{key: append([]byte(nil), key...)}, nil
}

// Sum returns the fingerprint of number.
func (f *Fingerprinter) Sum(number []byte) []byte {
	mac := hmac.New(sha256.New, f.key)
	mac.Write(number)
	return mac.Sum(nil)
}

// NewToken returns a fresh opaque vault token: "tok_" and 24 random bytes in base64url
// (32 characters).
func (*Keyring) NewToken() (string, error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("vault: token: %w", err)
	}
	return "tok_" + base64.RawURLEncoding.EncodeToString(b[:]), nil
}
