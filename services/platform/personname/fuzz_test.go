package personname_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/thumela/thumela/services/platform/personname"
)

// FuzzParse: an accepted name is valid UTF-8 of at most MaxLen characters with at least one
// letter, holds no control, format or bidirectional character, no digit, no run of spaces and
// no web address, has no space at either end, and parses again to itself (the normal form is a
// fixed point). A refused one is refused with a reason, never OK with an empty name.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"Thandi", "  Nomvuyiseko   Wilhelmina-Christina ", "O’Brien", "de la Rey",
		"Zoë", "Ndlovu\u200f", "\x00", "\x1b[31mred", "Thandi\u202e", "李小龙", "R2-D2", "-", "\xff", "a\u00a0b",
		"Visit fnb-secure.co.za", "www.fnb-help.co.za", "J.R.R. Tolkien", "J. R. R. Tolkien", "St. John", "fnb.c\u0301o",
		"fnb-secureꓸcoꓸza", "ᒥᐧᔦᐤ", "\u3164", "Sipho\u034fDlamini", "Sipho\ufe0f", "a\u0301\u0301\u0301\u0301"} {
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
		if hasWebAddress(name) {
			t.Fatalf("Parse(%q) = %q keeps a web address", raw, name)
		}
		if again, p := personname.Parse(name); p != personname.OK || again != name {
			t.Fatalf("Parse(Parse(%q)) = %q, %v; want %q", raw, again, p, name)
		}
	})
}

// FuzzClean: what Clean keeps is what Parse accepts, as it is (or nothing of it: "" or no
// letter), never a character outside the rule, a web address or more than MaxLen characters;
// and cleaning it again changes nothing.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"Thandi", " \u202eThandi\x00 \x1b Nkosi\a ", "Visit fnb-secure.co.za", "www.fnb-help.co.za",
		"fnb\x00.co", "J.R.R. Tolkien", "O'Brien-Smith J.", "-", "\xff", strings.Repeat("b", 49) + " x.co.za yz",
		"a\u0301\u0301 \u0301\u0301\u0301\u0301", "Sipho\u3164 \u034fDla\ufe0fmini"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		name := personname.Clean(raw)
		if again := personname.Clean(name); again != name {
			t.Fatalf("Clean(Clean(%q)) = %q; want %q", raw, again, name)
		}
		switch parsed, p := personname.Parse(name); p {
		case personname.OK:
			if parsed != name {
				t.Fatalf("Parse(Clean(%q)) = %q; want %q", raw, parsed, name)
			}
		case personname.Empty, personname.NoLetter:
		default:
			t.Fatalf("Parse(Clean(%q)) = Parse(%q) refused: %v", raw, name, p)
		}
		if hasWebAddress(name) {
			t.Fatalf("Clean(%q) = %q keeps a web address", raw, name)
		}
	})
}

// hasWebAddress is the rule said another way than personname's pattern: a full stop followed
// by two letters (any script), or a dot-shaped letter followed by two Latin ones, combining
// marks skipped.
func hasWebAddress(name string) bool {
	runes := []rune(name)
	for i, r := range runes {
		var follows func(rune) bool
		switch r {
		case '.':
			follows = unicode.IsLetter
		case '\uA4F8', '\uA78F', '\u1427', '\u318D', '\u119E':
			follows = func(r rune) bool { return unicode.Is(unicode.Latin, r) }
		default:
			continue
		}
		n := 0
		for _, next := range runes[i+1:] {
			if unicode.Is(unicode.M, next) {
				continue
			}
			if !follows(next) {
				break
			}
			if n++; n == 2 {
				return true
			}
		}
	}
	return false
}
