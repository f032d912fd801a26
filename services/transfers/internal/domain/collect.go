package domain

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Cash collection at an ATM (DECISIONS.md, "Transfers and cash collection"): the recipient
// types the voucher number, the PIN, their phone number and the amount at an ATM of the
// transfer's bank.
//
// A wrong voucher number, a wrong phone number and a wrong PIN all give the same answer
// (*CredentialsError, ErrVoucherCredentials), so that the ATM cannot be used to learn which
// vouchers exist or whose phone number goes with one. Each wrong phone number or PIN typed for
// an existing voucher counts against it: the MaxCollectAttempts-th locks it for CollectLockout,
// and is itself answered with the lock (*VoucherLockedError), so that the person at the ATM
// learns it then, not at the next attempt; during the lock even the right PIN is refused. A
// well-formed number that no voucher has is counted and locked in the very same way
// (UnknownNumber), so that neither the attempts left nor the lock tells a guesser whether it
// exists. Four digits are 10 000 PINs, so five guesses a day give a thief about one chance in
// 2 000 per day, over the voucher's 7 days.
const (
	// MaxCollectAttempts is how many wrong attempts lock a voucher.
	MaxCollectAttempts = 5
	// CollectLockout is how long a voucher stays locked after them.
	CollectLockout = 24 * time.Hour
	// MaxATMIDLength bounds the ATM id recorded with a collection, in characters.
	MaxATMIDLength = 64
	// MaxATMLocationLength bounds the ATM's location recorded with a collection.
	MaxATMLocationLength = 64
	// MaxRRNLength is ISO 8583's DE 37 (retrieval reference number): 12 characters.
	MaxRRNLength = 12
	// MaxSTANLength is ISO 8583's DE 11 (system trace audit number): 6 digits.
	MaxSTANLength = 6
)

// Collection errors; the ports layer maps each to a status code and a CollectionRefused
// reason once.
var (
	// ErrVoucherCredentials: the voucher number, the PIN or the phone number is wrong; which
	// one is never told. *CredentialsError matches it and says how many attempts are left.
	ErrVoucherCredentials = errors.New("voucher number, PIN or phone number incorrect")
	// ErrVoucherCollected: the cash was already withdrawn.
	ErrVoucherCollected = errors.New("voucher already collected")
	// ErrVoucherCancelled: the sender cancelled the voucher.
	ErrVoucherCancelled = errors.New("voucher cancelled")
	// ErrVoucherExpired: the voucher is past its expiry (whether or not the worker has marked
	// it expired yet).
	ErrVoucherExpired = errors.New("voucher expired")
	// ErrInvalidVoucher: what was typed is not a voucher number at all (not 10 digits). It
	// tells a guesser nothing: they know what they typed.
	ErrInvalidVoucher = errors.New("not a voucher number")
	// ErrCollectionReversed: a repeat of an ATM request whose collection was reversed. That
	// request is over: it is never approved again (the ATM starts a new one).
	ErrCollectionReversed = errors.New("collection request was reversed")
	// ErrCollectionConflict: the ATM request's (bank, retrieval reference) was already used by
	// another request (another STAN, voucher number, amount or ATM). Not a refusal of the
	// voucher: the gateway's references are wrong, and nothing is recorded.
	ErrCollectionConflict = errors.New("retrieval reference already used by another request")
	// ErrNotCollectedByRequest: a reversal names a request that did not collect the voucher
	// (or whose collection was already reversed).
	ErrNotCollectedByRequest = errors.New("voucher not collected by this request")
	// ErrReversalMismatch: a reversal names an approved request by its references but
	// disagrees with it on the ATM, the amount or the voucher number, or comes later than
	// MaxReversalDelay after it. Nothing is reversed: a reversal re-opens a voucher, and the
	// references alone can be guessed by whoever sits on a switch link.
	ErrReversalMismatch = errors.New("reversal does not match the request it names")
)

// CredentialsError is ErrVoucherCredentials with the attempts left before the voucher (or the
// unknown number) locks; 0 when this attempt locked it.
type CredentialsError struct{ AttemptsLeft int }

func (e *CredentialsError) Error() string { return ErrVoucherCredentials.Error() }

// Is makes errors.Is(err, ErrVoucherCredentials) true.
func (e *CredentialsError) Is(target error) bool { return target == ErrVoucherCredentials }

// VoucherLockedError: too many wrong attempts; the voucher cannot be collected before Until.
type VoucherLockedError struct{ Until time.Time }

func (e *VoucherLockedError) Error() string {
	return "voucher locked after too many incorrect attempts until " + e.Until.UTC().Format(time.RFC3339)
}

