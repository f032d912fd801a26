package devsinks

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// Failure modes a number can be given (POST /dev/sms/failures).
const (
	// FailPermanent: the API accepts the message, then reports FAILED.NOT_SENT: an unreachable
	// number, final.
	FailPermanent = "permanent"
	// FailTransient: the API answers 503 to any submission to the number for a while: the
	// provider being down, which the sender retries.
	FailTransient = "transient"
)

// DefaultTransientFailure is how long a transient failure lasts when no duration is given.
const DefaultTransientFailure = 30 * time.Second

// ErrBadFailure is a failure request that names no valid number or mode.
var ErrBadFailure = errors.New("devsinks: bad failure request")

// Failure is one number's injected failure.
type Failure struct {
	Number string `json:"number"`
	Mode   string `json:"mode"`
	// Until is when it ends; nil: until cleared.
	Until *time.Time `json:"until"`
}

// Failures is the set of numbers the BulkSMS stand-in fails on purpose.
type Failures struct {
	mu sync.Mutex
	m  map[string]Failure
}

// NewFailures makes an empty set.
func NewFailures() *Failures { return &Failures{m: map[string]Failure{}} }

// Set makes number fail in mode for d from now (d ≤ 0: until cleared for a permanent failure,
// DefaultTransientFailure for a transient one). A number may be written as South Africans do
// (082 123 4567); it is kept in E.164.
func (f *Failures) Set(number, mode string, d time.Duration, now time.Time) (Failure, error) {
	e164, ok := NormalizeNumber(number)
	if !ok {
		return Failure{}, fmt.Errorf("%w: %q is not a phone number (use E.164, e.g. +27821234567)", ErrBadFailure, number)
	}
	var until *time.Time
	switch mode {
	case FailPermanent:
		if d > 0 {
			t := now.Add(d)
			until = &t
		}
	case FailTransient:
		if d <= 0 {
			d = DefaultTransientFailure
		}
		t := now.Add(d)
		until = &t
	default:
		return Failure{}, fmt.Errorf("%w: mode must be %q or %q", ErrBadFailure, FailPermanent, FailTransient)
	}
	fl := Failure{Number: e164, Mode: mode, Until: until}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.m[e164] = fl
	return fl, nil
}

// Clear removes every injected failure.
func (f *Failures) Clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.m)
}

// Mode returns number's failure mode at now, "" when it has none.
func (f *Failures) Mode(number string, now time.Time) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	fl, ok := f.m[number]
	if !ok {
		return ""
	}
	if fl.Until != nil && !now.Before(*fl.Until) {
		delete(f.m, number)
		return ""
	}
	return fl.Mode
}

// List returns the failures in force at now, by number.
func (f *Failures) List(now time.Time) []Failure {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Failure, 0, len(f.m))
	for n, fl := range f.m {
		if fl.Until != nil && !now.Before(*fl.Until) {
			delete(f.m, n)
			continue
		}
		out = append(out, fl)
	}
	slices.SortFunc(out, func(a, b Failure) int { return strings.Compare(a.Number, b.Number) })
	return out
}

var e164 = regexp.MustCompile(`^\+[1-9][0-9]{7,14}$`)

// ValidE164 reports whether s is an E.164 number: +, a country code and at most 15 digits.
func ValidE164(s string) bool { return e164.MatchString(s) }

// NormalizeNumber turns what a person types into E.164: spaces, dashes and brackets are
// dropped, a South African local number (0XX…) gets +27, "27…" gets its +.
func NormalizeNumber(s string) (string, bool) {
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune(" -().", r) {
			return -1
		}
		return r
	}, strings.TrimSpace(s))
	switch {
	case strings.HasPrefix(s, "00"):
		s = "+" + s[2:]
	case strings.HasPrefix(s, "0") && len(s) == 10:
		s = "+27" + s[1:]
	case strings.HasPrefix(s, "27") && len(s) == 11:
		s = "+" + s
	}
	return s, ValidE164(s)
}
