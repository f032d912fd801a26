package domain_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

func validInput() domain.RequestInput {
	return domain.RequestInput{
		IdempotencyKey: "wizard-1", RecipientName: "  Sipho   Dlamini ", RecipientPhone: "082 123 4567",
		Bank: domain.FNB, AmountCents: 50_000, PaymentMethodID: "pm-1",
	}
}

func TestNewRequestNormalises(t *testing.T) {
	t.Parallel()
	r, err := domain.NewRequest(validInput())
	if err != nil {
		t.Fatal(err)
	}
	if r.RecipientName() != "Sipho Dlamini" || r.RecipientPhone().E164() != "+27821234567" || r.Location() != domain.DefaultLocation {
		t.Fatalf("request = %+v", r)
	}
	in := validInput()
	in.Location = domain.Location{Name: "Sandton City ATM"}
	r, err = domain.NewRequest(in)
	if err != nil || r.Location() != (domain.Location{Name: "Sandton City ATM", Type: domain.LocationParam}) {
		t.Fatalf("named location = %+v, %v", r.Location(), err)
	}
}

func TestNewRequestRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		field string
		edit  func(*domain.RequestInput)
	}{
		{"idempotency_key", func(in *domain.RequestInput) { in.IdempotencyKey = " " }},
		{"idempotency_key", func(in *domain.RequestInput) { in.IdempotencyKey = strings.Repeat("k", 129) }},
		{"recipient_name", func(in *domain.RequestInput) { in.RecipientName = "" }},
		{"recipient_name", func(in *domain.RequestInput) { in.RecipientName = strings.Repeat("a", 51) }},
		// Shown in the SMS and to the bank: no NUL, ESC, BEL or bidirectional override.
		{"recipient_name", func(in *domain.RequestInput) { in.RecipientName = "Sipho\x00" }},
		{"recipient_name", func(in *domain.RequestInput) { in.RecipientName = "Sipho\x1b[2J\a" }},
		{"recipient_name", func(in *domain.RequestInput) { in.RecipientName = "\u202eomalD ohpiS" }},
		{"recipient_name", func(in *domain.RequestInput) { in.RecipientName = "-" }},
		{"recipient_phone", func(in *domain.RequestInput) { in.RecipientPhone = "" }},
		{"recipient_phone", func(in *domain.RequestInput) { in.RecipientPhone = "011 123 4567" }},    // landline
		{"recipient_phone", func(in *domain.RequestInput) { in.RecipientPhone = "+44 7911 123456" }}, // UK mobile
		{"recipient_phone", func(in *domain.RequestInput) { in.RecipientPhone = "082 CALL NOW" }},
		{"bank", func(in *domain.RequestInput) { in.Bank = "" }},
		{"bank", func(in *domain.RequestInput) { in.Bank = "bogus" }},
		{"amount_cents", func(in *domain.RequestInput) { in.AmountCents = 0 }},
		{"amount_cents", func(in *domain.RequestInput) { in.AmountCents = -5 }},
		{"payment_method_id", func(in *domain.RequestInput) { in.PaymentMethodID = "" }},
		{"withdrawal_location.type", func(in *domain.RequestInput) { in.Location = domain.Location{Name: "x", Type: "gps"} }},
		{"withdrawal_location.name", func(in *domain.RequestInput) { in.Location = domain.Location{Name: strings.Repeat("a", 101)} }},
	}
	for _, tt := range tests {
		in := validInput()
		tt.edit(&in)
		_, err := domain.NewRequest(in)
		var verr *domain.ValidationError
		if !errors.As(err, &verr) || len(verr.Violations) != 1 || verr.Violations[0].Field != tt.field {
			t.Errorf("%+v: err = %v, want one violation on %s", in, err, tt.field)
		}
	}
	// Everything wrong at once: every field reported, in the form's order.
	_, err := domain.NewRequest(domain.RequestInput{})
	var verr *domain.ValidationError
	if !errors.As(err, &verr) || len(verr.Violations) != 6 || verr.Violations[1].Field != "recipient_name" {
		t.Fatalf("empty request: %v", err)
	}
}