// WrongBankError: the voucher is withdrawn at Bank's ATMs only.
type WrongBankError struct{ Bank Bank }

func (e *WrongBankError) Error() string { return "voucher is collected at " + string(e.Bank) + " ATMs" }

// WrongAmountError: the amount typed is not the voucher's, which is collected whole.
type WrongAmountError struct{ Amount Money }

func (e *WrongAmountError) Error() string {
	return "the voucher is collected whole: " + e.Amount.String()
}

// RefusalReason is why a collection was refused, as the contract's CollectionRefused names it
// (and as a collection request records it).
type RefusalReason string

// Refusal reasons.
const (
	RefusalWrongCredentials RefusalReason = "wrong_credentials" //nolint:gosec // G101: a refusal reason, not a credential
	RefusalLocked           RefusalReason = "locked"
	RefusalExpired          RefusalReason = "expired"
	RefusalCancelled        RefusalReason = "cancelled"
	RefusalAlreadyCollected RefusalReason = "already_collected"
	RefusalWrongBank        RefusalReason = "wrong_bank"
	RefusalWrongAmount      RefusalReason = "wrong_amount"
	RefusalInvalidVoucher   RefusalReason = "invalid_voucher"
	RefusalReversed         RefusalReason = "reversed"
)

// Refusal is a refused collection, as recorded with its request so that a repeat of the
// request gets the same answer.
type Refusal struct {
	Reason RefusalReason
	// AttemptsLeft: for RefusalWrongCredentials.
	AttemptsLeft int
	// LockedUntil: for RefusalLocked.
	LockedUntil time.Time
	// Bank: for RefusalWrongBank, the bank whose ATMs pay the voucher out.
	Bank Bank
	// Amount: for RefusalWrongAmount, the voucher's amount.
	Amount Money
}

// RefusalOf reports whether err refuses a collection, and which refusal it is. Other errors
// (the database, a bug) are not refusals: nothing of them is recorded.
func RefusalOf(err error) (Refusal, bool) {
	var (
		creds  *CredentialsError
		locked *VoucherLockedError
		bank   *WrongBankError
		amount *WrongAmountError
	)
	switch {
	case err == nil:
		return Refusal{}, false
	case errors.As(err, &creds):
		return Refusal{Reason: RefusalWrongCredentials, AttemptsLeft: creds.AttemptsLeft}, true
	case errors.Is(err, ErrVoucherCredentials):
		return Refusal{Reason: RefusalWrongCredentials}, true
	case errors.As(err, &locked):
		return Refusal{Reason: RefusalLocked, LockedUntil: locked.Until}, true
	case errors.As(err, &bank):
		return Refusal{Reason: RefusalWrongBank, Bank: bank.Bank}, true
	case errors.As(err, &amount):
		return Refusal{Reason: RefusalWrongAmount, Amount: amount.Amount}, true
	case errors.Is(err, ErrVoucherCollected):
		return Refusal{Reason: RefusalAlreadyCollected}, true
	case errors.Is(err, ErrVoucherCancelled):
		return Refusal{Reason: RefusalCancelled}, true
	case errors.Is(err, ErrVoucherExpired):
		return Refusal{Reason: RefusalExpired}, true
	case errors.Is(err, ErrInvalidVoucher):
		return Refusal{Reason: RefusalInvalidVoucher}, true
	case errors.Is(err, ErrCollectionReversed):
		return Refusal{Reason: RefusalReversed}, true
	}
	return Refusal{}, false
}

// Err is the error r stands for (RefusalOf(r.Err()) is r).
func (r Refusal) Err() error {
	switch r.Reason {
	case RefusalWrongCredentials:
		return &CredentialsError{AttemptsLeft: r.AttemptsLeft}
	case RefusalLocked:
		return &VoucherLockedError{Until: r.LockedUntil}
	case RefusalWrongBank:
		return &WrongBankError{Bank: r.Bank}
	case RefusalWrongAmount:
		return &WrongAmountError{Amount: r.Amount}
	case RefusalAlreadyCollected:
		return ErrVoucherCollected
	case RefusalCancelled:
		return ErrVoucherCancelled
	case RefusalExpired:
		return ErrVoucherExpired
	case RefusalInvalidVoucher:
		return ErrInvalidVoucher
	case RefusalReversed:
		return ErrCollectionReversed
	}
	return fmt.Errorf("domain: unknown refusal reason %q", r.Reason)
}

