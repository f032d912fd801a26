package domain

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Field limits of a transfer request.
const (
	MaxRecipientName   = 100
	MaxLocationName    = 100
	MaxIdempotencyKey  = 128
	MaxPaymentMethodID = 64
)

// Withdrawal location types (the wizard's): "param" when the location came from the link the
// sender followed, "default" otherwise.
const (
	LocationParam   = "param"
	LocationDefault = "default"
)

// DefaultLocation is where the recipient withdraws when the sender names no ATM.
var DefaultLocation = Location{Name: "Nearest ATM", Type: LocationDefault}

// Location is the withdrawal location the sender chose.
type Location struct {
	Name string
	Type string
}

// RequestInput is a create-transfer request as received.
type RequestInput struct {
	IdempotencyKey  string
	RecipientName   string
	RecipientPhone  string
	Bank            Bank
	AmountCents     int64
	PaymentMethodID string
	Location        Location
}

// Request is a validated, normalised create-transfer request.
type Request struct {
	key             string
	recipientName   string
	recipientPhone  Phone
	bank            Bank
	amount          Money
	paymentMethodID string
	location        Location
}

// NewRequest validates in and normalises it: names trimmed, the phone in E.164, the default
// withdrawal location filled in. Every invalid field is reported at once.
func NewRequest(in RequestInput) (Request, error) {
	var verr ValidationError
	key := strings.TrimSpace(in.IdempotencyKey)
	switch {
	case key == "":
		verr.add("idempotency_key", "An idempotency key is required.")
	case len(key) > MaxIdempotencyKey || !printable(key):
		verr.add("idempotency_key", "The idempotency key is not valid.")
	}
	name := strings.Join(strings.Fields(in.RecipientName), " ")
	switch {
	case name == "":
		verr.add("recipient_name", "Please enter the recipient's name.")
	case utf8.RuneCountInString(name) > MaxRecipientName:
		verr.add("recipient_name", "The recipient's name must be at most 100 characters.")
	case !printable(name):
		verr.add("recipient_name", "The recipient's name contains characters that are not allowed.")
	}
	phone, ok := ParsePhone(in.RecipientPhone)
	if !ok {
		verr.add("recipient_phone", "Please enter a valid South African mobile number.")
	}
	if !in.Bank.Known() {
		verr.add("bank", "Please choose the recipient's bank.")
	}
	if in.AmountCents <= 0 {
		verr.add("amount_cents", "Please enter a valid amount greater than zero.")
	}
	pm := strings.TrimSpace(in.PaymentMethodID)
	switch {
	case pm == "":
		verr.add("payment_method_id", "Please select a card to continue.")
	case len(pm) > MaxPaymentMethodID || !printable(pm):
		verr.add("payment_method_id", "payment method not found")
	}
	loc := Location{Name: strings.Join(strings.Fields(in.Location.Name), " "), Type: strings.TrimSpace(in.Location.Type)}
	switch {
	case loc.Name == "" && (loc.Type == "" || loc.Type == LocationDefault):
		loc = DefaultLocation
	case loc.Name == "":
		verr.add("withdrawal_location.name", "Please name the withdrawal location.")
	case utf8.RuneCountInString(loc.Name) > MaxLocationName || !printable(loc.Name):
		verr.add("withdrawal_location.name", "The withdrawal location must be at most 100 characters.")
	case loc.Type == "":
		loc.Type = LocationParam
	case loc.Type != LocationParam && loc.Type != LocationDefault:
		verr.add("withdrawal_location.type", "The withdrawal location type must be param or default.")
	}
	if err := verr.orNil(); err != nil {
		return Request{}, err
	}
	return Request{
		key: key, recipientName: name, recipientPhone: phone, bank: in.Bank,
		amount: Cents(in.AmountCents), paymentMethodID: pm, location: loc,
	}, nil
}

func printable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl)
}

// IdempotencyKey is the sender's key for this wizard run.
func (r Request) IdempotencyKey() string { return r.key }

// RecipientName is the trimmed name.
func (r Request) RecipientName() string { return r.recipientName }

// RecipientPhone is the recipient's mobile number.
func (r Request) RecipientPhone() Phone { return r.recipientPhone }

// Bank is the recipient's bank.
func (r Request) Bank() Bank { return r.bank }

// Amount is what the recipient withdraws.
func (r Request) Amount() Money { return r.amount }

// PaymentMethodID is the sender's card.
func (r Request) PaymentMethodID() string { return r.paymentMethodID }

// Location is the withdrawal location, defaulted.
func (r Request) Location() Location { return r.location }

// Hash is the SHA-256 of the request's canonical form: the normalised fields (not the raw
// input), length-prefixed in a fixed order, without the idempotency key. Two requests that
// mean the same transfer ("082 123 4567" and "+27821234567") hash alike; any change of
// recipient, bank, amount, card or location does not.
func (r Request) Hash() []byte {
	h := sha256.New()
	var n [8]byte
	for _, f := range []string{
		"thumela.transfers.create.v1",
		r.recipientName, r.recipientPhone.E164(), string(r.bank), strconv.FormatInt(r.amount.Cents(), 10),
		r.paymentMethodID, r.location.Name, r.location.Type,
	} {
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		h.Write(n[:])
		h.Write([]byte(f))
	}
	return h.Sum(nil)
}
