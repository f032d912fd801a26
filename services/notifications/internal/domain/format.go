package domain

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	_ "time/tzdata" // Africa/Johannesburg even where the system has no zoneinfo (scratch images)

	"golang.org/x/text/unicode/norm"

	"github.com/thumela/thumela/services/platform/randfmt"
)

// Johannesburg is the time zone every time in a message is shown in (SAST, no daylight saving).
var Johannesburg = mustLoad("Africa/Johannesburg")

func mustLoad(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err) // embedded by time/tzdata
	}
	return loc
}

// Rand formats integer cents as an SMS shows money: R1,234.00, in plain ASCII so the SMS stays
// GSM 7-bit. E-mails write RandEnZA, as the web does.
func Rand(cents int64) string { return randfmt.ASCII(cents) }

// RandEnZA formats integer cents as the web client, the PDFs and the statements show money, and
// so as every e-mail does: "R1 234,56", the thousands grouped by a no-break space.
func RandEnZA(cents int64) string { return randfmt.EnZA(cents) }

// When formats t in Johannesburg time, e.g. "25 Mar 2026, 13:12".
func When(t time.Time) string { return t.In(Johannesburg).Format("2 Jan 2006, 15:04") }

// Day formats a calendar date with its weekday, e.g. "Fri 27 Mar 2026": a weekly send's
// sender thinks of it by its day.
func Day(d time.Time) string { return d.Format("Mon 2 Jan 2006") }

// DisplayPhone spaces a South African E.164 number as people write it (+27 82 123 4567);
// other numbers are shown as they are.
func DisplayPhone(e164 string) string {
	if len(e164) == 12 && strings.HasPrefix(e164, "+27") && allDigits(e164[1:]) {
		return e164[:3] + " " + e164[3:5] + " " + e164[5:8] + " " + e164[8:]
	}
	return e164
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// Sanitize prepares text that someone typed (a sender's name, a support message's subject) to
// be shown in a message: invalid UTF-8, control characters and every Unicode format character
// (bidi overrides and isolates, zero-width joiners, BOMs: what makes text display other than it
// reads) are removed, private-use and unassigned code points too, runs of white space become
// one space, and the result is trimmed and cut to limit characters.
func Sanitize(s string, limit int) string {
	return sanitize(s, limit, false, false)
}

// SanitizeMultiline is Sanitize keeping line breaks (at most two in a row): for a support
// message's body.
func SanitizeMultiline(s string, limit int) string {
	return sanitize(s, limit, true, false)
}

// sanitizeKeepingAmounts is Sanitize keeping no-break spaces: those of amounts written as the
// web writes them ("R1 500,00", RandEnZA), so a line never breaks inside one. For a rendered
// e-mail's subject, whose values were each sanitised already (any no-break space typed in them
// is a space by then), and for a sentence transfers wrote for the sender ("your daily limit of
// R5 000,00").
func sanitizeKeepingAmounts(s string, limit int) string {
	return sanitize(s, limit, false, true)
}

func sanitize(s string, limit int, keepLines, keepNoBreakSpaces bool) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	space, newlines := false, 0
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029':
			if keepLines {
				space = false
				if newlines < 2 {
					b.WriteByte('\n')
				}
				newlines++
				continue
			}
			space = true
			continue
		case r == '\u00a0' && keepNoBreakSpaces:
			// Written as it is, below.
		case unicode.IsSpace(r):
			space = true
			continue
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r), unicode.Is(unicode.Co, r),
			unicode.Is(unicode.Cs, r), !unicode.IsPrint(r) && !unicode.IsSpace(r):
			continue
		}
		if space && b.Len() > 0 && newlines == 0 {
			b.WriteByte(' ')
		}
		space, newlines = false, 0
		b.WriteRune(r)
	}
	out := strings.TrimSpace(b.String())
	if limit > 0 && utf8.RuneCountInString(out) > limit {
		out = strings.TrimSpace(string([]rune(out)[:limit]))
	}
	return out
}

// gsmBasic is the GSM 03.38 default alphabet (one septet each); gsmExtension needs an escape
// septet before it (two each).
const (
	gsmBasic = "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?" +
		"¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
	gsmExtension = "^{}\\[~]|€\f"
)

// gsmReplacements are characters people type that the GSM alphabet lacks but has a close
// equivalent of.
var gsmReplacements = map[rune]string{
	'‘': "'", '’': "'", '‚': "'", '‛': "'", '′': "'", '`': "'", '´': "'",
	'“': "\"", '”': "\"", '„': "\"", '″': "\"",
	'–': "-", '—': "-", '‐': "-", '‑': "-", '−': "-",
	'…': "...", '\u00a0': " ", '\t': " ",
}

// ToGSM rewrites s in the GSM 03.38 alphabet, so that an SMS is sent as 7-bit text (160
// characters a part) instead of UCS-2 (70): typographic quotes and dashes become their ASCII
// forms, accents the alphabet lacks are dropped (ş → s), and anything else without an
// equivalent is removed.
func ToGSM(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(gsmBasic, r) || strings.ContainsRune(gsmExtension, r) {
			b.WriteRune(r)
			continue
		}
		if rep, ok := gsmReplacements[r]; ok {
			b.WriteString(rep)
			continue
		}
		// Decompose and keep the base letters the alphabet has.
		for _, d := range norm.NFD.String(string(r)) {
			if strings.ContainsRune(gsmBasic, d) && d != '\n' && d != '\r' {
				b.WriteRune(d)
			}
		}
	}
	return b.String()
}

// SMSParts is how many parts an SMS of s takes when sent as GSM 7-bit text: one up to 160
// septets, else 153 a part (the rest holds the concatenation header). Characters outside the
// alphabet make it UCS-2: 70, else 67 a part.
func SMSParts(s string) int {
	septets, gsm := 0, true
	for _, r := range s {
		switch {
		case strings.ContainsRune(gsmBasic, r):
			septets++
		case strings.ContainsRune(gsmExtension, r):
			septets += 2
		default:
			gsm = false
		}
	}
	if !gsm {
		units := utf16Units(s)
		if units <= 70 {
			return 1
		}
		return (units + 66) / 67
	}
	if septets <= 160 {
		return 1
	}
	return (septets + 152) / 153
}

// utf16Units is the length of s in UCS-2/UTF-16 code units.
func utf16Units(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}
