package domain_test

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/thumela/thumela/services/paymentmethods/internal/domain"
)

// FuzzValidateCard: the add-card form is the one place a full card number and CVV enter the
// system. Whatever is typed, a refusal names fields and never quotes the number, and an
// accepted card is 16 Luhn-valid Visa or Mastercard digits, a 3-digit CVV and an unexpired
// month, and prints (fmt, slog) with neither its number nor its CVV.
func FuzzValidateCard(f *testing.F) {
	f.Add("Cheque card", "4242 4242 4242 4242", int32(12), int32(2030), "123")
	f.Add("", "5555555555554444", int32(1), int32(27), "12")
	f.Add("Card", "4000000000000002", int32(13), int32(1999), "abc")
	f.Add("\x00", "4242424242424241", int32(0), int32(0), "")
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, name, number string, month, year int32, cvv string) {
		card, err := domain.ValidateCard(domain.CardInput{Name: name, Number: number, ExpiryMonth: month, ExpiryYear: year, CVV: cvv}, now)
		digits := strings.ReplaceAll(number, " ", "")
		if err != nil {
			var ve *domain.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("ValidateCard error %T %v is not a ValidationError", err, err)
			}
			if len(digits) >= 12 && strings.Contains(err.Error(), digits) {
				t.Fatalf("the refusal quotes the number: %v", err)
			}
			return
		}
		pan := string(card.Number().Reveal())
		if len(pan) != 16 || !domain.Luhn(pan) || card.Number().Brand() == domain.BrandUnknown {
			t.Fatalf("accepted number %q", pan)
		}
		if len(cvv) != 3 || strings.Trim(cvv, "0123456789") != "" || card.Expiry().Expired(now) {
			t.Fatalf("accepted CVV %q or expiry %v", cvv, card.Expiry())
		}
		var out bytes.Buffer
		for _, verb := range []string{"%v", "%s", "%#v", "%+v", "%q", "%x"} {
			fmt.Fprintf(&out, verb+"\n", card)
		}
		slog.New(slog.NewJSONHandler(&out, nil)).Info("card", "card", card, "number", card.Number(), "cvv", card.CVV())
		if strings.Contains(out.String(), pan) || strings.Contains(out.String(), pan[:12]) {
			t.Fatalf("the card number shows: %s", out.String())
		}
		if strings.Contains(out.String(), `"cvv":"`+cvv+`"`) || strings.Contains(out.String(), "CVV("+cvv) {
			t.Fatalf("the CVV shows: %s", out.String())
		}
	})
}
