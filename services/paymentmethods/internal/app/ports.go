package app

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/paymentmethods/internal/domain"
)

// Card is what a processor needs to authorize or charge a card. It exists only on the
// processor call path: built from the vault just before the call, wiped right after.
type Card struct {
	Number domain.PAN
	Expiry domain.Expiry
	// CVV is set only for the first authorization at tokenization; it is never stored.
	CVV domain.CVV
	// Holder is the card's display name.
	Holder string
}

// Processor is a card processor. The sandbox (adapters/sandbox) is the default; a real
// processor plugs in behind the same interface. Every method is idempotent per key: the same
// key returns the first answer and never moves money twice. A declined card is an Outcome
// (Approved false), not an error; an error means the processor could not be asked or did not
// answer (the caller may retry with the same key).
type Processor interface {
	// Verify authorizes a zero amount to check the card and its CVV before it is saved.
	Verify(ctx context.Context, key string, card Card) (domain.Outcome, error)
	// Charge takes amount from the card.
	Charge(ctx context.Context, key string, card Card, amount domain.Money, description string) (domain.Outcome, error)
	// Refund returns amount of the charge the processor knows as chargeReference.
	Refund(ctx context.Context, key string, chargeReference string, amount domain.Money) (domain.Outcome, error)
	// Records reads the processor's own records of the charges and refunds it made under the
	// given idempotency keys (its API, not this service's tables), for reconciliation. A key
	// it never saw is absent; a refund it refused is not a record (nothing moved).
	Records(ctx context.Context, keys []string) ([]ProcessorRecord, error)
}

// ProcessorRecordKind tells a charge from a refund in the processor's records.
type ProcessorRecordKind string

// The kinds of processor records.
const (
	RecordCharge ProcessorRecordKind = "charge"
	RecordRefund ProcessorRecordKind = "refund"
)

// ProcessorRecord is one charge or refund as the processor recorded it.
type ProcessorRecord struct {
	IdempotencyKey string
	Kind           ProcessorRecordKind
	// ChargeID is the processor's id of the charge (for a refund, of the charge it refunds).
	ChargeID string
	// Status: approved or declined for a charge; a refund on record was made (approved).
	Status    domain.Status
	Amount    domain.Money
	CreatedAt time.Time
}

// Vault keeps card numbers sealed, each bound to the token that names its record, so that a
// sealed number copied onto another token does not open (adapters/vault: envelope encryption
// under key-encryption keys from configuration; an HSM or a KMS would sit behind the same
// methods). Nothing it returns or fails with carries key or card material.
type Vault interface {
	// NewToken returns a fresh opaque token for a new record.
	NewToken() (string, error)
	// Seal encrypts a card number for token under the current key-encryption key.
	Seal(token string, number []byte) (Sealed, error)
	// Open decrypts the record of token; the caller wipes the result after use.
	Open(token string, s Sealed) ([]byte, error)
	// CurrentID names the key-encryption key new records are sealed under.
	CurrentID() string
	// Rewrap moves a record under the current key-encryption key, leaving its ciphertext as it
	// is, and reports whether anything changed.
	Rewrap(token string, s Sealed) (Sealed, bool, error)
}

// Sealed is a card number as stored: which key-encryption key wrapped the data key, the
// wrapped data key, and the number sealed under the data key. Only the Vault opens it.
type Sealed struct {
	KEKID      string
	WrappedKey []byte
	Ciphertext []byte
}

// Fingerprinter computes a card number's keyed fingerprint, by which a card saved twice is
// recognised without storing the number in the clear.
type Fingerprinter interface {
	Sum(number []byte) []byte
}

// NewMethod is a tokenized card ready to be stored.
type NewMethod struct {
	ID          uuid.UUID
	UserID      uuid.UUID
	Name        string
	Brand       domain.Brand
	LastFour    string
	Expiry      domain.Expiry
	Token       string
	Fingerprint []byte
	Sealed      Sealed
	// WantDefault: the user asked for it; the first card becomes the default regardless.
	WantDefault bool
}

// NewCharge is a charge to record before the processor is called.
type NewCharge struct {
	IdempotencyKey string
	UserID         uuid.UUID
	Token          string
	Amount         domain.Money
	Description    string
}

