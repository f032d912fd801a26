package domain_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/thumela/thumela/services/platform/personname"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// FuzzNewRequest: a create-transfer request is the sender's free text (key, name, phone,
// location, PIN) and numbers. Whatever arrives, it is either refused with field violations that
// never quote the sender's PIN, or accepted in a normal form that is a fixed point: validating
// the accepted values again gives the same request and the same idempotency hash, so a retry
// of what the server stored replays the transfer instead of refusing it.
func FuzzNewRequest(f *testing.F) {
	f.Add("k-1", "Thandi Nkosi", "082 123 4567", "fnb", int64(50000), "pm-1", "", "", "")
	f.Add("  k  ", "  Zoë  de la Rey ", "+27821234567", "capitec", int64(1000), "pm", "Sandton City ATM", "param", "4821")
	f.Add("", "\x00", "0800 123 456", "bank", int64(-5), "", "\x1b", "x", "1234")
	f.Add("k", "Ndlovu", "0821234567", "absa", int64(12345), "pm", "", "default", "12a4")
	f.Add("k", "Ndlovu", "0821234567", "absa", int64(12000), "pm", "Sandton \u202eytiC\u200b", "param", "")
	f.Add("k", "Ndlovu", "0821234567", "absa", int64(12000), "pm", "Visit fnb-secure。co。za", "", "")
	pinKey, err := domain.NewPINKey([]byte(strings.Repeat("k", domain.MinPINKeySize)))
	if err != nil {
		f.Fatal(err)
	}
	pins := domain.NewPINHasher(pinKey)
	f.Fuzz(func(t *testing.T, key, name, phone, bank string, cents int64, pm, location, locType, pin string) {
		in := domain.RequestInput{IdempotencyKey: key, RecipientName: name, RecipientPhone: phone, Bank: domain.Bank(bank),
			AmountCents: cents, PaymentMethodID: pm, Location: domain.Location{Name: location, Type: locType}, SenderPIN: pin}
		req, err := domain.NewRequest(in)
		if err != nil {
			var verr *domain.ValidationError
			if !errors.As(err, &verr) || len(verr.Violations) == 0 {
				t.Fatalf("NewRequest error %v is not a ValidationError with violations", err)
			}
			// The PIN's refusal is one of two fixed texts, so it can never quote the PIN.
			for _, v := range verr.Violations {
				if v.Field == "sender_pin" && v.Message != domain.MsgPINFormat && v.Message != domain.MsgPINWeak {
					t.Fatalf("the PIN is refused with %q", v.Message)
				}
			}
			return
		}
		if a := req.Amount().Cents(); a <= 0 || a%domain.NoteCents != 0 {
			t.Fatalf("accepted amount %d", a)
		}
		if k := req.IdempotencyKey(); k == "" || len(k) > domain.MaxIdempotencyKey || !utf8.ValidString(k) || k != strings.TrimSpace(k) {
			t.Fatalf("accepted key %q", k)
		}
		if e := req.RecipientPhone().E164(); len(e) != 12 || !strings.HasPrefix(e, "+27") {
			t.Fatalf("accepted phone %q", e)
		}
		if !req.Bank().Known() {
			t.Fatalf("accepted bank %q", req.Bank())
		}
		if l := req.Location().Name; l == "" || utf8.RuneCountInString(l) > domain.MaxLocationName ||
			strings.ContainsFunc(l, personname.Hidden) || personname.HasWebAddress(l) {
			t.Fatalf("accepted location %q", l)
		}
		again, err := domain.NewRequest(domain.RequestInput{IdempotencyKey: req.IdempotencyKey(), RecipientName: req.RecipientName(),
			RecipientPhone: req.RecipientPhone().E164(), Bank: req.Bank(), AmountCents: req.Amount().Cents(),
			PaymentMethodID: req.PaymentMethodID(), Location: req.Location(), SenderPIN: pin})
		if err != nil {
			t.Fatalf("the accepted request's own values are refused: %v", err)
		}
		if again.RecipientName() != req.RecipientName() || again.Location() != req.Location() || again.PaymentMethodID() != req.PaymentMethodID() {
			t.Fatalf("normalising twice changed the request: %+v -> %+v", req, again)
		}
		if string(again.KeyedBy(pins).Hash()) != string(req.KeyedBy(pins).Hash()) {
			t.Fatalf("the same request hashes differently")
		}
	})
}
