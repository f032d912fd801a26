package domain_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/thumela/thumela/services/paymentmethods/internal/domain"
)

func TestLuhnAndBrand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		number string
		luhn   bool
		brand  domain.Brand
	}{
		{"4242424242424242", true, domain.BrandVisa},
		{"4242424242424241", false, domain.BrandVisa},
		{"5555555555554444", true, domain.BrandMastercard},
		{"5105105105105100", true, domain.BrandMastercard},
		{"2221000000000009", true, domain.BrandMastercard},
		{"2720990000000007", true, domain.BrandMastercard},
		{"2220990000000002", true, domain.BrandUnknown}, // just below the 2-series range
		{"2721000000000004", true, domain.BrandUnknown}, // just above it
		{"5000000000000009", true, domain.BrandUnknown}, // 50 is not Mastercard
		{"5600000000000003", true, domain.BrandUnknown}, // 56 is not Mastercard
		{"378282246310005", true, domain.BrandUnknown},  // American Express
		{"6011111111111117", true, domain.BrandUnknown}, // Discover
		{"", false, domain.BrandUnknown},
		{"42a2", false, domain.BrandUnknown},
	}
	for _, tt := range tests {
		if got := domain.Luhn(tt.number); got != tt.luhn {
			t.Errorf("Luhn(%q) = %v, want %v", tt.number, got, tt.luhn)
		}
		if got := domain.BrandOf(tt.number); got != tt.brand {
			t.Errorf("BrandOf(%q) = %v, want %v", tt.number, got, tt.brand)
		}
	}
}

