// Package domain holds saved payment methods and the rules a card must satisfy before it is
// tokenized: brand, length, Luhn check digit, expiry and CVV. Card numbers and CVVs travel in
// types (PAN, CVV) that never print, log or marshal their digits.
package domain

import (
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Brand is a card scheme Thumela accepts.
type Brand int

// Accepted brands.
const (
	BrandUnknown Brand = iota
	BrandVisa
	BrandMastercard
)

// String is the brand's stored name.
func (b Brand) String() string {
	switch b {
	case BrandVisa:
		return "visa"
	case BrandMastercard:
		return "mastercard"
	default:
		return "unknown"
	}
}

// ParseBrand reads a stored brand name.
func ParseBrand(s string) (Brand, error) {
	switch s {
	case "visa":
		return BrandVisa, nil
	case "mastercard":
		return BrandMastercard, nil
	default:
		return BrandUnknown, fmt.Errorf("unknown card brand %q", s)
	}
}

// CardNumberLength is the only length accepted: 16 digits, as the card form allows.
const CardNumberLength = 16

// BrandOf returns the brand of a 16-digit number by its leading digits: Visa starts with 4,
// Mastercard with 51-55 or 2221-2720. Anything else is BrandUnknown.
func BrandOf(digits string) Brand {
	if len(digits) < 4 || !allDigits(digits) {
		return BrandUnknown
	}
	if digits[0] == '4' {
		return BrandVisa
	}
	two := int(digits[0]-'0')*10 + int(digits[1]-'0')
	four := two*100 + int(digits[2]-'0')*10 + int(digits[3]-'0')
	switch {
	case two >= 51 && two <= 55:
		return BrandMastercard
	case four >= 2221 && four <= 2720:
		return BrandMastercard
	}
	return BrandUnknown
}

// Luhn reports whether digits (ASCII digits only, at least two) carry a valid Luhn check digit.
func Luhn(digits string) bool {
	if len(digits) < 2 || !allDigits(digits) {
		return false
	}
	sum := 0
	double := false
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// masked is how a card number shows wherever it is printed by accident.
const maskedPrefix = "•••• "

// PAN is a validated card number (primary account number). Its digits are reachable only
// through Reveal; fmt, log/slog, encoding/json and encoding/text see a masked form
// ("•••• 4242"), so passing a PAN to a logger or an error by mistake leaks nothing. Wipe
// overwrites the digits once they are no longer needed.
type PAN struct{ digits []byte }

// Reveal returns the digits. Callers are the vault (to encrypt) and a processor adapter (to
// send them to the processor); they must not keep, log or return them.
func (p PAN) Reveal() []byte { return p.digits }

// LastFour returns the last four digits, which may be shown.
func (p PAN) LastFour() string {
	if len(p.digits) < 4 {
		return ""
	}
	return string(p.digits[len(p.digits)-4:])
}

// Brand returns the card's scheme.
func (p PAN) Brand() Brand { return BrandOf(string(p.digits)) }

// IsZero reports whether p holds no number.
func (p PAN) IsZero() bool { return len(p.digits) == 0 }

// Wipe overwrites the digits in place.
func (p PAN) Wipe() { clear(p.digits) }

// String is the masked form.
func (p PAN) String() string { return maskedPrefix + p.LastFour() }

// GoString is the masked form, for %#v.
func (p PAN) GoString() string { return "domain.PAN(" + p.String() + ")" }

// Format prints the masked form for every verb.
func (p PAN) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(p.String())) }

// LogValue is the masked form.
func (p PAN) LogValue() slog.Value { return slog.StringValue(p.String()) }

// MarshalText is the masked form (so JSON shows it masked too).
func (p PAN) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// PANFromDigits wraps digits that were validated before (the vault's decrypted plaintext).
// It takes ownership of the slice.
func PANFromDigits(digits []byte) PAN { return PAN{digits: digits} }

// CVV is a card's 3-digit security code. It exists only for the first authorization at
// tokenization and is never stored; like PAN it never prints.
type CVV struct{ digits []byte }

// Reveal returns the digits, for the processor adapter only.
func (c CVV) Reveal() []byte { return c.digits }

// IsZero reports whether no CVV is held (every use but the first authorization).
func (c CVV) IsZero() bool { return len(c.digits) == 0 }

// Wipe overwrites the digits.
func (c CVV) Wipe() { clear(c.digits) }

// String is masked.
func (c CVV) String() string { return "***" }

// GoString is masked.
func (c CVV) GoString() string { return "domain.CVV(***)" }

// Format prints "***" for every verb.
func (c CVV) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte("***")) }

// LogValue is masked.
func (c CVV) LogValue() slog.Value { return slog.StringValue("***") }

// MarshalText is masked.
func (c CVV) MarshalText() ([]byte, error) { return []byte("***"), nil }