// The recipient's name follows the one name rule (platform/personname), in its words: no web
// address ("Visit fnb-secure.co.za" shown as a name is a phishing lure), initials welcome.
func TestNewRequestRecipientName(t *testing.T) {
	t.Parallel()
	refused := map[string]string{
		"Visit fnb-secure.co.za": "Names can't contain a web address.",
		"www.fnb-help.co.za":     "Names can't contain a web address.",
		"Sipho.Dlamini":          "Names can't contain a web address.",
		"Sipho\x00":              "Names may only contain letters, spaces, apostrophes, hyphens and full stops.",
		"fnb。co。za":              "Names may only contain letters, spaces, apostrophes, hyphens and full stops.",
		"-":                      "The recipient's name must include at least one letter.",
	}
	for name, want := range refused {
		in := validInput()
		in.RecipientName = name
		_, err := domain.NewRequest(in)
		var verr *domain.ValidationError
		if !errors.As(err, &verr) || len(verr.Violations) != 1 ||
			verr.Violations[0] != (domain.Violation{Field: "recipient_name", Message: want}) {
			t.Errorf("NewRequest(recipient %q) = %v; want %q", name, err, want)
		}
	}
	for _, name := range []string{"J. R. R. Tolkien", "J.R.R. Tolkien", "Mary-Jane O'Neil", "St. John", "Nomvuyiseko Wilhelmina-Christina", "Riëtte Coetzée"} {
		in := validInput()
		in.RecipientName = name
		if r, err := domain.NewRequest(in); err != nil || r.RecipientName() != name {
			t.Errorf("NewRequest(recipient %q) = %v", name, err)
		}
	}
}

// A saved recipient's edit applies the same rule under the edit form's field name.
func TestNewRecipientEditName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"Visit fnb-secure.co.za": "Names can't contain a web address.",
		"Sipho\x1b[2J":           "Names may only contain letters, spaces, apostrophes, hyphens and full stops.",
		" ":                      "Please enter the recipient's name.",
	} {
		_, err := domain.NewRecipientEdit(name, "082 123 4567", domain.FNB)
		var verr *domain.ValidationError
		if !errors.As(err, &verr) || len(verr.Violations) != 1 || verr.Violations[0] != (domain.Violation{Field: "name", Message: want}) {
			t.Errorf("NewRecipientEdit(%q) = %v; want %q", name, err, want)
		}
	}
	if e, err := domain.NewRecipientEdit(" J.R.R.  Tolkien ", "082 123 4567", domain.FNB); err != nil || e.Name != "J.R.R. Tolkien" {
		t.Errorf("NewRecipientEdit(initials) = %+v, %v", e, err)
	}
}

// The withdrawal location is the sender's free text (or a link's "location" parameter), shown
// back as Thumela's own words in the wizard, the transfer's details and statements. It follows
// the names' rules for what a reader cannot see and for web addresses (platform/personname:
// no control, format or bidirectional character; no full stop followed by two letters), while
// keeping the digits and punctuation a place's name uses (but no phone number), its length limit
// and its white space normalised.
func TestNewRequestLocationName(t *testing.T) {
	t.Parallel()
	const (
		characters = "The withdrawal location contains a character that is not allowed."
		webAddress = "The withdrawal location can't include a web address."
		tooLong    = "The withdrawal location must be at most 100 characters."
		phone      = "The withdrawal location can't include a phone number."
	)
	tests := []struct {
		name, location, want string // want: the accepted name, or the refusal's message
		ok                   bool
	}{
		{"plain", "Sandton City", "Sandton City", true},
		{"accented", "Café Mall", "Café Mall", true},
		{"a combining accent", "Cafe\u0301 Mall", "Cafe\u0301 Mall", true},
		{"digits and punctuation", " Shop 12,  Mall of Africa (Midrand) & Co. ", "Shop 12, Mall of Africa (Midrand) & Co.", true},
		{"an abbreviation", "St. George's Mall, Cape Town", "St. George's Mall, Cape Town", true},
		{"other scripts", "ᒥᐧᔦᐤ 李小龙", "ᒥᐧᔦᐤ 李小龙", true},
		{"no-break spaces", "Sandton\u00a0City\u2028ATM", "Sandton City ATM", true},
		{"exactly the limit", strings.Repeat("a", 100), strings.Repeat("a", 100), true},
		{"right-to-left override", "Sandton \u202eytiC", characters, false},
		{"zero-width space", "Sand\u200bton City", characters, false},
		{"zero-width joiner", "Sand\u200dton City", characters, false},
		{"left-to-right isolate", "Sandton \u2066City", characters, false},
		{"byte order mark", "\ufeffSandton City", characters, false},
		{"soft hyphen", "Sand\u00adton", characters, false},
		{"NUL", "Sandton\x00City", characters, false},
		{"ESC", "Sandton\x1b[2J", characters, false},
		{"private use", "Sandton\ue000", characters, false},
		{"invalid UTF-8", "Sand\xffton", characters, false},
		{"www", "www.example.com", webAddress, false},
		{"https", "https://x.co", webAddress, false},
		{"an address inside", "Visit fnb-secure.co.za for your cash", webAddress, false},
		{"no space after a full stop", "St.Georges Mall", webAddress, false},
		{"an ideographic full stop", "fnb-secure。co。za", webAddress, false},
		{"a fullwidth full stop", "fnb-secure．co．za", webAddress, false},
		{"a middle dot", "fnb-secure·co·za", webAddress, false},
		{"a dot-shaped letter", "fnb-secureꓸcoꓸza", webAddress, false},
		{"an address before the length", strings.Repeat("a", 100) + " x.co", webAddress, false},
		{"too long", strings.Repeat("a", 101), tooLong, false},
		// A phone number is a lure as an address is: seven digits or more, however grouped.
		{"a phone number", "FNB fraud line 087 575 9404", phone, false},
		{"a toll-free number", "Call 0800-123-456 now", phone, false},
		{"a number in brackets", "Branch (011) 555 0100", phone, false},
		{"seven digits", "Sandton 1234567", phone, false},
		{"a place's short numbers", "Shop 12, Unit 4.12, Gate 3, 2nd floor", "Shop 12, Unit 4.12, Gate 3, 2nd floor", true},
		{"six digits", "Erf 123 456", "Erf 123 456", true},
	}
	for _, tt := range tests {
		in := validInput()
		in.Location = domain.Location{Name: tt.location}
		r, err := domain.NewRequest(in)
		if tt.ok {
			if err != nil || r.Location() != (domain.Location{Name: tt.want, Type: domain.LocationParam}) {
				t.Errorf("%s: NewRequest(location %q) = %+v, %v; want %q", tt.name, tt.location, r.Location(), err, tt.want)
			}
			continue
		}
		var verr *domain.ValidationError
		if !errors.As(err, &verr) || len(verr.Violations) != 1 ||
			verr.Violations[0] != (domain.Violation{Field: "withdrawal_location.name", Message: tt.want}) {
			t.Errorf("%s: NewRequest(location %q) = %v; want %q", tt.name, tt.location, err, tt.want)
		}
	}
}

