package personname_test

import (
	"strings"
	"testing"

	"github.com/thumela/thumela/services/platform/personname"
)

func TestParse(t *testing.T) {
	t.Parallel()
	ok := map[string]string{
		"Thandi":                      "Thandi",
		"  Nkosi ":                    "Nkosi",
		"Mary-Jane":                   "Mary-Jane",
		"O'Brien":                     "O'Brien",
		"N’Dour":                      "N’Dour",
		"J.R.R.":                      "J.R.R.",
		"van  der\u00a0Merwe":         "van der Merwe",
		"Zoë":                         "Zoë",
		"Zoe\u0308":                   "Zoe\u0308", // a combining diaeresis is a mark
		"Ṣàngó":                       "Ṣàngó",
		"Ἀθηνᾶ":                       "Ἀθηνᾶ",
		"محمد":                        "محمد",
		"张伟":                          "张伟",
		strings.Repeat("a", 50):       strings.Repeat("a", 50),
		" " + strings.Repeat("é", 50): strings.Repeat("é", 50),
		// Initials and abbreviations: a full stop followed by a space, by one letter or by nothing.
		"J. R. R. Tolkien":                 "J. R. R. Tolkien",
		"J.R.R. Tolkien":                   "J.R.R. Tolkien",
		"St. John":                         "St. John",
		"Mary-Jane O'Neil":                 "Mary-Jane O'Neil",
		"O'Brien-Ndlovu Jr.":               "O'Brien-Ndlovu Jr.",
		"Ma. Cristina":                     "Ma. Cristina",
		"Nomvuyiseko Wilhelmina-Christina": "Nomvuyiseko Wilhelmina-Christina",
		"Thandiwe Ngcobo-Mthembu":          "Thandiwe Ngcobo-Mthembu",
		"Zanelé Mbatha":                    "Zanelé Mbatha",
		"Hendrik Gerhardus du Preez":       "Hendrik Gerhardus du Preez",
		"Riëtte Coetzée":                   "Riëtte Coetzée",
		"Ds. Bêrend Oosthuizen":            "Ds. Bêrend Oosthuizen",
		"Dr. Nkosazana Dlamini-Zuma":       "Dr. Nkosazana Dlamini-Zuma",
		"A.B. de Villiers":                 "A.B. de Villiers",
		"Ndlovu ..":                        "Ndlovu ..",
		// A dot-shaped letter inside a word of its own script, and followed by one Latin letter.
		"ᒥᐧᔦᐤ": "ᒥᐧᔦᐤ",
		"Aꓸb":  "Aꓸb",
		// Marks as real names stack them: two on a Vietnamese vowel, a vowel and a tone in Thai.
		"Nguye\u0323\u0302n":  "Nguye\u0323\u0302n",
		"Nguyễn":              "Nguyễn",
		"สมศักดิ์":            "สมศักดิ์",
		"a\u0301\u0302\u0303": "a\u0301\u0302\u0303", // MaxMarks
	}
	for raw, want := range ok {
		if got, p := personname.Parse(raw); p != personname.OK || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", raw, got, p, want)
		}
	}
	refused := map[string]personname.Problem{
		"":                      personname.Empty,
		"   ":                   personname.Empty,
		"\u00a0":                personname.Empty,
		"-":                     personname.NoLetter,
		"'.'":                   personname.NoLetter,
		strings.Repeat("a", 51): personname.TooLong,
		"Thandi\x00":            personname.Characters, // NUL: PostgreSQL refuses it in text
		"\x00":                  personname.Characters,
		"Thandi\x1b[31m":        personname.Characters, // ESC: terminal escapes
		"Thandi\a":              personname.Characters, // BEL
		"\u202eisoknN":          personname.Characters, // right-to-left override
		"Tha\u2066ndi":          personname.Characters, // left-to-right isolate
		"Tha\u200bndi":          personname.Characters, // zero-width space (format)
		"Tha\ufeffndi":          personname.Characters, // byte order mark
		"Thandi\tNkosi":         personname.Characters,
		"Thandi\nNkosi":         personname.Characters,
		"Thandi\u2028Nkosi":     personname.Characters,
		"Thandi2":               personname.Characters,
		"<b>Thandi</b>":         personname.Characters,
		"Thandi 😀":              personname.Characters,
		"Thandi\ue000":          personname.Characters, // private use
		// Letters and marks that draw nothing: a blank-looking name, or one that is not the name
		// it looks like.
		"\u3164":             personname.Characters, // Hangul filler
		"\uffa0":             personname.Characters, // halfwidth Hangul filler
		"Sipho\u115fDlamini": personname.Characters, // Hangul choseong filler
		"Sipho\u1160Dlamini": personname.Characters, // Hangul jungseong filler
		"Sipho\u034fDlamini": personname.Characters, // combining grapheme joiner
		"Sipho\u17b4":        personname.Characters, // Khmer inherent vowel
		"Sipho\ufe0fDlamini": personname.Characters, // variation selector
		"Sipho\U000E0100":    personname.Characters, // variation selector supplement
		"Sipho\u180bDlamini": personname.Characters, // Mongolian free variation selector
		// More marks on one letter than any name stacks ("Zalgo" text draws over its neighbours).
		"Sipho\u0301\u0301\u0301\u0301":        personname.Characters,
		"Sipho" + strings.Repeat("\u0301", 40): personname.Characters,
		"Th\xffandi":                           personname.Characters, // invalid UTF-8
		strings.Repeat("a", 60) + "\x00":       personname.Characters,
		// A web address: a full stop followed directly by two or more letters.
		"Visit fnb-secure.co.za":       personname.WebAddress,
		"www.fnb-help.co.za":           personname.WebAddress,
		"fnb.co":                       personname.WebAddress,
		"Thandi .com":                  personname.WebAddress,
		".za":                          personname.WebAddress,
		"fnb-secure..co":               personname.WebAddress,
		"J.R.R.Tolkien":                personname.WebAddress, // ".Tolkien": write "J.R.R. Tolkien"
		"St.John":                      personname.WebAddress, // write "St. John"
		"mtn.рф":                       personname.WebAddress, // letters of any script
		"fnb.中国":                       personname.WebAddress,
		"fnb.c\u0301om":                personname.WebAddress, // a mark does not part the letters
		"fnb.\u0301co":                 personname.WebAddress,
		"Visit fnb-secure.co.za today": personname.WebAddress,
		"fnb-secure\u00a0.co\u00a0.za": personname.WebAddress, // ". co" is no address, ".co" is
		"fnb-secureꓸcoꓸza":             personname.WebAddress, // Lisu U+A4F8 looks like "."
		"fnbꞏcom":                      personname.WebAddress, // U+A78F, a middle dot
		"fnbᐧcom":                      personname.WebAddress, // U+1427
		"fnbㆍcom":                      personname.WebAddress, // U+318D
		"fnbᆞcom":                      personname.WebAddress, // U+119E
		"Thandi fnb.co.za" + strings.Repeat("a", 50): personname.WebAddress, // before length
		// Dot-like punctuation, which browsers also take for a full stop, was refused already.
		"fnb。co。za": personname.Characters,
		"fnb．co．za": personname.Characters,
		"fnb·co·za": personname.Characters,
		"fnb․co․za": personname.Characters,
		"fnb/co":    personname.Characters,
	}
	for raw, want := range refused {
		if got, p := personname.Parse(raw); p != want || got != "" {
			t.Errorf("Parse(%q) = %q, %v; want problem %v", raw, got, p, want)
		}
	}
}