// Expiry is a card's expiry month and four-digit year. A card is valid through the last
// moment of its expiry month, South African time.
type Expiry struct {
	Month int // 1-12
	Year  int // four digits
}

// String is MM/YYYY.
func (e Expiry) String() string { return fmt.Sprintf("%02d/%04d", e.Month, e.Year) }

// Expired reports whether the end of the expiry month (Africa/Johannesburg) is before now.
func (e Expiry) Expired(now time.Time) bool {
	local := now.In(SouthAfrica)
	y, m := local.Year(), int(local.Month())
	return e.Year < y || (e.Year == y && e.Month < m)
}

// SouthAfrica is Africa/Johannesburg: UTC+2 all year (no daylight saving), so a fixed zone is
// used when the system has no time zone database.
var SouthAfrica = func() *time.Location {
	if loc, err := time.LoadLocation("Africa/Johannesburg"); err == nil {
		return loc
	}
	return time.FixedZone("SAST", 2*60*60)
}()

// MaxExpiryYearsAhead bounds how far in the future an expiry may be; cards are issued for a
// few years, and a year further out is a typing mistake.
const MaxExpiryYearsAhead = 20

// Field names, as in the API's request messages, so violations map onto form fields.
const (
	FieldName        = "name"
	FieldCardNumber  = "card_number"
	FieldExpiryMonth = "expiry_month"
	FieldExpiryYear  = "expiry_year"
	FieldCVV         = "cvv"
	FieldAmount      = "amount_cents"
	FieldToken       = "token"
	FieldIdempotency = "idempotency_key"
	FieldDescription = "description"
	FieldReason      = "reason"
)

// User-facing messages.
const (
	MsgNameRequired       = "Card name is required"
	MsgNameTooLong        = "Card name must be at most 50 characters"
	MsgNameHasCardNumber  = "Card name must not contain a card number"
	MsgNameCharacters     = "Card name contains a character that is not allowed."
	MsgNumberRequired     = "Card number is required"
	MsgNumberLength       = "Card number must be 16 digits"
	MsgNumberBrand        = "Only Visa and Mastercard cards are accepted"
	MsgNumberInvalid      = "Card number is invalid. Please check it and try again."
	MsgExpiryMonthInvalid = "Expiry month must be between 01 and 12"
	MsgExpiryYearInvalid  = "Expiry year is invalid"
	MsgExpired            = "This card has expired."
	MsgCVVRequired        = "CVV is required"
	MsgCVVInvalid         = "CVV must be 3 digits"
)

// MaxNameLength is the longest card name, in characters.
const MaxNameLength = 50

// ParseName trims and checks a card's display name: required, at most MaxNameLength
// characters, no invisible or control characters, and not holding a card number (a name is
// stored in clear).
func ParseName(name string) (string, *FieldViolation) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", &FieldViolation{Field: FieldName, Message: MsgNameRequired}
	case !utf8.ValidString(name) || utf8.RuneCountInString(name) > MaxNameLength:
		return "", &FieldViolation{Field: FieldName, Message: MsgNameTooLong}
	case strings.IndexFunc(name, hiddenRune) >= 0:
		return "", &FieldViolation{Field: FieldName, Message: MsgNameCharacters}
	case ContainsCardNumber(name):
		return "", &FieldViolation{Field: FieldName, Message: MsgNameHasCardNumber}
	}
	return name, nil
}

// hiddenRune reports a character a card name may not hold: controls (NUL, which PostgreSQL
// refuses in text, ESC, new lines), format characters (the bidirectional overrides such as
// U+202E that show a name reversed, zero-width spaces, which also hid a card number's digits
// from ContainsCardNumber), line and paragraph separators, private-use and surrogate code
// points. The name is shown in lists, the transfer wizard, receipts and statements. The
// zero-width joiner alone is let through: it joins emoji ("👩‍👧") and shows nothing by itself.
func hiddenRune(r rune) bool {
	return r != zeroWidthJoiner && unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs, unicode.Zl, unicode.Zp)
}

const zeroWidthJoiner = '\u200d'

// ContainsCardNumber reports whether s holds 13 or more digits in a row (of any script's
// decimal digits), ignoring what people or a paste put between groups: white space (the
// no-break space too), punctuation ("4242.4242…", "4242/4242…", dashes) and invisible format
// characters. Free text with that many digits may be a card number, and free text is stored and
// shown in clear.
func ContainsCardNumber(s string) bool {
	run := 0
	for _, r := range s {
		switch {
		case unicode.IsDigit(r):
			run++
			if run >= 13 {
				return true
			}
		case unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.Is(unicode.Cf, r):
		default:
			run = 0
		}
	}
	return false
}