func TestValidateCard(t *testing.T) {
	t.Parallel()
	// 10:00 on 15 June 2026, South African time.
	now := time.Date(2026, 6, 15, 8, 0, 0, 0, time.UTC)
	valid := domain.CardInput{Name: " Everyday Visa ", Number: "4242 4242 4242 4242", ExpiryMonth: 6, ExpiryYear: 26, CVV: "123"}
	with := func(f func(*domain.CardInput)) domain.CardInput {
		in := valid
		f(&in)
		return in
	}
	tests := []struct {
		name   string
		in     domain.CardInput
		fields []string
		msgs   []string
	}{
		{"valid, expiring this month", valid, nil, nil},
		{"four-digit year", with(func(in *domain.CardInput) { in.ExpiryYear = 2031 }), nil, nil},
		{"mastercard 2-series", with(func(in *domain.CardInput) { in.Number = "2221000000000009" }), nil, nil},
		{"name missing", with(func(in *domain.CardInput) { in.Name = "   " }), []string{"name"}, []string{domain.MsgNameRequired}},
		{"name too long", with(func(in *domain.CardInput) { in.Name = strings.Repeat("é", 51) }), []string{"name"}, []string{domain.MsgNameTooLong}},
		{"name of 50 characters", with(func(in *domain.CardInput) { in.Name = strings.Repeat("é", 50) }), nil, nil},
		{"name holding a card number", with(func(in *domain.CardInput) { in.Name = "my 4242-4242-4242-4242" }), []string{"name"}, []string{domain.MsgNameHasCardNumber}},
		{"number missing", with(func(in *domain.CardInput) { in.Number = "" }), []string{"card_number"}, []string{domain.MsgNumberRequired}},
		{"15 digits", with(func(in *domain.CardInput) { in.Number = "424242424242424" }), []string{"card_number"}, []string{domain.MsgNumberLength}},
		{"17 digits", with(func(in *domain.CardInput) { in.Number = "42424242424242424" }), []string{"card_number"}, []string{domain.MsgNumberLength}},
		{"letters", with(func(in *domain.CardInput) { in.Number = "4242-4242-4242-4242" }), []string{"card_number"}, []string{domain.MsgNumberLength}},
		{"amex", with(func(in *domain.CardInput) { in.Number = "3782822463100005" }), []string{"card_number"}, []string{domain.MsgNumberBrand}},
		{"luhn", with(func(in *domain.CardInput) { in.Number = "4242424242424241" }), []string{"card_number"}, []string{domain.MsgNumberInvalid}},
		{"month 0", with(func(in *domain.CardInput) { in.ExpiryMonth = 0 }), []string{"expiry_month"}, []string{domain.MsgExpiryMonthInvalid}},
		{"month 13", with(func(in *domain.CardInput) { in.ExpiryMonth = 13 }), []string{"expiry_month"}, []string{domain.MsgExpiryMonthInvalid}},
		{"year 0", with(func(in *domain.CardInput) { in.ExpiryYear = 0 }), []string{"expiry_year"}, []string{domain.MsgExpiryYearInvalid}},
		{"year of three digits", with(func(in *domain.CardInput) { in.ExpiryYear = 202 }), []string{"expiry_year"}, []string{domain.MsgExpiryYearInvalid}},
		{"year too far ahead", with(func(in *domain.CardInput) { in.ExpiryYear = 2047 }), []string{"expiry_year"}, []string{domain.MsgExpiryYearInvalid}},
		{"expired last month", with(func(in *domain.CardInput) { in.ExpiryMonth = 5 }), []string{"expiry_year"}, []string{domain.MsgExpired}},
		{"expired last year", with(func(in *domain.CardInput) { in.ExpiryYear = 2025; in.ExpiryMonth = 12 }), []string{"expiry_year"}, []string{domain.MsgExpired}},
		{"cvv missing", with(func(in *domain.CardInput) { in.CVV = "" }), []string{"cvv"}, []string{domain.MsgCVVRequired}},
		{"cvv of 4 digits", with(func(in *domain.CardInput) { in.CVV = "1234" }), []string{"cvv"}, []string{domain.MsgCVVInvalid}},
		{"cvv letters", with(func(in *domain.CardInput) { in.CVV = "12a" }), []string{"cvv"}, []string{domain.MsgCVVInvalid}},
		{"everything", domain.CardInput{}, []string{"name", "card_number", "expiry_month", "expiry_year", "cvv"},
			[]string{domain.MsgNameRequired, domain.MsgNumberRequired, domain.MsgExpiryMonthInvalid, domain.MsgExpiryYearInvalid, domain.MsgCVVRequired}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			card, err := domain.ValidateCard(tt.in, now)
			if tt.fields == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var verr *domain.ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("error = %v, want a ValidationError", err)
			}
			var fields, msgs []string
			for _, v := range verr.Violations {
				fields, msgs = append(fields, v.Field), append(msgs, v.Message)
			}
			if fmt.Sprint(fields) != fmt.Sprint(tt.fields) || fmt.Sprint(msgs) != fmt.Sprint(tt.msgs) {
				t.Fatalf("violations = %v %q, want %v %q", fields, msgs, tt.fields, tt.msgs)
			}
			if !card.Number().IsZero() {
				t.Fatal("a refused card carries a number")
			}
			if strings.Contains(err.Error(), "4242424242424") {
				t.Fatalf("error text carries the number: %v", err)
			}
		})
	}

	card, err := domain.ValidateCard(valid, now)
	if err != nil {
		t.Fatal(err)
	}
	if card.Name() != "Everyday Visa" || card.Expiry() != (domain.Expiry{Month: 6, Year: 2026}) ||
		card.Number().LastFour() != "4242" || card.Number().Brand() != domain.BrandVisa {
		t.Fatalf("card = %q %v %s %v", card.Name(), card.Expiry(), card.Number().LastFour(), card.Number().Brand())
	}
	card.Wipe()
	if !bytes.Equal(card.Number().Reveal(), make([]byte, 16)) || !bytes.Equal(card.CVV().Reveal(), make([]byte, 3)) {
		t.Fatal("Wipe left digits behind")
	}
}

// A card is valid through the end of its expiry month in Africa/Johannesburg (UTC+2): at
// 23:30 SAST on 30 June it is still valid, at 00:30 SAST on 1 July (22:30 UTC on 30 June) it
// is not, though it is still June in UTC.
func TestExpiryIsSouthAfricanEndOfMonth(t *testing.T) {
	t.Parallel()
	e := domain.Expiry{Month: 6, Year: 2026}
	if e.Expired(time.Date(2026, 6, 30, 21, 30, 0, 0, time.UTC)) {
		t.Fatal("expired at 23:30 SAST on its last day")
	}
	if !e.Expired(time.Date(2026, 6, 30, 22, 30, 0, 0, time.UTC)) {
		t.Fatal("still valid at 00:30 SAST on the 1st of the next month")
	}
	if e.Expired(time.Date(2025, 12, 31, 23, 0, 0, 0, time.UTC)) {
		t.Fatal("expired the year before")
	}
}

