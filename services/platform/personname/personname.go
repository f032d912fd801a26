// Package personname is the one rule for a person's name that every service applies: the
// account holder's first and last name (identity, profiles) and a transfer's recipient
// (transfers). A name is shown to other people (the recipient's SMS carries the sender's name),
// so it must read as what it is: letters and the few marks names use, nothing that changes how
// text displays or that a terminal, a database or an SMS gateway treats as a command. Two parts
// of the rule, Hidden and HasWebAddress, serve other short text that Thumela shows as its own
// words but that may hold digits and punctuation (a transfer's withdrawal location).
package personname

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxLen is the longest name accepted, in characters, after trimming: long enough for
// "Nomvuyiseko Wilhelmina-Christina" and short enough for an SMS.
const MaxLen = 50

// MsgCharacters is the one explanation for a name with a character outside the rule.
const MsgCharacters = "Names may only contain letters, spaces, apostrophes, hyphens and full stops."

// MsgWebAddress is the one explanation for a name that carries a web address.
const MsgWebAddress = "Names can't contain a web address."

// Problem is why a name is refused.
type Problem int

const (
	// OK: the name is acceptable.
	OK Problem = iota
	// Empty: nothing but white space.
	Empty
	// TooLong: more than MaxLen characters.
	TooLong
	// Characters: a character outside the rule (a control, format or bidirectional-override
	// character, a digit, a symbol, an emoji, invalid UTF-8).
	Characters
	// NoLetter: only punctuation ("-", "..").
	NoLetter
	// WebAddress: a web address ("Visit fnb-secure.co.za", "www.example"): a full stop followed
	// directly by two or more letters (see webAddress). The recipient's SMS shows the sender's
	// name next to the voucher number and PIN, where an address is a ready-made phishing lure.
	WebAddress
)

// webAddress finds what makes a web address of a name. Every host name ends in a full stop and a
// top-level domain of at least two letters (".za", ".com", ".рф"), so a full stop followed
// directly by two or more letters, of any script, is refused; combining marks between them do
// not part them. An initial is a full stop followed by at most one letter ("J.R.R.") or by a
// space ("J. R. R.", "St. John"), so initials pass.
//
// The second branch closes the one-character way round it: a letter that looks like a full
// stop or a middle dot (Lisu ꓸ U+A4F8, the sinological dot ꞏ U+A78F, Canadian syllabics ᐧ
// U+1427, Hangul araea ㆍ U+318D and ᆞ U+119E) counts as a full stop when Latin letters follow
// it ("fnb-secureꓸcoꓸza"). Only Latin ones: inside a word of its own script (Lisu, Cree,
// Korean) such a letter is just a letter. The dot-like punctuation (U+00B7, U+2024, U+3002,
// U+FF0E, ...) and digits are refused as Characters already.
//
// The web client checks the same pattern (web/src/lib/person-name.ts): change both together.
var webAddress = regexp.MustCompile(`\.\pM*(?:\pL\pM*){2}|[\x{A4F8}\x{A78F}\x{1427}\x{318D}\x{119E}]\pM*(?:\p{Latin}\pM*){2}`)

// MaxMarks is the most combining marks a name may stack on one letter: Vietnamese stacks two
// ("ệ" written as e, dot below, circumflex), Thai a vowel and a tone mark; a pile of them
// ("Zalgo" text) draws over the lines around the name wherever it is shown.
const MaxMarks = 3

// invisible reports a letter or mark that draws nothing: the Hangul fillers (U+3164, U+115F,
// U+1160, U+FFA0), the combining grapheme joiner (U+034F), the Khmer inherent vowels and the
// other default-ignorable code points that Unicode files as letters or marks, and the variation
// selectors (U+FE00–FE0F, the Mongolian ones, U+E0100–E01EF). A name of fillers reads as blank,
// and one with selectors or joiners inside is not the name it looks like.
func invisible(r rune) bool {
	return unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || unicode.Is(unicode.Variation_Selector, r)
}

// runeKind is what a character is to the names' rule, for Parse and Clean alike.
type runeKind int

const (
	kindRefused runeKind = iota // anything the rule does not allow, the invisible letters included
	kindSpace                   // U+0020 and the other space separators (Zs)
	kindLetter
	kindMark        // a combining mark
	kindPunctuation // the apostrophes (' and ’), the hyphen and the full stop
)

// kindOf classifies r by the names' rule.
func kindOf(r rune) runeKind {
	switch {
	case r == ' ' || unicode.Is(unicode.Zs, r):
		return kindSpace
	case invisible(r):
		return kindRefused
	case unicode.IsLetter(r):
		return kindLetter
	case unicode.Is(unicode.M, r):
		return kindMark
	case r == '\'', r == '’', r == '-', r == '.':
		return kindPunctuation
	}
	return kindRefused
}

// markRun counts the combining marks in a row: next reports whether a character of kind k may
// follow, which every kind but a mark beyond MaxMarks may (and which parts the run).
type markRun int