// NewCard is a card that passed validation and may be tokenized.
type NewCard struct {
	name      string
	number    PAN
	expiry    Expiry
	cvv       CVV
	isDefault bool
}

// Name is the trimmed display name.
func (c NewCard) Name() string { return c.name }

// Number is the card number.
func (c NewCard) Number() PAN { return c.number }

// Expiry is the expiry month and four-digit year.
func (c NewCard) Expiry() Expiry { return c.expiry }

// CVV is the security code, for the first authorization only.
func (c NewCard) CVV() CVV { return c.cvv }

// IsDefault says whether the user asked for this card to become the default.
func (c NewCard) IsDefault() bool { return c.isDefault }

// String describes the card without its number or CVV. NewCard's fields are unexported, and
// fmt prints unexported fields raw (it cannot call their methods), so NewCard masks itself.
func (c NewCard) String() string {
	return fmt.Sprintf("card %q %s exp %s", c.name, c.number.String(), c.expiry.String())
}

// GoString is String, for %#v.
func (c NewCard) GoString() string { return c.String() }

// Format prints String for every verb.
func (c NewCard) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(c.String())) }

// LogValue shows the card masked.
func (c NewCard) LogValue() slog.Value {
	return slog.GroupValue(slog.String("name", c.name), slog.String("number", c.number.String()),
		slog.String("expiry", c.expiry.String()))
}

// Wipe overwrites the number and the CVV once the card is tokenized (or refused).
func (c NewCard) Wipe() {
	c.number.Wipe()
	c.cvv.Wipe()
}

// CardInput is a card as the request carries it.
type CardInput struct {
	Name        string
	Number      string // digits; spaces are stripped
	ExpiryMonth int32
	ExpiryYear  int32 // two or four digits
	CVV         string
	IsDefault   bool
}

// ValidateCard checks a card form against the rules Thumela accepts: a name, a 16-digit
// Luhn-valid Visa or Mastercard number, an expiry month 01-12 and a year (two or four digits)
// whose month has not ended in South Africa at now, and a 3-digit CVV. Every violation is
// reported, one per field, in the form's order. Violation messages never contain the number.
func ValidateCard(in CardInput, now time.Time) (NewCard, error) {
	var violations Violations
	name, v := ParseName(in.Name)
	violations.Add(v)

	digits := strings.ReplaceAll(in.Number, " ", "")
	switch {
	case digits == "":
		violations.Add(&FieldViolation{Field: FieldCardNumber, Message: MsgNumberRequired})
	case !allDigits(digits) || len(digits) != CardNumberLength:
		violations.Add(&FieldViolation{Field: FieldCardNumber, Message: MsgNumberLength})
	case BrandOf(digits) == BrandUnknown:
		violations.Add(&FieldViolation{Field: FieldCardNumber, Message: MsgNumberBrand})
	case !Luhn(digits):
		violations.Add(&FieldViolation{Field: FieldCardNumber, Message: MsgNumberInvalid})
	}

	expiry := Expiry{Month: int(in.ExpiryMonth)}
	monthOK := in.ExpiryMonth >= 1 && in.ExpiryMonth <= 12
	if !monthOK {
		violations.Add(&FieldViolation{Field: FieldExpiryMonth, Message: MsgExpiryMonthInvalid})
	}
	year, yearOK := fourDigitYear(in.ExpiryYear)
	thisYear := now.In(SouthAfrica).Year()
	if yearOK && year > thisYear+MaxExpiryYearsAhead {
		yearOK = false
	}
	expiry.Year = year
	switch {
	case !yearOK:
		violations.Add(&FieldViolation{Field: FieldExpiryYear, Message: MsgExpiryYearInvalid})
	case monthOK && expiry.Expired(now):
		violations.Add(&FieldViolation{Field: FieldExpiryYear, Message: MsgExpired})
	}

	switch {
	case in.CVV == "":
		violations.Add(&FieldViolation{Field: FieldCVV, Message: MsgCVVRequired})
	case len(in.CVV) != 3 || !allDigits(in.CVV):
		violations.Add(&FieldViolation{Field: FieldCVV, Message: MsgCVVInvalid})
	}

	if err := violations.Err(); err != nil {
		return NewCard{}, err
	}
	return NewCard{
		name:      name,
		number:    PAN{digits: []byte(digits)},
		expiry:    expiry,
		cvv:       CVV{digits: []byte(in.CVV)},
		isDefault: in.IsDefault,
	}, nil
}

// fourDigitYear reads a year given as two digits (28 → 2028) or four (2028); 0 is unset.
func fourDigitYear(y int32) (int, bool) {
	switch {
	case y >= 1 && y <= 99:
		return 2000 + int(y), true
	case y >= 2000 && y <= 2099:
		return int(y), true
	default:
		return 0, false
	}
}