func TestClean(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"Thandi":                          "Thandi",
		" \u202eThandi\x00 \x1b Nkosi\a ": "Thandi Nkosi",
		"O'Brien-Smith J.":                "O'Brien-Smith J.",
		"😀":                               "",
		strings.Repeat("b", 70):           strings.Repeat("b", 50),
		strings.Repeat("b", 49) + " xyz":  strings.Repeat("b", 49),
		"Th\xffandi":                      "Thandi",
		// A word that carries a web address goes whole.
		"Visit fnb-secure.co.za":                "Visit",
		"www.fnb-help.co.za":                    "",
		"Thandi St.John":                        "Thandi",
		"J. R. R. Tolkien":                      "J. R. R. Tolkien",
		"J.R.R. Tolkien":                        "J.R.R. Tolkien",
		"Visit fnb\x00.co\u202e.za now":         "Visit now", // checked after the other characters go
		"fnb-secureꓸcoꓸza Nkosi":                "Nkosi",
		strings.Repeat("b", 45) + " x.co.za yz": strings.Repeat("b", 45) + " yz",
		"Sipho\u3164 \u034fDlami\ufe0fni":       "Sipho Dlamini",
		"Sipho" + strings.Repeat("\u0301", 40):  "Sipho\u0301\u0301\u0301", // the pile beyond MaxMarks goes
	}
	for raw, want := range cases {
		if got := personname.Clean(raw); got != want {
			t.Errorf("Clean(%q) = %q; want %q", raw, got, want)
		}
	}
}

