package domain

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Voucher sizes.
const (
	VoucherNumberDigits = 10
	PINDigits           = 4
)

// DefaultVoucherTTL is how long a recipient has to collect the cash (DECISIONS.md: 7 days).
const DefaultVoucherTTL = 7 * 24 * time.Hour

// CollectionStatus is where a voucher stands, beside the transfer's status.
type CollectionStatus string

// Collection states; "" means no voucher yet.
const (
	CollectionAwaiting  CollectionStatus = "awaiting_collection"
	CollectionCollected CollectionStatus = "collected"
	CollectionCancelled CollectionStatus = "cancelled"
	CollectionExpired   CollectionStatus = "expired"
)

// CanBecome reports whether a voucher may move from c to to: issued once, then from awaiting
// collection to exactly one end, with one way back: collected → awaiting collection, which only
// Transfer.ReverseCollection takes (the ATM that collected it could not dispense the cash, and
// its network reversed that request). Cancelled and expired are ends for good: their refund is
// owed.
func (c CollectionStatus) CanBecome(to CollectionStatus) bool {
	switch c {
	case "":
		return to == CollectionAwaiting
	case CollectionAwaiting:
		return to == CollectionCollected || to == CollectionCancelled || to == CollectionExpired
	case CollectionCollected:
		return to == CollectionAwaiting
	default:
		return false
	}
}

// Voucher is the recipient's cash voucher as stored: the PIN only as a keyed MAC.
type Voucher struct {
	Number      string
	PINHash     string
	Status      CollectionStatus
	ExpiresAt   time.Time
	CollectedAt time.Time
	// FailedAttempts counts the wrong PINs or phone numbers typed at ATMs since the voucher
	// was issued or its last lock passed; the MaxCollectAttempts-th locks it until LockedUntil.
	FailedAttempts int
	LockedUntil    time.Time
	// CollectedATM is the id of the ATM that dispensed the cash (once collected).
	CollectedATM string
	// CollectedLocation is where that ATM is, as its network names it ("FNB ATM Sandton
	// City"); empty when the network gave none.
	CollectedLocation string
	// CollectedRRN is the retrieval reference of the ATM request that collected the voucher,
	// at the transfer's bank: a reversal of that request, and only of that one, undoes it.
	CollectedRRN string
	// PINChosenBySender: the sender chose the PIN and tells the recipient themselves; the SMS
	// carries only the voucher number.
	PINChosenBySender bool
	// Resends and PhoneChanges count the sender's re-issues (ResendVoucher,
	// ChangeRecipientPhone), each at most MaxVoucherResends / MaxPhoneChanges.
	Resends      int
	PhoneChanges int
	// ReminderSentAt is when the recipient's reminder SMS was asked for (once per voucher).
	ReminderSentAt time.Time
}

// Location is where the voucher was collected, as the sender reads it: the ATM's location as
// its network named it, else its bank and id ("Capitec ATM CPT-ATM-0042"); "" unless collected.
func (v Voucher) Location(bank Bank) string {
	switch {
	case v.Status != CollectionCollected:
		return ""
	case v.CollectedLocation != "":
		return v.CollectedLocation
	default:
		return strings.TrimSpace(bank.DisplayName() + " ATM " + v.CollectedATM)
	}
}

// Reissues counts the voucher's re-issues: each one's number names its SMS and event.
func (v Voucher) Reissues() int { return v.Resends + v.PhoneChanges }

// IssuedVoucher is a new voucher with its PIN in clear, which exists only in memory and in
// the recipient's SMS.
type IssuedVoucher struct {
	Number    string
	PIN       string
	PINHash   string
	ExpiresAt time.Time
}

// NewVoucher draws a voucher number and a PIN from crypto/rand for transfer transferID and
// MACs the PIN with pins' current key. The number's uniqueness is the database's to enforce
// (ErrVoucherNumberTaken: draw again).
func NewVoucher(pins *PINHasher, transferID uuid.UUID, now time.Time, ttl time.Duration) (IssuedVoucher, error) {
	if pins == nil {
		return IssuedVoucher{}, errors.New("domain: NewVoucher needs a PIN hasher")
	}
	number, err := randomDigits(VoucherNumberDigits)
	if err != nil {
		return IssuedVoucher{}, err
	}
	pin, err := randomDigits(PINDigits)
	if err != nil {
		return IssuedVoucher{}, err
	}
	return IssuedVoucher{Number: number, PIN: pin, PINHash: pins.Hash(transferID, pin), ExpiresAt: now.Add(ttl)}, nil
}

// randomDigits returns n uniformly random decimal digits.
func randomDigits(n int) (string, error) {
	limit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
	v, err := rand.Int(rand.Reader, limit)
	if err != nil {
		return "", fmt.Errorf("random digits: %w", err)
	}
	return fmt.Sprintf("%0*s", n, v.String()), nil
}

// PIN hashing.
//
// A 4-digit PIN has 10 000 values, so no hash makes a stolen one hard to reverse: a slow hash
// (argon2id, say) only multiplies 10 000 guesses by its cost, while costing the worker ~76 ms
// of CPU and 19 MiB per voucher. What protects a PIN is a secret the
// database does not hold and a limit on attempts at collection (with the ATM integration). So
// the PIN is stored as HMAC-SHA256 under a key from the service's configuration
// (TRANSFERS_PIN_KEY), over the transfer id and the PIN: a dump of the database without the
// key reveals nothing, and equal PINs of two vouchers give unrelated MACs. The stored string
// names the key ("hmac-sha256$<key id>$<base64 MAC>"), so that a key can be rotated with the
// old one kept for verifying the vouchers still outstanding (at most the voucher TTL).