func TestPhoneNotations(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"0821234567", "082 123 4567", "+27 82 123 4567", "27821234567", "(082) 123-4567", "+27821234567"} {
		p, ok := domain.ParsePhone(in)
		if !ok || p.E164() != "+27821234567" {
			t.Errorf("ParsePhone(%q) = %q, %v", in, p, ok)
		}
	}
}

func TestRequestHash(t *testing.T) {
	t.Parallel()
	hash := func(edit func(*domain.RequestInput)) []byte {
		in := validInput()
		edit(&in)
		r, err := domain.NewRequest(in)
		if err != nil {
			t.Fatal(err)
		}
		return r.Hash()
	}
	base := hash(func(*domain.RequestInput) {})
	same := []func(*domain.RequestInput){
		func(in *domain.RequestInput) { in.RecipientPhone = "+27821234567" },
		func(in *domain.RequestInput) { in.RecipientName = "Sipho Dlamini" },
		func(in *domain.RequestInput) { in.IdempotencyKey = "another key" },
		func(in *domain.RequestInput) { in.Location = domain.DefaultLocation },
	}
	for i, edit := range same {
		if !bytes.Equal(hash(edit), base) {
			t.Errorf("same request %d hashes differently", i)
		}
	}
	different := []func(*domain.RequestInput){
		func(in *domain.RequestInput) { in.AmountCents += domain.NoteCents },
		func(in *domain.RequestInput) { in.Bank = domain.ABSA },
		func(in *domain.RequestInput) { in.RecipientName = "Sipho Dlamin" },
		func(in *domain.RequestInput) { in.RecipientPhone = "0821234568" },
		func(in *domain.RequestInput) { in.PaymentMethodID = "pm-2" },
		func(in *domain.RequestInput) {
			in.Location = domain.Location{Name: "Nearest ATM", Type: domain.LocationParam}
		},
	}
	for i, edit := range different {
		if bytes.Equal(hash(edit), base) {
			t.Errorf("different request %d hashes alike", i)
		}
	}
}

// TestMoneyString: as the web client writes money (Intl.NumberFormat('en-ZA') with the prefix
// R), so a limit's refusal reads the same in the app and in an e-mail.
func TestMoneyString(t *testing.T) {
	t.Parallel()
	for c, want := range map[int64]string{0: "R0,00", 5: "R0,05", 120000: "R1\u00a0200,00", 10_000_000: "R100\u00a0000,00", -1095: "-R10,95"} {
		if got := domain.Cents(c).String(); got != want {
			t.Errorf("%d = %q, want %q", c, got, want)
		}
	}
}
