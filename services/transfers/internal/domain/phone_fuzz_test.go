package domain_test

import (
	"strings"
	"testing"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// FuzzParsePhone: whatever a sender types, a number ParsePhone accepts is a South African
// mobile in E.164 (+27 and nine digits), and it normalises to the same number from its E.164
// form, its national form (0XX...) and with the spaces people type. Seeds:
// testdata/fuzz/FuzzParsePhone and the f.Add lines.
func FuzzParsePhone(f *testing.F) {
	for _, s := range []string{"082 123 4567", "0821234567", "+27 82 123 4567", "27821234567",
		"(082) 123-4567", "011 123 4567", "+44 7700 900123", "0800 123 456", "", "++27", "0" + strings.Repeat("9", 40)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, typed string) {
		p, ok := domain.ParsePhone(typed)
		if !ok {
			return
		}
		e := p.E164()
		if len(e) != 12 || !strings.HasPrefix(e, "+27") || strings.Trim(e[1:], "0123456789") != "" {
			t.Fatalf("ParsePhone(%q) = %q, not +27 and nine digits", typed, e)
		}
		for _, form := range []string{e, "0" + e[3:], e[1:], "0" + e[3:5] + " " + e[5:8] + " " + e[8:]} {
			again, ok := domain.ParsePhone(form)
			if !ok || again != p {
				t.Fatalf("ParsePhone(%q) = %q, %v; want %q (from %q)", form, again.E164(), ok, e, typed)
			}
		}
	})
}