// TestHidden: what a reader cannot see is hidden, and every hidden character is one a name
// refuses; letters, digits, punctuation, symbols and spaces are not hidden.
func TestHidden(t *testing.T) {
	t.Parallel()
	for _, r := range []rune{'\x00', '\x1b', '\a', '\t', '\n', '\u0085', '\u202e', '\u202a', '\u2066', '\u2069', '\u200b',
		'\u200c', '\u200d', '\u200e', '\u200f', '\u00ad', '\u2060', '\ufeff', '\u2028', '\u2029', '\ue000', '\U000F0000', '\U000E0001'} {
		if !personname.Hidden(r) {
			t.Errorf("Hidden(%U) = false", r)
		}
		if name, p := personname.Parse("Tha" + string(r) + "ndi"); p != personname.Characters {
			t.Errorf("Parse(%U inside a name) = %q, %v; want Characters", r, name, p)
		}
	}
	for _, r := range []rune{'a', 'é', '\u0301', '李', '0', '٣', ',', '&', '(', '.', '·', '😀', 'R', ' ', '\u00a0', '\u3000'} {
		if personname.Hidden(r) {
			t.Errorf("Hidden(%U) = true", r)
		}
	}
}

// TestHasWebAddress: the names' rule for other text, where the punctuation that reads as a full
// stop counts as one; for a name it agrees with Parse.
func TestHasWebAddress(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"www.example.com", "https://x.co", "Visit fnb-secure.co.za today", "St.Georges Mall",
		"fnb-secure。co。za", "fnb-secure．co．za", "fnb-secure｡co｡za", "fnb-secure﹒co﹒za", "fnb-secure․co․za",
		"fnb-secure·co·za", "fnb-secure·co", "fnb-secure・co", "fnb-secureꓸcoꓸza", "fnb.c\u0301om"} {
		if !personname.HasWebAddress(s) {
			t.Errorf("HasWebAddress(%q) = false", s)
		}
	}
	for _, s := range []string{"Sandton City", "Café Mall", "Shop 12, Mall of Africa (Midrand) & Co.", "St. George's Mall",
		"J.R.R. Tolkien", "Unit 4.12", "No. 5 · Main Road", "ᒥᐧᔦᐤ", "Aꓸb", ""} {
		if personname.HasWebAddress(s) {
			t.Errorf("HasWebAddress(%q) = true", s)
		}
	}
	for _, s := range []string{"Visit fnb-secure.co.za", "J.R.R.Tolkien", "J. R. R. Tolkien", "St. John", "fnb-secureꓸcoꓸza", "Thandi"} {
		_, p := personname.Parse(s)
		if personname.HasWebAddress(s) != (p == personname.WebAddress) {
			t.Errorf("HasWebAddress(%q) = %v, but Parse says %v", s, personname.HasWebAddress(s), p)
		}
	}
}
