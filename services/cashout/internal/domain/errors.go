package domain

import (
	"errors"
	"fmt"
)

// Reason is why transfers refused a withdrawal.
type Reason int

// Refusal reasons (thumela.transfers.v1.CollectionRefused.Reason, plus NotPermitted for a
// refusal that names none).
const (
	ReasonUnspecified Reason = iota
	// ReasonWrongCredentials: the voucher number, PIN or phone number is wrong (one answer for
	// the three, so an ATM cannot be used to find which).
	ReasonWrongCredentials
	// ReasonLocked: too many wrong attempts; the voucher is locked for 24 hours.
	ReasonLocked
	ReasonExpired
	ReasonCancelled
	ReasonAlreadyCollected
	// ReasonWrongBank: the ATM is not of the bank the sender chose.
	ReasonWrongBank
	// ReasonWrongAmount: the amount typed is not the voucher's.
	ReasonWrongAmount
	// ReasonInvalidVoucher: not a voucher number at all.
	ReasonInvalidVoucher
	// ReasonReversed: a repeat of a request that was reversed; it never pays out again.
	ReasonReversed
	// ReasonNotPermitted: a refusal transfers gave no reason for (FailedPrecondition without a
	// detail).
	ReasonNotPermitted
	// ReasonReferenceReused: the switch sent another request under the (bank, RRN) of an earlier
	// one (AlreadyExists): its numbering's fault, not the gateway's; nothing is recorded.
	ReasonReferenceReused
)

//nolint:gosec // G101: reason names, not credentials
var reasonNames = map[Reason]string{
	ReasonWrongCredentials: "wrong_credentials",
	ReasonLocked:           "locked",
	ReasonExpired:          "expired",
	ReasonCancelled:        "cancelled",
	ReasonAlreadyCollected: "already_collected",
	ReasonWrongBank:        "wrong_bank",
	ReasonWrongAmount:      "wrong_amount",
	ReasonInvalidVoucher:   "invalid_voucher",
	ReasonReversed:         "reversed",
	ReasonNotPermitted:     "not_permitted",
	ReasonReferenceReused:  "reference_reused",
}

func (r Reason) String() string {
	if s, ok := reasonNames[r]; ok {
		return s
	}
	return "unspecified"
}

// RefusedError is a withdrawal transfers refused: the voucher stays as it was.
type RefusedError struct {
	Reason Reason
	// AttemptsLeft before the voucher locks, for ReasonWrongCredentials (0 when unknown).
	AttemptsLeft int
}

func (e *RefusedError) Error() string { return "withdrawal refused: " + e.Reason.String() }

// Refused returns a RefusedError for reason.
func Refused(reason Reason) error { return &RefusedError{Reason: reason} }

// FormatError is a request the gateway cannot read: a missing or malformed data element.
type FormatError struct {
	Field string // e.g. "DE 11 STAN"
}

func (e *FormatError) Error() string { return "format error: " + e.Field }

// Errors that start in the gateway itself or in reaching transfers.
var (
	// ErrPINBlock: DE 53 names no configured zone PIN key, or the PIN block does not decipher
	// under it (a key mismatch between the switch and the gateway, not a wrong PIN).
	ErrPINBlock = errors.New("PIN block cannot be deciphered")
	// ErrUnknownAcquirer: DE 32 names no bank this gateway pays out for.
	ErrUnknownAcquirer = errors.New("unknown acquiring institution")
	// ErrUnsupported: a request this gateway does not do (another processing code, MTI or
	// currency).
	ErrUnsupported = errors.New("unsupported transaction")
	// ErrCurrency: an amount in another currency than the rand.
	ErrCurrency = errors.New("amount not in rand")
	// ErrTransmissionTime: a withdrawal's transmission date and time (DE 7) is further from
	// the gateway's clock than the allowed skew: a replay of an old message, a request held
	// back in a queue long after its ATM gave up, or a switch whose clock is wrong. Refused
	// before transfers sees it, so it costs no attempt and collects nothing.
	ErrTransmissionTime = errors.New("transmission date and time out of range")
	// ErrIssuerUnavailable: transfers (or identity, for the service token) could not be
	// reached or did not answer in time. The outcome of a withdrawal is then unknown.
	ErrIssuerUnavailable = errors.New("issuer unavailable")
	// ErrReversalMismatch: a reversal names an approved withdrawal by its references but not
	// its ATM, amount or voucher number, or came more than a day after it; transfers reversed
	// nothing.
	ErrReversalMismatch = errors.New("reversal does not match the withdrawal it names")
)

// Unavailable wraps cause as ErrIssuerUnavailable.
func Unavailable(cause error) error { return fmt.Errorf("%w: %w", ErrIssuerUnavailable, cause) }
