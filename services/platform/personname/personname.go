// Package personname is the one rule for a person's name that every service applies: the
// account holder's first and last name (identity, profiles) and a transfer's recipient
// (transfers). A name is shown to other people (the recipient's SMS carries the sender's name),
// so it must read as what it is: letters and the few marks names use, nothing that changes how
// text displays or that a terminal, a database or an SMS gateway treats as a command.
package personname

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxLen is the longest name accepted, in characters, after trimming: long enough for
// "Nomvuyiseko Wilhelmina-Christina" and short enough for an SMS.
const MaxLen = 50

// MsgCharacters is the one explanation for a name with a character outside the rule.
const MsgCharacters = "Names may only contain letters, spaces, apostrophes, hyphens and full stops."

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
)

// Parse trims raw (white space of any kind at either end, as a pasted name carries), turns
// every run of spaces inside into one ASCII space and checks it: letters and
// combining marks of any script, spaces, apostrophes (' and ’), hyphens and full stops, at
// least one letter, at most MaxLen characters. It returns the normalised name and OK, or the
// first problem found (characters before length, so "\x00" is never "too long").
func Parse(raw string) (string, Problem) {
	if !utf8.ValidString(raw) {
		return "", Characters
	}
	raw = strings.TrimSpace(raw)
	var b strings.Builder
	b.Grow(len(raw))
	space, letters := false, 0
	for _, r := range raw {
		switch {
		case r == ' ' || unicode.Is(unicode.Zs, r):
			// Zs only: tabs, line breaks and U+2028/2029 are control or separator characters
			// that have no place in a name and are refused below.
			space = true
			continue
		case unicode.IsLetter(r):
			letters++
		case unicode.Is(unicode.M, r), r == '\'', r == '’', r == '-', r == '.':
		default:
			return "", Characters
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
	case utf8.RuneCountInString(name) > MaxLen:
		return "", TooLong
	}
	return name, OK
}

// Clean keeps what Parse allows of a name that was stored before the rule (or came from a
// token), dropping everything else and cutting it to MaxLen characters. It may return "".
func Clean(raw string) string {
	raw = strings.ToValidUTF8(raw, "")
	kept := strings.Map(func(r rune) rune {
		switch {
		case r == ' ' || unicode.Is(unicode.Zs, r):
			return ' '
		case unicode.IsLetter(r), unicode.Is(unicode.M, r), r == '\'', r == '’', r == '-', r == '.':
			return r
		}
		return -1
	}, raw)
	name := strings.Join(strings.Fields(kept), " ")
	if utf8.RuneCountInString(name) > MaxLen {
		name = strings.TrimSpace(string([]rune(name)[:MaxLen]))
	}
	return name
}
