// Package secretsleak proves that the secrets Thumela sends by e-mail and SMS never rest in
// clear: its test runs the whole stack (bin/ and web/dist, a throw-away database and NATS),
// signs a user up, asks for a password reset, sends money, waits until the voucher SMS was
// delivered by the SMS provider's stand-in, and then searches a dump of the database and every
// message of every JetStream stream (and every message seen on the bus while the test ran) for
// the one-time codes, the voucher's PIN and the rendered SMS. It also checks that the
// notification requests left the outboxes once published and the work queue once delivered.
//
// This file is the search: exact strings, in clear and as PostgreSQL's hex of bytea, and the
// one-time codes as whole numbers only, so that a timestamp's microseconds or a run of hex in a
// hash cannot be taken for one.
package secretsleak

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// Needle is one thing that must not be found.
type Needle struct {
	// What names it in a failure ("the sign-up code", "the PIN as params").
	What string
	// Value is the exact bytes.
	Value []byte
	// Number marks a bare number (a one-time code): it counts only as a whole number, not
	// inside a longer run of digits, letters or a decimal's fraction.
	Number bool
	// FoldCase matches ASCII letters in either case ("PIN 1234", "pin 1234").
	FoldCase bool
}

// Finding is one place a needle was found.
type Finding struct {
	What    string
	Where   string
	Excerpt string
}

func (f Finding) String() string {
	return fmt.Sprintf("%s in %s: …%s…", f.What, f.Where, f.Excerpt)
}

// CodeNeedles are the needles of a one-time code: the bare number.
func CodeNeedles(what, code string) []Needle {
	return []Needle{{What: what, Value: []byte(code), Number: true}}
}

// PINNeedles are the needles of a voucher PIN: four digits are everywhere (years, amounts,
// ports), so the PIN is looked for where a message or a record would put it: after "PIN", as a
// field named pin in JSON, logfmt or a protobuf map entry (a template's params).
func PINNeedles(pin string) []Needle {
	var out []Needle
	for _, f := range []string{"PIN " + pin, "PIN: " + pin, "PIN:" + pin, "PIN=" + pin, "PIN is " + pin,
		`"pin":"` + pin + `"`, `"pin": "` + pin + `"`, `pin: "` + pin + `"`} {
		out = append(out, Needle{What: "the PIN (" + f + ")", Value: []byte(f), FoldCase: true})
	}
	// A map<string,string> entry {1: "pin", 2: pin}, as NotificationRequest.params would hold it.
	entry := protowire.AppendTag(nil, 1, protowire.BytesType)
	entry = protowire.AppendString(entry, "pin")
	entry = protowire.AppendTag(entry, 2, protowire.BytesType)
	entry = protowire.AppendString(entry, pin)
	out = append(out, Needle{What: "the PIN as a protobuf map entry pin=" + pin, Value: entry})
	return out
}

// TextNeedles are the needles of a rendered message: the whole text, and each of its lines and
// sentences that holds one of secrets (a sentence is what a template would have produced; it
// is long enough never to occur by chance).
func TextNeedles(what, text string, secrets ...string) []Needle {
	out := []Needle{{What: what + " (whole)", Value: []byte(text)}}
	seen := map[string]bool{text: true}
	for _, frag := range fragments(text) {
		if seen[frag] || len(frag) < 12 {
			continue
		}
		for _, s := range secrets {
			if s != "" && strings.Contains(frag, s) {
				seen[frag] = true
				out = append(out, Needle{What: fmt.Sprintf("%s (fragment %q)", what, frag), Value: []byte(frag)})
				break
			}
		}
	}
	return out
}

// fragments splits text into lines, and lines into sentences ending in ". ".
func fragments(text string) []string {
	var out []string
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		out = append(out, line)
		for s := range strings.SplitSeq(line, ". ") {
			out = append(out, strings.TrimSpace(s))
		}
	}
	return out
}

// Search looks for every needle in data, which is described by where, both as it is and as hex
// (how pg_dump writes bytea, e.g. an outbox row's payload). For binary data (a protobuf
// message), nested is true: a number is then also looked for in each length-delimited field
// on its own, since a field's neighbours are bytes that may happen to be digits or letters.
func Search(where string, data []byte, nested bool, needles []Needle) []Finding {
	var out []Finding
	for _, n := range needles {
		if i := find(data, n); i >= 0 {
			out = append(out, Finding{What: n.What, Where: where, Excerpt: excerpt(data, i, len(n.Value))})
			continue
		}
		// Even a number's hex is 12 hex digits or more: nothing has it by chance.
		h := Needle{What: n.What + " (as hex)", Value: []byte(hex.EncodeToString(n.Value)), FoldCase: true}
		if i := find(data, h); i >= 0 {
			out = append(out, Finding{What: h.What, Where: where, Excerpt: excerpt(data, i, len(h.Value))})
			continue
		}
		if nested && n.Number {
			for _, field := range lenFields(data, 0) {
				if i := find(field, n); i >= 0 {
					out = append(out, Finding{What: n.What + " (in a protobuf field)", Where: where, Excerpt: excerpt(field, i, len(n.Value))})
					break
				}
			}
		}
	}
	return out
}

// find returns the first offset of n in data where it counts, or -1.
func find(data []byte, n Needle) int {
	hay, val := data, n.Value
	if n.FoldCase {
		hay, val = bytes.ToLower(data), bytes.ToLower(n.Value)
	}
	for off := 0; ; {
		i := bytes.Index(hay[off:], val)
		if i < 0 {
			return -1
		}
		i += off
		if !n.Number || wholeNumber(hay, i, len(val)) {
			return i
		}
		off = i + 1
	}
}

// wholeNumber reports whether data[i:i+n] stands alone: not preceded by a digit, a letter or a
// decimal point (a timestamp's microseconds, hex), nor followed by a digit or a letter.
func wholeNumber(data []byte, i, n int) bool {
	if i > 0 {
		if c := data[i-1]; isAlnum(c) || c == '.' {
			return false
		}
	}
	if j := i + n; j < len(data) && isAlnum(data[j]) {
		return false
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// lenFields returns every length-delimited field of b read as a protobuf message, and those of
// the fields that are messages themselves, to a depth of 8. Bytes that are not a message give
// nothing.
func lenFields(b []byte, depth int) [][]byte {
	if depth > 8 {
		return nil
	}
	var out [][]byte
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || num == 0 {
			return out
		}
		b = b[n:]
		if typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return out
			}
			out = append(out, v)
			out = append(out, lenFields(v, depth+1)...)
			b = b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return out
		}
		b = b[m:]
	}
	return out
}

func excerpt(data []byte, i, n int) string {
	from, to := max(0, i-40), min(len(data), i+n+40)
	return strings.ToValidUTF8(string(bytes.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '·'
		}
		return r
	}, data[from:to])), "·")
}
