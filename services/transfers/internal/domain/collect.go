package domain

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Cash collection at an ATM (DECISIONS.md, "Transfers and cash collection"): the recipient
// types the voucher number, the PIN and their phone number at an ATM of the transfer's bank.
//
// A wrong voucher number, a wrong phone number and a wrong PIN all give the same answer
// (ErrVoucherCredentials), so that the ATM cannot be used to learn which vouchers exist or
// whose phone number goes with one. Each wrong phone number or PIN typed for an existing
// voucher counts against it: the MaxCollectAttempts-th locks it for CollectLockout, during
// which even the right PIN is refused. Four digits are 10 000 PINs, so five guesses a day
// give a thief about one chance in 2 000 per day, over the voucher's 7 days.
const (
	// MaxCollectAttempts is how many wrong attempts lock a voucher.
	MaxCollectAttempts = 5
	// CollectLockout is how long a voucher stays locked after them.
	CollectLockout = 24 * time.Hour
	// MaxATMIDLength bounds the ATM id recorded with a collection, in characters.
	MaxATMIDLength = 64
)

// Collection errors; the ports layer maps each to a status code once.
var (
	// ErrVoucherCredentials: the voucher number, the PIN or the phone number is wrong; which
	// one is never told.
	ErrVoucherCredentials = errors.New("voucher number, PIN or phone number incorrect")
	// ErrVoucherCollected: the cash was already withdrawn.
	ErrVoucherCollected = errors.New("voucher already collected")
	// ErrVoucherCancelled: the sender cancelled the voucher.
	ErrVoucherCancelled = errors.New("voucher cancelled")
	// ErrVoucherExpired: the voucher is past its expiry (whether or not the worker has marked
	// it expired yet).
	ErrVoucherExpired = errors.New("voucher expired")
)

// VoucherLockedError: too many wrong attempts; the voucher cannot be collected before Until.
type VoucherLockedError struct{ Until time.Time }

func (e *VoucherLockedError) Error() string {
	return "voucher locked after too many incorrect attempts until " + e.Until.UTC().Format(time.RFC3339)
}

// WrongBankError: the voucher is withdrawn at Bank's ATMs only.
type WrongBankError struct{ Bank Bank }

func (e *WrongBankError) Error() string { return "voucher is collected at " + string(e.Bank) + " ATMs" }

// CollectInput is what the ATM gateway sends, as typed at the ATM.
type CollectInput struct {
	VoucherNumber  string
	PIN            string
	RecipientPhone string
	Bank           Bank
	ATMID          string
}

// CollectRequest is a collection request whose form is valid. The voucher number may still be
// malformed (ValidNumber false): that is a wrong number, answered like any other.
type CollectRequest struct {
	number string
	pin    string
	phone  Phone
	// phoneOK is false when the typed phone number is not a South African mobile number: it
	// then matches no recipient, which is a wrong phone number, not a malformed request.
	phoneOK bool
	bank    Bank
	atmID   string
}

// NewCollectRequest checks what the ATM gateway itself is responsible for (a known bank, an
// ATM id), as InvalidArgument-style violations. The credentials are not judged here: a
// malformed voucher number, PIN or phone number is simply a wrong one.
func NewCollectRequest(in CollectInput) (CollectRequest, error) {
	var verr ValidationError
	if !in.Bank.Known() {
		verr.add("bank", "Please give the bank of the ATM.")
	}
	atm := strings.TrimSpace(in.ATMID)
	switch {
	case atm == "":
		verr.add("atm_id", "Please give the ATM's id.")
	case !utf8.ValidString(atm) || utf8.RuneCountInString(atm) > MaxATMIDLength ||
		strings.ContainsFunc(atm, func(r rune) bool { return !unicode.IsPrint(r) }):
		verr.add("atm_id", fmt.Sprintf("The ATM's id must be at most %d printable characters.", MaxATMIDLength))
	}
	if err := verr.orNil(); err != nil {
		return CollectRequest{}, err
	}
	phone, ok := ParsePhone(in.RecipientPhone)
	return CollectRequest{
		number: strings.TrimSpace(in.VoucherNumber), pin: strings.TrimSpace(in.PIN),
		phone: phone, phoneOK: ok, bank: in.Bank, atmID: atm,
	}, nil
}

