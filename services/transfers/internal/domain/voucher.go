package domain

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"math/big"
	"strings"
	"time"

	"golang.org/x/crypto/argon2"
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
// collection to exactly one end.
func (c CollectionStatus) CanBecome(to CollectionStatus) bool {
	switch c {
	case "":
		return to == CollectionAwaiting
	case CollectionAwaiting:
		return to == CollectionCollected || to == CollectionCancelled || to == CollectionExpired
	default:
		return false
	}
}

// Voucher is the recipient's cash voucher as stored: the PIN only as a hash.
type Voucher struct {
	Number      string
	PINHash     string
	Status      CollectionStatus
	ExpiresAt   time.Time
	CollectedAt time.Time
}

// IssuedVoucher is a new voucher with its PIN in clear, which exists only in memory and in
// the recipient's SMS.
type IssuedVoucher struct {
	Number    string
	PIN       string
	PINHash   string
	ExpiresAt time.Time
}

// NewVoucher draws a voucher number and a PIN from crypto/rand and hashes the PIN. The
// number's uniqueness is the database's to enforce (ErrVoucherNumberTaken: draw again).
func NewVoucher(now time.Time, ttl time.Duration) (IssuedVoucher, error) {
	number, err := randomDigits(VoucherNumberDigits)
	if err != nil {
		return IssuedVoucher{}, err
	}
	pin, err := randomDigits(PINDigits)
	if err != nil {
		return IssuedVoucher{}, err
	}
	hash, err := HashPIN(pin)
	if err != nil {
		return IssuedVoucher{}, err
	}
	return IssuedVoucher{Number: number, PIN: pin, PINHash: hash, ExpiresAt: now.Add(ttl)}, nil
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

// argon2id parameters (OWASP's minimum: 19 MiB, 2 passes, 1 lane).
const (
	pinMemoryKiB = 19 * 1024
	pinTime      = 2
	pinThreads   = 1
	pinKeyLen    = 32
	pinSaltLen   = 16
)

var b64 = base64.RawStdEncoding

// HashPIN hashes a PIN with argon2id and a random salt, in the PHC string format. A 4-digit
// PIN has only 10 000 values, so a stolen hash falls to brute force whatever the cost: the
// hash keeps PINs out of plain sight in the database and backups; the real protection is
// attempt limiting at collection (future work, with the ATM integration).
func HashPIN(pin string) (string, error) {
	salt := make([]byte, pinSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("pin salt: %w", err)
	}
	key := argon2.IDKey([]byte(pin), salt, pinTime, pinMemoryKiB, pinThreads, pinKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, pinMemoryKiB, pinTime, pinThreads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// VerifyPIN reports whether pin matches hash (from HashPIN), in constant time.
func VerifyPIN(hash, pin string) bool {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var version int
	var memory, passes uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &passes, &threads); err != nil {
		return false
	}
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil || len(want) == 0 {
		return false
	}
	got := argon2.IDKey([]byte(pin), salt, passes, memory, threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}