// A PAN or CVV handed to fmt, slog or encoding/json by mistake shows masked.
func TestCardDataNeverPrints(t *testing.T) {
	t.Parallel()
	card, err := domain.ValidateCard(domain.CardInput{Name: "Visa", Number: "4111111111111111", ExpiryMonth: 12, ExpiryYear: 2030, CVV: "987"},
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	type wrapper struct {
		PAN domain.PAN
		CVV domain.CVV
	}
	w := wrapper{card.Number(), card.CVV()}
	var out bytes.Buffer
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
		fmt.Fprintf(&out, verb+"\n", card.Number())
		fmt.Fprintf(&out, verb+"\n", card.CVV())
		fmt.Fprintf(&out, verb+"\n", w)
		fmt.Fprintf(&out, verb+"\n", card)
		fmt.Fprintf(&out, verb+"\n", &card)
	}
	fmt.Fprintln(&out, fmt.Errorf("wrapped: %v", card.Number()))
	logger := slog.New(slog.NewJSONHandler(&out, nil))
	logger.Info("card", "pan", card.Number(), "cvv", card.CVV(), "w", w, "card", card)
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	out.Write(b)
	b, _ = json.Marshal(card) //nolint:staticcheck // SA9005: the test checks that marshalling a card leaks nothing
	out.Write(b)
	s := out.String()
	if strings.Contains(s, "4111111111111111") || strings.Contains(s, "411111111111") || strings.Contains(s, "987") ||
		strings.Contains(s, "34313131") /* hex of "4111" */ {
		t.Fatalf("card data printed:\n%s", s)
	}
	if !strings.Contains(s, "•••• 1111") {
		t.Fatalf("masked form missing:\n%s", s)
	}
}

func TestContainsCardNumber(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"Everyday card":           false,
		"Card 2028":               false,
		"4242 4242 4242 4242":     true,
		"pay with 4242424242424":  true,
		"phone 082 123 4567":      false,
		"123456789012":            false,
		"1234-5678-9012-3":        true,
		"12345 abc 67890 1234567": false,
		// What else a paste puts between the groups still hides nothing.
		"4242.4242.4242.4242":                true,
		"4242/4242/4242/4242":                true,
		"4242\u00a04242\u00a04242\u00a04242": true,
		"4242\u200b4242\u200b4242\u200b4242": true,
		"４２４２４２４２４２４２４２４２":                   true,
		"Card ending 4242, expires 12/2029":  false,
		"(082) 123-4567":                     false,
	} {
		if got := domain.ContainsCardNumber(s); got != want {
			t.Errorf("ContainsCardNumber(%q) = %v, want %v", s, got, want)
		}
	}
}

// A card name is shown in lists, the wizard, receipts and statements: no control or invisible
// characters (NUL was an Internal error from PostgreSQL; U+202E showed the name reversed),
// while the names people give their cards pass.
func TestParseNameRefusesHiddenCharacters(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"Everyday card", "Sipho's Visa", "Kaart – werk", "Карта", "Card ending 4242 (12/29)", "💳 Travel", "👩\u200d👧 Family"} {
		if got, v := domain.ParseName("  " + name + " "); v != nil || got != name {
			t.Errorf("ParseName(%q) = %q, %v; want it accepted", name, got, v)
		}
	}
	for _, name := range []string{"card\x00x", "card\u202ex", "a\u200bb", "line\nbreak", "esc\x1b[31m", "a\u2028b", "priv\ue000"} {
		got, v := domain.ParseName(name)
		if v == nil || v.Field != domain.FieldName || v.Message != domain.MsgNameCharacters {
			t.Errorf("ParseName(%q) = %q, %v; want %q", name, got, v, domain.MsgNameCharacters)
		}
	}
}