// VoucherNumber is the voucher number typed.
func (r CollectRequest) VoucherNumber() string { return r.number }

// ValidNumber reports whether the voucher number typed has the form of one; no voucher has
// another, so a malformed one need not be looked up.
func (r CollectRequest) ValidNumber() bool {
	if len(r.number) != VoucherNumberDigits {
		return false
	}
	for _, c := range r.number {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Locked reports whether the voucher is locked at now.
func (v Voucher) Locked(now time.Time) bool { return now.Before(v.LockedUntil) }

// Collect withdraws the voucher's cash with req at now, in this order:
//
//  1. a voucher locked by wrong attempts is refused (*VoucherLockedError), even with the
//     right PIN; a lock that has passed starts a fresh count;
//  2. the phone number and the PIN must both be right (the PIN compared in constant time by
//     pins); if not, the attempt is counted (the fifth locks the voucher) and the answer is
//     ErrVoucherCredentials. The credentials come before the voucher's state and bank, so
//     that only someone who knows them learns either;
//  3. the voucher must still await collection and not be past its expiry
//     (ErrVoucherCollected, ErrVoucherCancelled, ErrVoucherExpired);
//  4. the ATM must be of the transfer's bank (*WrongBankError);
//  5. the voucher is collected at now by req's ATM, with a VoucherChanged event.
//
// A counted attempt changes the transfer even though Collect returns an error: the caller
// stores it (Voucher differs from before) and then reports the error.
func (t *Transfer) Collect(req CollectRequest, pins *PINHasher, now time.Time) error {
	if pins == nil {
		return errors.New("domain: Collect needs a PIN hasher")
	}
	v := &t.s.Voucher
	if t.s.Status != StatusCompleted || v.Status == "" {
		return ErrVoucherCredentials // no voucher: nothing to guess against
	}
	if v.Locked(now) {
		return &VoucherLockedError{Until: v.LockedUntil}
	}
	if !v.LockedUntil.IsZero() {
		v.FailedAttempts, v.LockedUntil = 0, time.Time{}
	}
	// Both are always checked, so that a wrong phone costs the same time as a wrong PIN.
	phoneOK := req.phoneOK && subtle.ConstantTimeCompare([]byte(req.phone.E164()), []byte(t.s.RecipientPhone.E164())) == 1
	pinOK := pins.Verify(v.PINHash, t.s.ID, req.pin)
	if !phoneOK || !pinOK {
		v.FailedAttempts++
		if v.FailedAttempts >= MaxCollectAttempts {
			v.LockedUntil = now.Add(CollectLockout)
		}
		t.s.UpdatedAt = now
		return ErrVoucherCredentials
	}
	switch {
	case v.Status == CollectionCollected:
		return ErrVoucherCollected
	case v.Status == CollectionCancelled:
		return ErrVoucherCancelled
	case v.Status == CollectionExpired || !now.Before(v.ExpiresAt):
		return ErrVoucherExpired
	case req.bank != t.s.Bank:
		return &WrongBankError{Bank: t.s.Bank}
	}
	if err := t.MarkCollected(now); err != nil {
		return err
	}
	v.CollectedATM = req.atmID
	return nil
}

// dummyTransfer stands in for a voucher that does not exist (VerifyNothing).
var dummyTransfer = uuid.MustParse("00000000-0000-4000-8000-000000000000")

// VerifyNothing spends a PIN verification on nothing: called for an unknown voucher number,
// so that its answer takes about as long as a wrong PIN's.
func (h *PINHasher) VerifyNothing(pin string) {
	_ = h.Verify(h.Hash(dummyTransfer, "0000"), dummyTransfer, pin)
}
