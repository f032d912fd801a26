package domain_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/thumela/thumela/services/profiles/internal/domain"
)

func TestParsePhone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"082 123 4567", "+27821234567", true},
		{"0821234567", "+27821234567", true},
		{"+27 82 123 4567", "+27821234567", true},
		{"27821234567", "+27821234567", true},
		{"+27821234567", "+27821234567", true},
		{"(082) 123-4567", "+27821234567", true},
		{"  071 234 5678 ", "+27712345678", true},
		{"060 123 4567", "+27601234567", true},
		{"", "", true},
		{"   ", "", true},
		{"011 123 4567", "", false},      // Johannesburg landline
		{"+27 21 123 4567", "", false},   // Cape Town landline
		{"+44 7911 123456", "", false},   // UK mobile
		{"082 123 456", "", false},       // too short
		{"082 123 45678", "", false},     // too long
		{"0821234567 ext 12", "", false}, // extension
		{"082 CALL ME", "", false},       // letters
		{"hello", "", false},             //
		{"1234", "", false},              //
		{"+27 82 123 4567 8", "", false}, //
		{"0800 123 456", "", false},      // toll-free
		{strings.Repeat("0", 40), "", false},
	}
	for _, tt := range tests {
		got, err := domain.ParsePhone(tt.in)
		if tt.ok != (err == nil) || got.E164() != tt.want {
			t.Errorf("ParsePhone(%q) = %q, %v; want %q, ok=%v", tt.in, got.E164(), err, tt.want, tt.ok)
		}
	}
}

func TestNewChange(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", domain.MaxNameLength)
	tests := []struct {
		name               string
		first, last, phone string
		wantFields         []string
		wantMessages       []string
	}{
		{name: "valid", first: " Thandi ", last: " Nkosi ", phone: "082 123 4567"},
		{name: "50 characters", first: long, last: long},
		{name: "names people have", first: "Mary-Jane", last: "O'Brien-Ndlovu Jr."},
		{name: "first missing", first: "  ", last: "Nkosi",
			wantFields: []string{"first_name"}, wantMessages: []string{"First name is required"}},
		{name: "last missing", first: "Thandi", last: "",
			wantFields: []string{"last_name"}, wantMessages: []string{"Last name is required"}},
		{name: "too long", first: long + "x", last: "Nkosi",
			wantFields: []string{"first_name"}, wantMessages: []string{"First name must be at most 50 characters"}},
		// NUL gave a 500 (PostgreSQL refuses it in text); ESC, BEL and U+202E were stored and
		// reached the recipient's SMS through the sender's name.
		{name: "NUL", first: "Tha\x00ndi", last: "Nkosi",
			wantFields: []string{"first_name"}, wantMessages: []string{domain.MsgNameCharacters}},
		{name: "ESC, BEL and right-to-left override", first: "Thandi", last: "\u202eisokN\x1b[2J\a",
			wantFields: []string{"last_name"}, wantMessages: []string{domain.MsgNameCharacters}},
		{name: "zero-width joiner", first: "Tha\u200dndi", last: "Nkosi",
			wantFields: []string{"first_name"}, wantMessages: []string{domain.MsgNameCharacters}},
		// A web address: shown where the name is, it is a phishing lure.
		{name: "web address", first: "Visit fnb-secure.co.za", last: "Nkosi",
			wantFields: []string{"first_name"}, wantMessages: []string{"Names can't contain a web address."}},
		{name: "web address as the last name", first: "Thandi", last: "www.fnb-help.co.za",
			wantFields: []string{"last_name"}, wantMessages: []string{domain.MsgNameWebAddress}},
		{name: "initials", first: "J.R.R.", last: "Tolkien"},
		{name: "initials with spaces", first: "J. R. R.", last: "Tolkien"},
		{name: "St. John", first: "St. John", last: "Mary-Jane O'Neil"},
		{name: "no letter", first: "Thandi", last: "--",
			wantFields: []string{"last_name"}, wantMessages: []string{"Last name must include at least one letter"}},
		{name: "everything wrong", first: "", last: "", phone: "011 123 4567",
			wantFields:   []string{"first_name", "last_name", "phone_number"},
			wantMessages: []string{"First name is required", "Last name is required", "Please enter a valid South African mobile number."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := domain.NewChange(tt.first, tt.last, tt.phone)
			if tt.wantFields == nil {
				if err != nil {
					t.Fatal(err)
				}
				if c.FirstName() != strings.TrimSpace(tt.first) || c.LastName() != strings.TrimSpace(tt.last) {
					t.Fatalf("names not trimmed: %q %q", c.FirstName(), c.LastName())
				}
				return
			}
			var verr *domain.ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("NewChange = %v, want a ValidationError", err)
			}
			if len(verr.Violations) != len(tt.wantFields) {
				t.Fatalf("violations = %+v, want fields %v", verr.Violations, tt.wantFields)
			}
			for i, v := range verr.Violations {
				if v.Field != tt.wantFields[i] || v.Message != tt.wantMessages[i] {
					t.Errorf("violation %d = %+v, want %s %q", i, v, tt.wantFields[i], tt.wantMessages[i])
				}
			}
		})
	}
}

func TestSignUpName(t *testing.T) {
	t.Parallel()
	if got := domain.SignUpName("  Thandi "); got != "Thandi" {
		t.Errorf("SignUpName trims: %q", got)
	}
	if got := domain.SignUpName("\u202eThandi\x00\x1b "); got != "Thandi" {
		t.Errorf("SignUpName keeps what the name rule allows: %q", got)
	}
	// An account named before names could not carry a web address: its word goes.
	if got := domain.SignUpName("Visit fnb-secure.co.za"); got != "Visit" {
		t.Errorf("SignUpName drops a web address: %q", got)
	}
	if got := domain.SignUpName("www.fnb-help.co.za"); got != "" {
		t.Errorf("SignUpName drops a web address: %q", got)
	}
	if got := domain.SignUpName(strings.Repeat("a", 150)); len(got) != domain.MaxNameLength {
		t.Errorf("SignUpName cuts to %d: got %d", domain.MaxNameLength, len(got))
	}
}
