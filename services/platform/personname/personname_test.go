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
	}
	for raw, want := range ok {
		if got, p := personname.Parse(raw); p != personname.OK || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", raw, got, p, want)
		}
	}
	refused := map[string]personname.Problem{
		"":                               personname.Empty,
		"   ":                            personname.Empty,
		"\u00a0":                         personname.Empty,
		"-":                              personname.NoLetter,
		"'.'":                            personname.NoLetter,
		strings.Repeat("a", 51):          personname.TooLong,
		"Thandi\x00":                     personname.Characters, // NUL: PostgreSQL refuses it in text
		"\x00":                           personname.Characters,
		"Thandi\x1b[31m":                 personname.Characters, // ESC: terminal escapes
		"Thandi\a":                       personname.Characters, // BEL
		"\u202eisoknN":                   personname.Characters, // right-to-left override
		"Tha\u2066ndi":                   personname.Characters, // left-to-right isolate
		"Tha\u200bndi":                   personname.Characters, // zero-width space (format)
		"Tha\ufeffndi":                   personname.Characters, // byte order mark
		"Thandi\tNkosi":                  personname.Characters,
		"Thandi\nNkosi":                  personname.Characters,
		"Thandi\u2028Nkosi":              personname.Characters,
		"Thandi2":                        personname.Characters,
		"<b>Thandi</b>":                  personname.Characters,
		"Thandi 😀":                       personname.Characters,
		"Thandi\ue000":                   personname.Characters, // private use
		"Th\xffandi":                     personname.Characters, // invalid UTF-8
		strings.Repeat("a", 60) + "\x00": personname.Characters,
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
	}
	for raw, want := range cases {
		if got := personname.Clean(raw); got != want {
			t.Errorf("Clean(%q) = %q; want %q", raw, got, want)
		}
	}
}