// CollectInput is what the ATM gateway sends, as typed at the ATM.
type CollectInput struct {
	VoucherNumber  string
	PIN            string
	RecipientPhone string
	Bank           Bank
	ATMID          string
	// AmountCents is the amount typed at the ATM.
	AmountCents int64
	// STAN and RRN are the switch's references of the request (ISO 8583 DE 11, DE 37); (Bank,
	// RRN) names the request, for its repeats and its reversal.
	STAN string
	RRN  string
	// ATMLocation is where the ATM is ("FNB ATM Sandton City"), for the sender; optional.
	ATMLocation string
}

// CollectRequest is a collection request whose form is valid. The voucher number may still be
// malformed (ValidNumber false): ErrInvalidVoucher.
type CollectRequest struct {
	number string
	pin    string
	phone  Phone
	// phoneOK is false when the typed phone number is not a South African mobile number: it
	// then matches no recipient, which is a wrong phone number, not a malformed request.
	phoneOK  bool
	bank     Bank
	atmID    string
	amount   Money
	stan     string
	rrn      string
	location string
}

// NewCollectRequest checks what the ATM gateway itself is responsible for (a known bank, an
// ATM id, the switch's references, a positive amount, a printable location), as
// InvalidArgument-style violations. The credentials are not judged here: a wrong PIN or phone
// number is simply a wrong one.
func NewCollectRequest(in CollectInput) (CollectRequest, error) {
	var verr ValidationError
	if !in.Bank.Known() {
		verr.add("bank", "Please give the bank of the ATM.")
	}
	atm := strings.TrimSpace(in.ATMID)
	switch {
	case atm == "":
		verr.add("atm_id", "Please give the ATM's id.")
	case !printableLine(atm, MaxATMIDLength):
		verr.add("atm_id", fmt.Sprintf("The ATM's id must be at most %d printable characters.", MaxATMIDLength))
	}
	if in.AmountCents <= 0 {
		verr.add("amount_cents", "Please give the amount typed at the ATM.")
	}
	stan := strings.TrimSpace(in.STAN)
	if stan == "" || len(stan) > MaxSTANLength || strings.Trim(stan, "0123456789") != "" {
		verr.add("system_trace_audit_number", fmt.Sprintf("The system trace audit number must be 1 to %d digits.", MaxSTANLength))
	}
	rrn := strings.TrimSpace(in.RRN)
	if !validRRN(rrn) {
		verr.add("retrieval_reference", fmt.Sprintf("The retrieval reference must be 1 to %d letters or digits.", MaxRRNLength))
	}
	location := strings.Join(strings.Fields(in.ATMLocation), " ")
	if location != "" && !printableLine(location, MaxATMLocationLength) {
		verr.add("atm_location", fmt.Sprintf("The ATM's location must be at most %d printable characters.", MaxATMLocationLength))
	}
	if err := verr.orNil(); err != nil {
		return CollectRequest{}, err
	}
	phone, ok := ParsePhone(in.RecipientPhone)
	return CollectRequest{
		number: strings.TrimSpace(in.VoucherNumber), pin: strings.TrimSpace(in.PIN),
		phone: phone, phoneOK: ok, bank: in.Bank, atmID: atm,
		amount: Cents(in.AmountCents), stan: stan, rrn: rrn, location: location,
	}, nil
}

func printableLine(s string, maxRunes int) bool {
	return utf8.ValidString(s) && utf8.RuneCountInString(s) <= maxRunes &&
		!strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) })
}