func (m *markRun) next(k runeKind) bool {
	if k != kindMark {
		*m = 0
		return true
	}
	*m++
	return int(*m) <= MaxMarks
}

// Hidden reports a character that a reader cannot see for what it is: a control (NUL, ESC, new
// lines), a format character (the bidirectional overrides and isolates such as U+202E that show
// text reversed, zero-width spaces and joiners, the soft hyphen, the byte order mark), a line or
// paragraph separator, a private-use, surrogate or unassigned code point. Every other character
// is a letter, mark, number, punctuation, symbol or space. A name never holds a hidden character
// (Parse refuses it with the rest of Characters); Hidden is the same rule for other short text
// that Thumela shows as its own words and that may hold digits and punctuation, as a transfer's
// withdrawal location does.
func Hidden(r rune) bool {
	return !unicode.IsPrint(r) && !unicode.Is(unicode.Zs, r)
}

// HasWebAddress reports whether text carries a web address by the names' rule (webAddress: a
// full stop followed directly by two or more letters, or a dot-shaped letter followed by two
// Latin ones), for other short text Thumela shows as its own words, such as a transfer's
// withdrawal location. Such text may hold punctuation a name may not, so the punctuation that
// browsers or readers take for a full stop counts as one here (see fullStop). For a name it
// answers as Parse does: Parse refuses those characters before it looks for an address.
func HasWebAddress(text string) bool {
	return webAddress.MatchString(strings.Map(fullStop, text))
}

// fullStop maps the punctuation that reads as a full stop in a host name to ".": the
// ideographic, fullwidth, halfwidth and small full stops and the one-dot leader, which browsers
// turn into "." in an address (IDNA), and the middle dots a reader would type as one
// ("fnb·co·za"). Every other character is left as it is.
func fullStop(r rune) rune {
	switch r {
	case '\u3002', '\uFF0E', '\uFF61', '\uFE52', '\u2024', // ideographic, fullwidth, halfwidth, small full stop; one-dot leader
		'\u00B7', '\u0387', '\u2027', '\u2219', '\u22C5', '\u30FB', '\uFF65': // middle dot, Greek ano teleia, hyphenation point, bullet and dot operators, katakana middle dots
		return '.'
	}
	return r
}

// Parse trims raw (white space of any kind at either end, as a pasted name carries), turns
// every run of spaces inside into one ASCII space and checks it: letters and
// combining marks of any script, spaces, apostrophes (' and ’), hyphens and full stops, at
// least one letter, no web address (a full stop followed directly by two or more letters), at
// most MaxLen characters. It returns the normalised name and OK, or the first problem found
// (characters before length, so "\x00" is never "too long"; a web address before length too).
func Parse(raw string) (string, Problem) {
	if !utf8.ValidString(raw) {
		return "", Characters
	}
	raw = strings.TrimSpace(raw)
	var b strings.Builder
	b.Grow(len(raw))
	space, letters := false, 0
	var marks markRun
	for _, r := range raw {
		k := kindOf(r)
		switch {
		case k == kindSpace:
			// Zs only: tabs, line breaks and U+2028/2029 are control or separator characters
			// that have no place in a name and are refused below.
			space = true
			marks.next(k)
			continue
		case k == kindRefused || !marks.next(k):
			return "", Characters
		case k == kindLetter:
			letters++
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	name := b.String()
	switch {
	case name == "":
		return "", Empty
	case letters == 0:
		return "", NoLetter
	case webAddress.MatchString(name):
		return "", WebAddress
	case utf8.RuneCountInString(name) > MaxLen:
		return "", TooLong
	}
	return name, OK
}

// Clean keeps what Parse allows of a name that was stored before the rule (or came from a
// token), dropping everything else and cutting it to MaxLen characters. It may return "".
//
// A word (what lies between spaces) that carries a web address is dropped whole: "Visit
// fnb-secure.co.za" is "Visit", "www.fnb-help.co.za" is "". Dropping only the full stops
// ("fnb-securecoza") or putting a space after them ("fnb-secure. co. za") would leave an
// address a reader can still type. A real name written that way before the rule ("T.Nkosi")
// loses that word; its owner can type it again with a space ("T. Nkosi").
func Clean(raw string) string {
	raw = strings.ToValidUTF8(raw, "")
	var marks markRun // among what is kept: a dropped character ("0") parts no pile of marks
	kept := strings.Map(func(r rune) rune {
		switch k := kindOf(r); {
		case k == kindRefused || !marks.next(k):
			return -1 // a character outside the rule, or the pile beyond what a letter carries
		case k == kindSpace:
			return ' '
		}
		return r
	}, raw)
	words := strings.Fields(kept)
	n := 0
	for _, w := range words {
		// Checked after the map: a character dropped there ("fnb\x00.co") must not hide one.
		if !webAddress.MatchString(w) {
			words[n] = w
			n++
		}
	}
	name := strings.Join(words[:n], " ")
	if utf8.RuneCountInString(name) > MaxLen {
		name = strings.TrimSpace(string([]rune(name)[:MaxLen]))
	}
	return name
}