// NewRefund is a refund to record before the processor is called.
type NewRefund struct {
	IdempotencyKey string
	ChargeID       uuid.UUID
	Amount         domain.Money
	Reason         string
}

// VaultRecord is a card's sealed number with what a processor needs besides it.
type VaultRecord struct {
	Token  string
	Name   string
	Expiry domain.Expiry
	Sealed Sealed
}

// Repository stores payment methods, the vault, charges and refunds. Every method that
// changes a user's payment methods serializes with that user's other changes and writes its
// PaymentMethodChanged events to the outbox in the same transaction.
type Repository interface {
	// List returns the user's methods, the default first, then newest first.
	List(ctx context.Context, userID uuid.UUID) ([]domain.PaymentMethod, error)
	// Get returns domain.ErrNotFound unless the method exists and is the user's.
	Get(ctx context.Context, userID, id uuid.UUID) (domain.PaymentMethod, error)
	// HasFingerprint reports whether the user saved a card with this fingerprint.
	HasFingerprint(ctx context.Context, userID uuid.UUID, fingerprint []byte) (bool, error)
	// Add stores the method and its vault record (domain.ErrAlreadySaved for a card the user
	// saved already, domain.ErrTooManyMethods past limit).
	Add(ctx context.Context, m NewMethod, limit int) (domain.PaymentMethod, error)
	// Update renames the method and makes it the default when makeDefault.
	Update(ctx context.Context, userID, id uuid.UUID, name string, makeDefault bool) (domain.PaymentMethod, error)
	// SetDefault makes the method the user's one default.
	SetDefault(ctx context.Context, userID, id uuid.UUID) (domain.PaymentMethod, error)
	// Delete removes the method and its vault record (domain.ErrInUse once used); a deleted
	// default hands the flag to the newest remaining method.
	Delete(ctx context.Context, userID, id uuid.UUID) error
	// MarkUsedByTransfer records that a transfer uses the method, so that it cannot be
	// deleted; it does nothing when the method is not the user's or no longer exists, or has a
	// use recorded already (the first is all Delete needs).
	MarkUsedByTransfer(ctx context.Context, userID, methodID uuid.UUID, transferID string) error

	// VaultRecord returns the sealed number of a method.
	VaultRecord(ctx context.Context, methodID uuid.UUID) (VaultRecord, error)
	// RewrapAll re-wraps every vault record not wrapped under currentKEK with rewrap and
	// returns how many changed.
	RewrapAll(ctx context.Context, currentKEK string, rewrap func(token string, s Sealed) (Sealed, error)) (int, error)

	// BeginCharge returns the charge of c's idempotency key, recording it as pending when it
	// is new: the method must be the user's (domain.ErrNotFound), and it is marked used in the
	// same transaction. A new charge comes back leased for lease; an existing one is returned
	// as it is (leased false), or domain.ErrIdempotencyConflict when it differs from c.
	BeginCharge(ctx context.Context, c NewCharge, lease time.Duration) (ch domain.Charge, leased bool, err error)
	// LeaseCharge takes the lease of a pending charge whose lease ran out; it returns the
	// charge as it is now and whether this caller holds the lease.
	LeaseCharge(ctx context.Context, id uuid.UUID, lease time.Duration) (domain.Charge, bool, error)
	// CompleteCharge records the processor's answer on a pending charge; a charge completed
	// meanwhile is returned as first recorded.
	CompleteCharge(ctx context.Context, id uuid.UUID, o domain.Outcome) (domain.Charge, error)
	// ReleaseCharge gives up the lease of a still-pending charge, so a retry may resume it.
	ReleaseCharge(ctx context.Context, id uuid.UUID) error

	// BeginRefund is BeginCharge for refunds: the charge must exist (domain.ErrNotFound), be
	// approved (domain.ErrNotRefundable), and its refunds may not exceed it
	// (domain.ErrRefundExceedsCharge).
	BeginRefund(ctx context.Context, r NewRefund, lease time.Duration) (domain.Refund, bool, error)
	LeaseRefund(ctx context.Context, id uuid.UUID, lease time.Duration) (domain.Refund, bool, error)
	CompleteRefund(ctx context.Context, id uuid.UUID, o domain.Outcome) (domain.Refund, error)
	ReleaseRefund(ctx context.Context, id uuid.UUID) error
}
