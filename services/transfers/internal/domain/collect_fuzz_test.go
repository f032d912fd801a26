package domain_test

import (
	"errors"
	"strings"
	"testing"
	"unicode"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// FuzzNewCollectRequest: what the ATM gateway forwards (the voucher number, PIN and phone typed
// at an ATM, and the switch's references) is refused with field violations, or accepted with
// references of their documented form. The credentials are never judged here and never quoted:
// a refusal names fields only. A voucher number "has the form of one" exactly when it is 10
// digits, and the repeat digest does not depend on the PIN or the phone (a switch's retry of
// the same message must be recognised whatever those carry).
func FuzzNewCollectRequest(f *testing.F) {
	f.Add("0123456789", "4821", "082 123 4567", "fnb", "ATM00001", int64(50000), "123456", "633513123456", "FNB ATM Sandton City")
	f.Add(" 12345 ", "12", "+44 7700 900123", "absa", "", int64(0), "", "", "")
	f.Add("01234567890", "abcd", "", "bank", "\x00", int64(-1), "12a", "rrn with spaces", "\x1b[2J")
	f.Fuzz(func(t *testing.T, number, pin, phone, bank, atm string, cents int64, stan, rrn, location string) {
		in := domain.CollectInput{VoucherNumber: number, PIN: pin, RecipientPhone: phone, Bank: domain.Bank(bank),
			ATMID: atm, AmountCents: cents, STAN: stan, RRN: rrn, ATMLocation: location}
		req, err := domain.NewCollectRequest(in)
		if err != nil {
			var verr *domain.ValidationError
			if !errors.As(err, &verr) || len(verr.Violations) == 0 {
				t.Fatalf("error %v is not a ValidationError with violations", err)
			}
			for _, v := range verr.Violations {
				switch v.Field {
				case "voucher_number", "pin", "recipient_phone":
					t.Fatalf("the credentials are judged here: %+v", v)
				}
			}
			return
		}
		if !req.Bank().Known() || req.Amount().Cents() <= 0 || req.ATMID() == "" {
			t.Fatalf("accepted %+v", in)
		}
		if s := req.STAN(); s == "" || strings.Trim(s, "0123456789") != "" {
			t.Fatalf("accepted STAN %q", s)
		}
		if r := req.RRN(); r == "" || strings.ContainsFunc(r, func(c rune) bool { return !(c < unicode.MaxASCII && (unicode.IsLetter(c) || unicode.IsDigit(c))) }) {
			t.Fatalf("accepted RRN %q", r)
		}
		if strings.ContainsFunc(req.Location()+req.ATMID(), func(c rune) bool { return !unicode.IsPrint(c) }) {
			t.Fatalf("accepted unprintable ATM text %q / %q", req.ATMID(), req.Location())
		}
		n := strings.TrimSpace(number)
		if want := len(n) == 10 && strings.Trim(n, "0123456789") == ""; req.ValidNumber() != want {
			t.Fatalf("ValidNumber(%q) = %v, want %v", n, req.ValidNumber(), want)
		}
		other := in
		other.PIN, other.RecipientPhone = pin+"9", "083 000 0000"
		again, err := domain.NewCollectRequest(other)
		if err != nil || string(again.Digest()) != string(req.Digest()) {
			t.Fatalf("the repeat digest depends on the PIN or the phone (%v)", err)
		}
	})
}
