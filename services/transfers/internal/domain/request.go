package domain

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/thumela/thumela/services/platform/personname"
)

// Field limits of a transfer request.
const (
	MaxRecipientName   = personname.MaxLen
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

// What the sender reads for a withdrawal location with a character a reader cannot see (a
// control, a bidirectional override, a zero-width space), with a web address or with a phone
// number.
const (
	MsgLocationCharacters  = "The withdrawal location contains a character that is not allowed."
	MsgLocationWebAddress  = "The withdrawal location can't include a web address."
	MsgLocationPhoneNumber = "The withdrawal location can't include a phone number."
)

// phoneNumber finds a phone number in a withdrawal location: seven or more digits, however
// grouped ("087 575 9404", "0800-123-456", "(011) 555 0100"). A link can name the location, and
// the wizard shows it as Thumela's own words, so "FNB fraud line 087 575 9404" would be a lure
// just as an address is. A place's own numbers are shorter: "Shop 12", "Unit 4.12", "Gate 3".
// The web client checks the same pattern (web/src/features/transfers/api/send-money.ts).
var phoneNumber = regexp.MustCompile(`\d(?:[ \-().]*\d){6,}`)

// NoteCents is the smallest note ATMs pay out, R10: every amount sent is a multiple of it.
const NoteCents = 1_000

// MsgAmountNotes is what the sender reads for an amount ATMs cannot pay out.
const MsgAmountNotes = "ATMs pay out notes: choose an amount in multiples of R10."

// RequestInput is a create-transfer request as received.
type RequestInput struct {
	IdempotencyKey  string
	RecipientName   string
	RecipientPhone  string
	Bank            Bank
	AmountCents     int64
	PaymentMethodID string
	Location        Location
	// SenderPIN is the PIN the sender chose to give the recipient themselves; "" for a PIN
	// drawn at random and sent in the recipient's SMS.
	SenderPIN string
	// RecipientKnownConfirmed: the sender ticked "Do you know {name} personally?" (needed on a
	// first payment to a phone, see CheckRecipientKnown).
	RecipientKnownConfirmed bool
	// DoNotSaveRecipient: the sender unticked 'Save {name} for next time'.
	DoNotSaveRecipient bool
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
	// senderPIN is the sender's PIN in clear: it lives in this value only, until KeyedBy has
	// MACed it for the idempotency hash and NewTransfer for the voucher.
	senderPIN string
	// pins keys the sender's PIN (set by KeyedBy); pinDigests are the PIN's keyed digests for
	// the idempotency hash, under the current key first and then each retired one.
	pins       *PINHasher
	pinDigests [][]byte
	// recipientKnownConfirmed is the sender's answer to the first-payment question. It is not
	// part of the idempotency hash: it is the sender's statement about the recipient, not what
	// the transfer is, so a retry that repeats or omits it still replays the first transfer.
	recipientKnownConfirmed bool
	// saveRecipient: the recipient is saved once the transfer completes. Like the answer
	// above, not part of the idempotency hash: it is about the sender's address book, not the
	// money, so a retry that differs only in it replays the first transfer.
	saveRecipient bool
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
	// The one rule for a person's name (platform/personname): the name is shown to the
	// recipient and the bank, so no control, format or bidirectional-override characters, and
	// no web address.
	name, problem := personname.Parse(in.RecipientName)
	switch problem {
	case personname.OK:
	case personname.Empty:
		verr.add("recipient_name", "Please enter the recipient's name.")
	case personname.TooLong:
		verr.add("recipient_name", fmt.Sprintf("The recipient's name must be at most %d characters.", MaxRecipientName))
	case personname.NoLetter:
		verr.add("recipient_name", "The recipient's name must include at least one letter.")
	case personname.WebAddress:
		verr.add("recipient_name", personname.MsgWebAddress)
	default:
		// Characters, and any problem the rule learns later: refused, never an empty name let by.
		verr.add("recipient_name", personname.MsgCharacters)
	}
	phone, ok := ParsePhone(in.RecipientPhone)
	if !ok {
		verr.add("recipient_phone", "Please enter a valid South African mobile number.")
	}
	if !in.Bank.Known() {
		verr.add("bank", MsgChooseBank)
	}
	switch {
	case in.AmountCents <= 0:
		verr.add("amount_cents", "Please enter a valid amount greater than zero.")
	case in.AmountCents%NoteCents != 0:
		verr.add("amount_cents", MsgAmountNotes)
	}
	pm := strings.TrimSpace(in.PaymentMethodID)
	switch {
	case pm == "":
		verr.add("payment_method_id", "Please select a card to continue.")
	case len(pm) > MaxPaymentMethodID || !printable(pm):
		verr.add("payment_method_id", MsgPaymentMethodNotFound)
	}
	// The location is the sender's text or a link's, shown back as Thumela's own words (the
	// wizard, the transfer's details, statements): the names' rules for what a reader cannot see
	// and for web addresses (platform/personname), with the digits and punctuation a place's
	// name uses. Characters and addresses before length, as for a name.
	loc := Location{Name: strings.Join(strings.Fields(in.Location.Name), " "), Type: strings.TrimSpace(in.Location.Type)}
	switch {
	case loc.Name == "" && (loc.Type == "" || loc.Type == LocationDefault):
		loc = DefaultLocation
	case loc.Name == "":
		verr.add("withdrawal_location.name", "Please name the withdrawal location.")
	case !utf8.ValidString(loc.Name) || strings.ContainsFunc(loc.Name, personname.Hidden):
		verr.add("withdrawal_location.name", MsgLocationCharacters)
	case personname.HasWebAddress(loc.Name):
		verr.add("withdrawal_location.name", MsgLocationWebAddress)
	case phoneNumber.MatchString(loc.Name):
		verr.add("withdrawal_location.name", MsgLocationPhoneNumber)
	case utf8.RuneCountInString(loc.Name) > MaxLocationName:
		verr.add("withdrawal_location.name", fmt.Sprintf("The withdrawal location must be at most %d characters.", MaxLocationName))
	case loc.Type == "":
		loc.Type = LocationParam
	case loc.Type != LocationParam && loc.Type != LocationDefault:
		verr.add("withdrawal_location.type", "The withdrawal location type must be param or default.")
	}
	pin := strings.TrimSpace(in.SenderPIN)
	if pin != "" {
		if msg := weakPIN(pin); msg != "" {
			verr.add("sender_pin", msg)
		}
	}
	if err := verr.orNil(); err != nil {
		return Request{}, err
	}
	return Request{
		key: key, recipientName: name, recipientPhone: phone, bank: in.Bank,
		amount: Cents(in.AmountCents), paymentMethodID: pm, location: loc, senderPIN: pin,
		recipientKnownConfirmed: in.RecipientKnownConfirmed,
		saveRecipient:           !in.DoNotSaveRecipient,
	}, nil
}

// Messages for a PIN the sender chose that cannot be a voucher's PIN. Neither quotes the PIN.
const (
	MsgPINFormat = "The PIN must be exactly 4 digits."
	MsgPINWeak   = "Please choose a PIN that is harder to guess: not 4 equal digits and not a run such as 1234 or 4321."
)

// weakPIN says why pin cannot be a voucher's PIN ("" when it can): it must be 4 digits, not
// all equal (0000) and not a run up or down (0123…6789, 9876…3210), the guesses a thief with
// the recipient's phone would try first.
func weakPIN(pin string) string {
	if len(pin) != PINDigits || strings.Trim(pin, "0123456789") != "" {
		return MsgPINFormat
	}
	equal, up, down := true, true, true
	for i := 1; i < len(pin); i++ {
		d := int(pin[i]) - int(pin[i-1])
		equal = equal && d == 0
		up = up && d == 1
		down = down && d == -1
	}
	if equal || up || down {
		return MsgPINWeak
	}
	return ""
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

// RecipientKnownConfirmed reports whether the sender confirmed knowing the recipient.
func (r Request) RecipientKnownConfirmed() bool { return r.recipientKnownConfirmed }

// SaveRecipient reports whether the recipient is to be saved once the transfer completes.
func (r Request) SaveRecipient() bool { return r.saveRecipient }

// HasSenderPIN reports whether the sender chose the voucher's PIN.
func (r Request) HasSenderPIN() bool { return r.senderPIN != "" }

// KeyedBy returns r with the sender's PIN (if any) keyed by pins: its keyed digests join the
// idempotency hash, and NewTransfer MACs it for the voucher. A request with a sender PIN must
// be keyed before Hash, Hashes or NewTransfer.
func (r Request) KeyedBy(pins *PINHasher) Request {
	r.pins, r.pinDigests = pins, nil
	if r.senderPIN != "" && pins != nil {
		r.pinDigests = pins.requestDigests(r.senderPIN)
	}
	return r
}

// Hash is the SHA-256 of the request's canonical form: the normalised fields (not the raw
// input), length-prefixed in a fixed order, without the idempotency key. Two requests that
// mean the same transfer ("082 123 4567" and "+27821234567") hash alike; any change of
// recipient, bank, amount, card, location or sender PIN does not. The sender's PIN enters only
// as a keyed digest (PINHasher's current key), never in clear: a plain hash of 4 digits would
// give the PIN away to anyone holding the stored hash and trying 10 000 of them.
func (r Request) Hash() []byte {
	if r.senderPIN == "" {
		return r.hash(nil)
	}
	if len(r.pinDigests) == 0 {
		panic("domain: a request with a sender PIN must be KeyedBy a PIN hasher before it is hashed")
	}
	return r.hash(r.pinDigests[0]) // the current key's, without the retired keys' hashes
}

// Hashes are the request's hash under each PIN key the hasher holds, the current key's first
// (Hash): a retry whose first attempt was hashed before a key rotation still matches. Without
// a sender PIN there is one.
func (r Request) Hashes() [][]byte {
	if r.senderPIN == "" {
		return [][]byte{r.hash(nil)}
	}
	out := make([][]byte, len(r.pinDigests))
	out[0] = r.Hash() // panics, as Hash does, for a request not KeyedBy a hasher
	for i, d := range r.pinDigests[1:] {
		out[i+1] = r.hash(d)
	}
	return out
}

func (r Request) hash(pinDigest []byte) []byte {
	h := sha256.New()
	var n [8]byte
	fields := []string{
		"thumela.transfers.create.v1",
		r.recipientName, r.recipientPhone.E164(), string(r.bank), strconv.FormatInt(r.amount.Cents(), 10),
		r.paymentMethodID, r.location.Name, r.location.Type,
	}
	if pinDigest != nil {
		// Only when there is one, so that a request without a sender PIN hashes as before.
		fields = append(fields, "sender_pin", string(pinDigest))
	}
	for _, f := range fields {
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		h.Write(n[:])
		h.Write([]byte(f))
	}
	return h.Sum(nil)
}
