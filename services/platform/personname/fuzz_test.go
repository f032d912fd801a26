package personname_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/thumela/thumela/services/platform/personname"
)

// FuzzParse: an accepted name is valid UTF-8 of at most MaxLen characters with at least one
// letter, holds no control, format or bidirectional character, no digit and no run of spaces,
// has no space at either end, and parses again to itself (the normal form is a fixed point).
// A refused one is refused with a reason, never OK with an empty name.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"Thandi", "  Nomvuyiseko   Wilhelmina-Christina ", "O’Brien", "de la Rey",
		"Zoë", "Ndlovu\u200f", "\x00", "\x1b[31mred", "Thandi\u202e", "李小龙", "R2-D2", "-", "\xff", "a\u00a0b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		name, problem := personname.Parse(raw)
		if problem != personname.OK {
			if name != "" {
				t.Fatalf("Parse(%q) refused (%v) but returned %q", raw, problem, name)
			}
			return
		}
		if !utf8.ValidString(name) || name == "" || utf8.RuneCountInString(name) > personname.MaxLen {
			t.Fatalf("Parse(%q) = %q", raw, name)
		}
		if name != strings.TrimSpace(name) || strings.Contains(name, "  ") {
			t.Fatalf("Parse(%q) = %q keeps outer or repeated spaces", raw, name)
		}
		letters := 0
		for _, r := range name {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.IsDigit(r) || (unicode.IsSpace(r) && r != ' ') {
				t.Fatalf("Parse(%q) = %q keeps %U", raw, name, r)
			}
			if unicode.IsLetter(r) {
				letters++
			}
		}
		if letters == 0 {
			t.Fatalf("Parse(%q) = %q has no letter", raw, name)
		}
		if again, p := personname.Parse(name); p != personname.OK || again != name {
			t.Fatalf("Parse(Parse(%q)) = %q, %v; want %q", raw, again, p, name)
		}
	})
}