// MinPINKeySize is the least length of a PIN key, in bytes (256 bits, HMAC-SHA256's output).
const MinPINKeySize = 32

// PIN key errors; they never carry the key.
var (
	// ErrPINKeyFormat: the key is not base64.
	ErrPINKeyFormat = errors.New("PIN key is not valid base64")
	// ErrPINKeySize: the key is shorter than MinPINKeySize.
	ErrPINKeySize = fmt.Errorf("PIN key must be at least %d bytes", MinPINKeySize)
)

// pinMACScheme prefixes every PIN MAC.
const pinMACScheme = "hmac-sha256"

// PINKey is a secret key for PIN MACs, with its id: derived from the key itself (an HMAC of a
// fixed label), so that it is the same in every replica without being configured, and reveals
// nothing of the key.
type PINKey struct {
	id  string
	key []byte
}

// NewPINKey makes a key from raw (copied), at least MinPINKeySize bytes.
func NewPINKey(raw []byte) (PINKey, error) {
	if len(raw) < MinPINKeySize {
		return PINKey{}, ErrPINKeySize
	}
	key := bytes.Clone(raw)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("thumela.transfers.pin-key-id.v1"))
	return PINKey{id: "pk" + hex.EncodeToString(mac.Sum(nil)[:6]), key: key}, nil
}

// ParsePINKey decodes a base64 key (standard or URL alphabet, padded or not), as configured.
func ParsePINKey(s string) (PINKey, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if raw, err := enc.DecodeString(s); err == nil {
			k, err := NewPINKey(raw)
			clear(raw)
			return k, err
		}
	}
	return PINKey{}, ErrPINKeyFormat
}

// ID is the key's id, as stored with each MAC.
func (k PINKey) ID() string { return k.id }

// PINHasher MACs PINs with its current key and verifies them with any of its keys.
type PINHasher struct {
	current PINKey
	keys    map[string]PINKey
}

// NewPINHasher returns a hasher that MACs with current and also verifies with retired keys.
func NewPINHasher(current PINKey, retired ...PINKey) *PINHasher {
	h := &PINHasher{current: current, keys: map[string]PINKey{current.id: current}}
	for _, k := range retired {
		if _, ok := h.keys[k.id]; !ok {
			h.keys[k.id] = k
		}
	}
	return h
}

// KeyID is the id of the key new MACs are made with.
func (h *PINHasher) KeyID() string { return h.current.id }

// requestDigests are the keyed digests of a PIN the sender chose, for the idempotency hash of
// the create request (Request.Hash): HMAC-SHA256 of a label and the PIN under each key, the
// current key's first. They cannot be bound to a transfer (a retry is judged before one is
// looked up), so they are deterministic per key; without the key they reveal nothing.
func (h *PINHasher) requestDigests(pin string) [][]byte {
	digest := func(k PINKey) []byte {
		mac := hmac.New(sha256.New, k.key)
		mac.Write([]byte("thumela.transfers.sender-pin.request.v1"))
		mac.Write([]byte{0})
		mac.Write([]byte(pin))
		return mac.Sum(nil)
	}
	out := [][]byte{digest(h.current)}
	for id, k := range h.keys {
		if id != h.current.id {
			out = append(out, digest(k))
		}
	}
	return out
}

// Hash returns the stored form of pin for transfer transferID:
// "hmac-sha256$<key id>$<base64 of HMAC-SHA256(key, transfer id ‖ 0x00 ‖ pin)>".
func (h *PINHasher) Hash(transferID uuid.UUID, pin string) string {
	return pinMACScheme + "$" + h.current.id + "$" + b64.EncodeToString(pinMAC(h.current, transferID, pin))
}

// pinMAC binds the MAC to the voucher's transfer: the same PIN on two vouchers never gives the
// same MAC, so stored MACs cannot be compared with each other. The id's text form has a fixed
// length, and the 0x00 keeps the encoding unambiguous all the same.
func pinMAC(k PINKey, transferID uuid.UUID, pin string) []byte {
	mac := hmac.New(sha256.New, k.key)
	mac.Write([]byte(transferID.String()))
	mac.Write([]byte{0})
	mac.Write([]byte(pin))
	return mac.Sum(nil)
}

// Verify reports whether pin is the PIN of the voucher of transfer transferID whose stored
// hash is hash, comparing in constant time. A MAC under a key the hasher does not hold, or in
// any other scheme, does not verify.
func (h *PINHasher) Verify(hash string, transferID uuid.UUID, pin string) bool {
	scheme, rest, ok := strings.Cut(hash, "$")
	if !ok || scheme != pinMACScheme {
		return false
	}
	kid, encoded, ok := strings.Cut(rest, "$")
	if !ok {
		return false
	}
	k, ok := h.keys[kid]
	if !ok {
		return false
	}
	want, err := b64.DecodeString(encoded)
	if err != nil {
		return false
	}
	return hmac.Equal(pinMAC(k, transferID, pin), want)
}

var b64 = base64.RawStdEncoding
