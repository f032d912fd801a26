package domain_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/thumela/thumela/services/cashout/internal/domain"
)

// FuzzCredentialsNeverPrint: what the recipient types at the ATM (DE 2, the PIN from DE 52,
// DE 48) is accepted only in its documented form, and once accepted never appears in clear
// through fmt (%v, %s, %#v, %+v) or slog: the PIN and the phone not at all, the voucher number
// as its last 4 digits only.
func FuzzCredentialsNeverPrint(f *testing.F) {
	f.Add("0123456789", "4821", "082 123 4567")
	f.Add("1234567890123456789", "123456789012", "+27821234567")
	f.Add("12ab", "12", "")
	f.Fuzz(func(t *testing.T, voucher, pin, phone string) {
		v, verr := domain.NewVoucherNumber(voucher)
		p, perr := domain.NewPIN(pin)
		ph, pherr := domain.NewPhone(phone)
		if validDigits(voucher, 1, 19) != (verr == nil) {
			t.Fatalf("NewVoucherNumber(%q) error = %v", voucher, verr)
		}
		if validDigits(pin, 4, 12) != (perr == nil) {
			t.Fatalf("NewPIN(%q) error = %v", pin, perr)
		}
		trimmed := strings.TrimSpace(phone)
		if (trimmed != "" && len(trimmed) <= 20) != (pherr == nil) {
			t.Fatalf("NewPhone(%q) error = %v", phone, pherr)
		}
		// What is printed must not depend on the secret: a PIN or phone prints exactly as any
		// other does, a voucher number exactly as any other with the same last 4 digits.
		if perr == nil {
			other, _ := domain.NewPIN("0000")
			if printed(p) != printed(other) {
				t.Fatalf("the PIN shows through: %s", printed(p))
			}
		}
		if pherr == nil {
			other, _ := domain.NewPhone("+27000000000")
			if printed(ph) != printed(other) {
				t.Fatalf("the phone shows through: %s", printed(ph))
			}
		}
		if verr == nil {
			last4 := voucher[max(0, len(voucher)-4):]
			other, _ := domain.NewVoucherNumber(last4)
			if printed(v) != printed(other) {
				t.Fatalf("more than the voucher number's last 4 digits show: %s", printed(v))
			}
		}
	})
}

// printed is value through every fmt verb and slog's text handler.
func printed(value any) string {
	var out bytes.Buffer
	for _, verb := range []string{"%v", "%s", "%#v", "%+v"} {
		fmt.Fprintf(&out, verb+"\n", value)
	}
	// Without the time, whose digits would match short inputs.
	noTime := func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}
	slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{ReplaceAttr: noTime})).Info("withdrawal", "value", value)
	return out.String()
}

func validDigits(s string, minLen, maxLen int) bool {
	return len(s) >= minLen && len(s) <= maxLen && strings.Trim(s, "0123456789") == ""
}