// validRRN: 1 to 12 ASCII letters or digits (ISO 8583 DE 37 is alphanumeric).
func validRRN(s string) bool {
	if s == "" || len(s) > MaxRRNLength {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}

// MaxReversalDelay is how long after a collection a reversal may still re-open its voucher. A
// switch repeats a reversal advice until it is acknowledged, through an outage of a link or of
// the gateway, so a reversal may rightly come hours late; one later than a day is for the
// dispute desk (docs/cashout.md), not for a message on a link.
const MaxReversalDelay = 24 * time.Hour

// ReversalKey names the ATM request a reversal undoes, and repeats what that request said: its
// ATM, the amount asked for and the voucher number.
type ReversalKey struct {
	Bank          Bank
	RRN           string
	STAN          string
	ATMID         string
	Amount        Money
	VoucherNumber string
}

// ReversalInput is a reversal as the ATM gateway reports it.
type ReversalInput struct {
	Bank                      Bank
	RRN, STAN, ATMID, Voucher string
	AmountCents               int64
}

// NewReversalKey checks a reversal's references like NewCollectRequest checks a request's, and
// that it repeats the request's ATM, amount and voucher number.
func NewReversalKey(in ReversalInput) (ReversalKey, error) {
	bank, rrn, stan := in.Bank, in.RRN, in.STAN
	var verr ValidationError
	if !bank.Known() {
		verr.add("bank", "Please give the bank of the ATM.")
	}
	atm := strings.TrimSpace(in.ATMID)
	if atm == "" || !printableLine(atm, MaxATMIDLength) {
		verr.add("atm_id", fmt.Sprintf("Please give the original request's ATM id (at most %d printable characters).", MaxATMIDLength))
	}
	if in.AmountCents <= 0 {
		verr.add("amount_cents", "Please give the original request's amount.")
	}
	number := strings.TrimSpace(in.Voucher)
	if number == "" {
		verr.add("voucher_number", "Please give the original request's voucher number.")
	}
	rrn, stan = strings.TrimSpace(rrn), strings.TrimSpace(stan)
	if !validRRN(rrn) {
		verr.add("retrieval_reference", fmt.Sprintf("The retrieval reference must be 1 to %d letters or digits.", MaxRRNLength))
	}
	if stan == "" || len(stan) > MaxSTANLength || strings.Trim(stan, "0123456789") != "" {
		verr.add("system_trace_audit_number", fmt.Sprintf("The system trace audit number must be 1 to %d digits.", MaxSTANLength))
	}
	if err := verr.orNil(); err != nil {
		return ReversalKey{}, err
	}
	return ReversalKey{Bank: bank, RRN: rrn, STAN: stan, ATMID: atm, Amount: Cents(in.AmountCents), VoucherNumber: number}, nil
}

// Matches reports whether the reversal repeats the approved request's ATM and amount (as
// stored with the request), and came within MaxReversalDelay of it.
func (k ReversalKey) Matches(atmID string, amount Money, approvedAt, now time.Time) bool {
	return k.ATMID == atmID && k.Amount == amount && now.Sub(approvedAt) <= MaxReversalDelay
}

// VoucherNumber is the voucher number typed.
func (r CollectRequest) VoucherNumber() string { return r.number }

// Bank is the bank of the ATM.
func (r CollectRequest) Bank() Bank { return r.bank }

// RRN and STAN are the request's references; (Bank, RRN) names it.
func (r CollectRequest) RRN() string  { return r.rrn }
func (r CollectRequest) STAN() string { return r.stan }

// ATMID and Location are the ATM's id and location as the network gave them.
func (r CollectRequest) ATMID() string    { return r.atmID }
func (r CollectRequest) Location() string { return r.location }

// Amount is the amount typed at the ATM.
func (r CollectRequest) Amount() Money { return r.amount }

// Digest tells a repeat of this request (an ATM switch's retry: the same message again) from
// another request that reuses its (bank, retrieval reference): SHA-256 of the STAN, the voucher
// number, the amount and the ATM id. Neither the PIN nor the phone enters it (a plain hash of
// a PIN is no secret), so a retry is recognised whatever it carries there, as it should be:
// the switch resends the same message.
func (r CollectRequest) Digest() []byte {
	h := sha256.New()
	var n [8]byte
	for _, f := range []string{"thumela.transfers.collect.v1", r.stan, r.number, strconv.FormatInt(r.amount.Cents(), 10), r.atmID} {
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		h.Write(n[:])
		h.Write([]byte(f))
	}
	return h.Sum(nil)
}

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

// admit refuses an attempt on a locked count (*VoucherLockedError) and starts a fresh count
// when a lock has passed.
func admit(failed *int, lockedUntil *time.Time, now time.Time) error {
	if now.Before(*lockedUntil) {
		return &VoucherLockedError{Until: *lockedUntil}
	}
	if !lockedUntil.IsZero() {
		*failed, *lockedUntil = 0, time.Time{}
	}
	return nil
}

// fail counts a wrong attempt and returns its answer: *CredentialsError with the attempts left,
// or for the MaxCollectAttempts-th, which locks, *VoucherLockedError.
func fail(failed *int, lockedUntil *time.Time, now time.Time) error {
	*failed++
	if *failed >= MaxCollectAttempts {
		*lockedUntil = now.Add(CollectLockout)
		return &VoucherLockedError{Until: *lockedUntil}
	}
	return &CredentialsError{AttemptsLeft: MaxCollectAttempts - *failed}
}

// Collect withdraws the voucher's cash with req at now, in this order:
//
//  1. a voucher locked by wrong attempts is refused (*VoucherLockedError), even with the
//     right PIN; a lock that has passed starts a fresh count;
//  2. the phone number and the PIN must both be right (the PIN compared in constant time by
//     pins); if not, the attempt is counted and the answer is *CredentialsError, or for the
//     fifth, which locks the voucher (with a VoucherLocked event for the sender),
//     *VoucherLockedError. The credentials come before everything else about the voucher, so
//     that only someone who knows them learns its state, its bank or its amount;
//  3. the voucher must still await collection and not be past its expiry
//     (ErrVoucherCollected, ErrVoucherCancelled, ErrVoucherExpired);
//  4. the ATM must be of the transfer's bank (*WrongBankError);
//  5. the amount typed must be the voucher's amount (*WrongAmountError): a voucher is collected
//     whole. Not counted as a wrong attempt: whoever typed it holds the credentials, and a typo
//     must not lock the recipient out;
//  6. the voucher is collected at now by req's ATM and request, with a VoucherCollected event.
//
// A counted attempt changes the transfer even though Collect returns an error: the caller
// stores it (Voucher differs from before) and then reports the error.
func (t *Transfer) Collect(req CollectRequest, pins *PINHasher, now time.Time) error {
	if pins == nil {
		return errors.New("domain: Collect needs a PIN hasher")
	}
	v := &t.s.Voucher
	if t.s.Status != StatusCompleted || v.Status == "" {
		return &CredentialsError{AttemptsLeft: MaxCollectAttempts - 1} // no voucher: unreachable by number
	}
	if err := admit(&v.FailedAttempts, &v.LockedUntil, now); err != nil {
		return err
	}
	// Both are always checked, so that a wrong phone costs the same time as a wrong PIN.
	phoneOK := req.phoneOK && subtle.ConstantTimeCompare([]byte(req.phone.E164()), []byte(t.s.RecipientPhone.E164())) == 1
	pinOK := pins.Verify(v.PINHash, t.s.ID, req.pin)
	if !phoneOK || !pinOK {
		t.s.UpdatedAt = now
		err := fail(&v.FailedAttempts, &v.LockedUntil, now)
		if v.Locked(now) { // this attempt locked it (admit let it through unlocked)
			t.events = append(t.events, VoucherLocked{At: now, Until: v.LockedUntil})
		}
		return err
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
	case req.amount != t.s.Amount:
		return &WrongAmountError{Amount: t.s.Amount}
	}
	return t.markCollected(now, req)
}

// UnknownNumber is the wrong-attempt count of a well-formed voucher number that no voucher has.
// It is counted and locked exactly as a voucher's, so that the answers to a guesser (attempts
// left, the lock and its end) are the same whether the number exists or not.
type UnknownNumber struct {
	FailedAttempts int
	LockedUntil    time.Time
}

// Attempt answers an attempt at now with the unknown number: *VoucherLockedError while it is
// locked, otherwise a counted attempt answered as Collect answers a wrong PIN.
func (u *UnknownNumber) Attempt(now time.Time) error {
	if err := admit(&u.FailedAttempts, &u.LockedUntil, now); err != nil {
		return err
	}
	return fail(&u.FailedAttempts, &u.LockedUntil, now)
}

// ReverseCollection undoes the collection made by the ATM request key names (at the transfer's
// bank), which the ATM could not complete: the voucher awaits collection again, without the
// collection's time, ATM and location, and a VoucherReversed event is recorded. Its wrong
// attempts are not reset (a reversal says nothing about them) and its expiry stays: a voucher
// reversed past it is expired by the worker as usual. A voucher not collected by that request
// is ErrNotCollectedByRequest, and a reversal naming another voucher number
// ErrReversalMismatch, each with nothing changed.
func (t *Transfer) ReverseCollection(key ReversalKey, now time.Time) error {
	v := &t.s.Voucher
	rrn := key.RRN
	if t.s.Status != StatusCompleted || v.Status != CollectionCollected || rrn == "" || v.CollectedRRN != rrn {
		return ErrNotCollectedByRequest
	}
	if subtle.ConstantTimeCompare([]byte(key.VoucherNumber), []byte(v.Number)) != 1 {
		return ErrReversalMismatch
	}
	if err := t.setCollection(CollectionAwaiting, now); err != nil {
		return err
	}
	v.CollectedAt, v.CollectedATM, v.CollectedLocation, v.CollectedRRN = time.Time{}, "", "", ""
	t.events = append(t.events, VoucherReversed{At: now, RRN: rrn})
	return nil
}

// dummyTransfer stands in for a voucher that does not exist (VerifyNothing).
var dummyTransfer = uuid.MustParse("00000000-0000-4000-8000-000000000000")

// VerifyNothing spends a PIN verification on nothing: called for an unknown voucher number,
// so that its answer takes about as long as a wrong PIN's.
func (h *PINHasher) VerifyNothing(pin string) {
	_ = h.Verify(h.Hash(dummyTransfer, "0000"), dummyTransfer, pin)
}
