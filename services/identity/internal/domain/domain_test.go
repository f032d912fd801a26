package domain

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash/maphash"
	"io"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseEmail(t *testing.T) {
	t.Parallel()
	valid := map[string]string{
		"thandi@example.com":              "thandi@example.com",
		"  Thandi.Nkosi@Example.CO.ZA  ":  "thandi.nkosi@example.co.za",
		"USER+tag@Mail.Example.org":       "user+tag@mail.example.org",
		"a_b-c@sub-domain.example.africa": "a_b-c@sub-domain.example.africa",
		"x@xn--bcher-kva.example":         "x@xn--bcher-kva.example",
	}
	for in, want := range valid {
		e, err := ParseEmail(in)
		if err != nil {
			t.Errorf("ParseEmail(%q): %v", in, err)
			continue
		}
		if e.String() != want {
			t.Errorf("ParseEmail(%q) = %q, want %q", in, e.String(), want)
		}
	}
	for _, in := range []string{
		"", " ", "plain", "@example.com", "user@", "user@localhost", "user@@example.com",
		"us er@example.com", ".user@example.com", "user.@example.com", "us..er@example.com",
		"user@-example.com", "user@example-.com", "user@example..com", "user@example.c",
		"user@127.0.0.1", "\"quoted\"@example.com", "user@exa_mple.com", "üser@example.com",
		strings.Repeat("a", 65) + "@example.com", "a@" + strings.Repeat("b", 250) + ".com",
	} {
		_, err := ParseEmail(in)
		var v *ValidationError
		if !errors.As(err, &v) || v.Violations[0].Field != "email" || v.Violations[0].Description != MsgInvalidEmail {
			t.Errorf("ParseEmail(%q) = %v, want a validation error on email", in, err)
		}
	}
}

func TestParseName(t *testing.T) {
	t.Parallel()
	n, err := ParseName("  Thandi ", "\tNkosi")
	if err != nil || n.First() != "Thandi" || n.Last() != "Nkosi" {
		t.Fatalf("ParseName = %+v, %v", n, err)
	}
	if _, err := ParseName(strings.Repeat("é", 50), "O'Brien-Smith J."); err != nil {
		t.Fatalf("50 characters refused: %v", err)
	}
	_, err = ParseName(" ", strings.Repeat("a", 51))
	var v *ValidationError
	if !errors.As(err, &v) || len(v.Violations) != 2 {
		t.Fatalf("ParseName(blank, too long) = %v", err)
	}
	if v.Violations[0] != (FieldViolation{"first_name", "First name is required."}) ||
		v.Violations[1] != (FieldViolation{"last_name", "Last name must be at most 50 characters."}) {
		t.Fatalf("violations = %+v", v.Violations)
	}
	// Control, format and bidirectional-override characters are refused with one clear reason.
	for _, bad := range []string{"Tha\x00ndi", "Thandi\x1b[2J", "Thandi\a", "\u202eisoknN", "Tha\u200dndi", "Thandi1"} {
		_, err := ParseName(bad, "Nkosi")
		if !errors.As(err, &v) || len(v.Violations) != 1 ||
			v.Violations[0] != (FieldViolation{"first_name", "Names may only contain letters, spaces, apostrophes, hyphens and full stops."}) {
			t.Fatalf("ParseName(%q) = %v", bad, err)
		}
	}
	if _, err := ParseName("Thandi", "--"); !errors.As(err, &v) || v.Violations[0].Field != "last_name" {
		t.Fatalf("a name without a letter: %v", err)
	}
	// A web address: the first name is the sender's name in the recipient's voucher SMS, next
	// to the voucher number and PIN ("Thumela: Visit fnb-secure.co.za sent you R20.00").
	for _, bad := range []string{"Visit fnb-secure.co.za", "www.fnb-help.co.za", "St.John", "fnb-secureꓸcoꓸza"} {
		_, err := ParseName(bad, "Nkosi")
		if !errors.As(err, &v) || len(v.Violations) != 1 ||
			v.Violations[0] != (FieldViolation{"first_name", "Names can't contain a web address."}) {
			t.Fatalf("ParseName(%q) = %v", bad, err)
		}
	}
	if _, err := ParseName("Thandi", "Nkosi.co.za"); !errors.As(err, &v) || len(v.Violations) != 1 ||
		v.Violations[0] != (FieldViolation{"last_name", "Names can't contain a web address."}) {
		t.Fatalf("a web address as the last name: %v", err)
	}
	// Initials, with or without spaces, and the names people have.
	for _, names := range [][2]string{{"J. R. R.", "Tolkien"}, {"J.R.R.", "Tolkien"}, {"Mary-Jane", "O'Neil"},
		{"St. John", "Smith"}, {"Nomvuyiseko", "Wilhelmina-Christina"}, {"Riëtte", "Coetzée"}, {"Zanelé", "Mbatha"}} {
		if n, err := ParseName(names[0], names[1]); err != nil || n.First() != names[0] || n.Last() != names[1] {
			t.Fatalf("ParseName(%q, %q) = %+v, %v", names[0], names[1], n, err)
		}
	}
}

func TestPasswordProblems(t *testing.T) {
	t.Parallel()
	email := MustEmail("thandi.nkosi@example.com")
	tests := []struct {
		name string
		pw   string
		want []string
	}{
		{"good", "correct-horse-battery", nil},
		{"exactly 8", "Kx9#mQ2v", nil},
		{"7 characters", "Kx9#mQ2", []string{MsgPasswordTooShort}},
		{"empty", "", []string{MsgPasswordTooShort}},
		{"128 accepted", strings.Repeat("Zq7!", 32), nil},
		{"129 refused", strings.Repeat("Zq7!", 32) + "x", []string{MsgPasswordTooLong}},
		{"length in characters, not bytes", "ñandú-ñandú", nil},
		{"common", "password", []string{MsgPasswordCommon}},
		{"common, other case", "PassWord", []string{MsgPasswordCommon}},
		{"common with digits", "Password123!", []string{MsgPasswordCommon}},
		{"common with swaps", "p@ssw0rd", []string{MsgPasswordCommon}},
		{"common and short", "qwerty", []string{MsgPasswordTooShort, MsgPasswordCommon}},
		{"south african favourite", "Springboks2023", []string{MsgPasswordCommon}},
		{"sequence", "12345678", []string{MsgPasswordCommon}},
		{"letter sequence", "abcdefghij", []string{MsgPasswordCommon}},
		{"repeated", "zzzzzzzzzzzz", []string{MsgPasswordCommon}},
		{"the e-mail", "Thandi.Nkosi@example.com", []string{MsgPasswordIsEmail}},
		{"the e-mail's local part", "thandi.nkosi", []string{MsgPasswordIsEmail}},
		{"containing the local part", "My-THANDI.NKOSI-2024", []string{MsgPasswordIsEmail}},
		{"containing the e-mail", "x thandi.nkosi@example.com x", []string{MsgPasswordIsEmail}},
		{"eight spaces", "        ", []string{MsgPasswordBlank}},
		{"white space of any kind", " \t \u00a0\u3000 \n ", []string{MsgPasswordBlank}},
		{"a space inside is fine", "correct horse battery", nil},
		{"deep in the breached list", "revolutiontt", []string{MsgPasswordCommon}},
		{"the breached list's last entry", "Neznam12", []string{MsgPasswordCommon}},
		{"breached with a suffix", "hithere1!", []string{MsgPasswordCommon}},
		{"digits that are not listed", "10097400", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := PasswordProblems(tt.pw, email); !slices.Equal(got, tt.want) {
				t.Errorf("PasswordProblems(%q) = %q, want %q", tt.pw, got, tt.want)
			}
		})
	}
}

func TestPasswordLocalPartRule(t *testing.T) {
	t.Parallel()
	// A local part under 3 characters is looked for only as the whole address.
	short := MustEmail("jo@example.com")
	if got := PasswordProblems("enjoyable-walks", short); got != nil {
		t.Fatalf("short local part: %q", got)
	}
	if got := PasswordProblems("JO@example.com", short); !slices.Contains(got, MsgPasswordIsEmail) {
		t.Fatalf("the whole short address: %q", got)
	}
	if got := PasswordProblems("xsipho-on-the-moon", MustEmail("sipho@example.com")); !slices.Equal(got, []string{MsgPasswordIsEmail}) {
		t.Fatalf("3+ local part inside: %q", got)
	}
}

func TestCommonPasswordList(t *testing.T) {
	t.Parallel()
	if n := CommonPasswordCount(); n < 100_000 {
		t.Fatalf("only %d common passwords embedded", n)
	}
	// Every line of both files is found, and a sample of strong passwords is not.
	zr, err := gzip.NewReader(bytes.NewReader(breachedPasswords))
	if err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(all)), "\n")
	if len(lines) != 100_000 {
		t.Fatalf("%d lines in the breached list", len(lines))
	}
	for _, line := range append(lines, "springbok", "amandla", "thumela123") {
		if !commonPasswords().has(line) {
			t.Fatalf("%q not found", line)
		}
	}
	for _, pw := range []string{"correct-horse-battery", "Kx9#mQ2v", "ñandú-ñandú", "Correct-Horse-42", "umbrella-taxi-rank-77"} {
		if IsCommonPassword(pw) {
			t.Errorf("%q is judged common", pw)
		}
	}
}

// TestCommonPasswordMemory measures what the loaded list keeps on the heap: the figure in
// docs/security-accounts.md. The identity process must stay small.
func TestCommonPasswordMemory(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p := &passwordSet{seed: maphash.MakeSeed()}
	zr, err := gzip.NewReader(bytes.NewReader(breachedPasswords))
	if err != nil {
		t.Fatal(err)
	}
	readPasswordList(p, zr, false)
	slices.Sort(p.hashes)
	runtime.GC()
	runtime.ReadMemStats(&after)
	kept := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d hashes keep %d KiB of heap", len(p.hashes), kept/1024)
	if kept > 2<<20 {
		t.Fatalf("the list keeps %d KiB", kept/1024)
	}
	runtime.KeepAlive(p)
}

var phcPattern = regexp.MustCompile(`^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`)

func TestHashPassword(t *testing.T) {
	t.Parallel()
	const pw = "correct-horse-battery"
	h, err := HashPassword(pw)
	if err != nil {
		t.Fatal(err)
	}
	if !phcPattern.MatchString(h) {
		t.Fatalf("hash %q is not in PHC format", h)
	}
	if ok, err := VerifyPassword(h, pw); err != nil || !ok {
		t.Fatalf("VerifyPassword(right) = %v, %v", ok, err)
	}
	if ok, err := VerifyPassword(h, pw+"x"); err != nil || ok {
		t.Fatalf("VerifyPassword(wrong) = %v, %v", ok, err)
	}
	h2, _ := HashPassword(pw)
	if h2 == h {
		t.Fatal("two hashes of one password are equal: the salt is not random")
	}
	if NeedsRehash(h) {
		t.Fatal("a fresh hash needs a rehash")
	}
	if !NeedsRehash("$argon2id$v=19$m=8192,t=2,p=1$c2FsdHNhbHRzYWx0$" + strings.Repeat("A", 43)) {
		t.Fatal("a weaker hash does not need a rehash")
	}
}

func TestHashPasswordHasNoLengthLimit(t *testing.T) {
	t.Parallel()
	// bcrypt would see these as equal: they differ after byte 72.
	a := strings.Repeat("k", 100) + "-one"
	b := strings.Repeat("k", 100) + "-two"
	h, err := HashPassword(a)
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := VerifyPassword(h, b); ok {
		t.Fatal("a password differing after byte 100 verified")
	}
	if ok, _ := VerifyPassword(h, a); !ok {
		t.Fatal("a long password did not verify")
	}
}

func TestVerifyPasswordMalformed(t *testing.T) {
	t.Parallel()
	good, _ := HashPassword("correct-horse-battery")
	parts := strings.Split(good, "$")
	for _, bad := range []string{
		"", "plain", "$2a$10$abcdefghijklmnopqrstuv",
		strings.Replace(good, "argon2id", "argon2i", 1),
		strings.Replace(good, "v=19", "v=16", 1),
		strings.Replace(good, "m=19456", "m=99999999", 1),
		strings.Replace(good, "p=1", "p=1x", 1),
		"$argon2id$v=19$m=19456,t=2,p=1$" + parts[4] + "$not base64!",
	} {
		if _, err := VerifyPassword(bad, "x"); !errors.Is(err, ErrMalformedHash) {
			t.Errorf("VerifyPassword(%q) error = %v, want ErrMalformedHash", bad, err)
		}
	}
}

func TestRandomDigitsUniform(t *testing.T) {
	t.Parallel()
	const draws = 60_000
	var counts [10][CodeLen]int
	seen := map[string]bool{}
	for range draws {
		d, err := RandomDigits(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		if len(d) != CodeLen || strings.Trim(d, "0123456789") != "" {
			t.Fatalf("RandomDigits = %q", d)
		}
		seen[d] = true
		for i, c := range d {
			counts[c-'0'][i]++
		}
	}
	// Each digit is expected draws/10 = 6000 times at each position; the standard deviation is
	// about 73, so ±600 (8 sigma) only fails for a broken generator.
	for digit := range counts {
		for pos, n := range counts[digit] {
			if n < 5400 || n > 6600 {
				t.Errorf("digit %d at position %d drawn %d times of %d", digit, pos, n, draws)
			}
		}
	}
	if len(seen) < draws*9/10 {
		t.Errorf("only %d distinct codes in %d draws", len(seen), draws)
	}
}

func TestRandomDigitsRejectsBiasedDraws(t *testing.T) {
	t.Parallel()
	// 0xFFFFFFFF is above the largest multiple of 10^6 below 2^32 and must be thrown away;
	// 1234567 is accepted as 234567.
	var buf bytes.Buffer
	_ = binary.Write(&buf, binary.BigEndian, uint32(0xFFFFFFFF))
	_ = binary.Write(&buf, binary.BigEndian, uint32(1234567))
	d, err := RandomDigits(&buf)
	if err != nil || d != "234567" {
		t.Fatalf("RandomDigits = %q, %v; want 234567", d, err)
	}
	buf.Reset()
	_ = binary.Write(&buf, binary.BigEndian, uint32(42))
	if d, _ := RandomDigits(&buf); d != "000042" {
		t.Fatalf("RandomDigits = %q, want zero-padded 000042", d)
	}
}

// testCodeKey is a code key of the least allowed length, of one repeated byte b.
func testCodeKey(b byte) []byte { return bytes.Repeat([]byte{b}, MinCodeKeySize) }

func TestCodeCheck(t *testing.T) {
	t.Parallel()
	p := CodePolicy{TTL: 10 * time.Minute, ResendAfter: time.Minute, MaxAttempts: 5, Key: testCodeKey('k')}
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	c, digits, err := NewCode("u1", PurposeEmailVerification, now, p)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(c.Hash, []byte(digits)) || bytes.Contains(c.Salt, []byte(digits)) {
		t.Fatal("the code is stored in clear")
	}
	wrong := "000000"
	if digits == wrong {
		wrong = "111111"
	}
	for i := 1; i <= 4; i++ {
		var inc *CodeIncorrectError
		if err := c.Check(wrong, now, p); !errors.As(err, &inc) || inc.Remaining != 5-i {
			t.Fatalf("wrong try %d: %v", i, err)
		}
	}
	if err := c.Check(wrong, now, p); !errors.Is(err, ErrTooManyCodeAttempts) {
		t.Fatalf("fifth wrong try: %v", err)
	}
	if err := c.Check(digits, now, p); !errors.Is(err, ErrCodeExpired) {
		t.Fatalf("right code after five wrong tries: %v", err)
	}

	c, digits, _ = NewCode("u1", PurposeEmailVerification, now, p)
	if err := c.Check(digits, now.Add(10*time.Minute), p); !errors.Is(err, ErrCodeExpired) {
		t.Fatalf("code at its expiry: %v", err)
	}
	if err := c.Check(digits, now.Add(9*time.Minute), p); err != nil {
		t.Fatalf("right code: %v", err)
	}
	if err := c.Check(digits, now.Add(9*time.Minute), p); !errors.Is(err, ErrCodeExpired) {
		t.Fatalf("code used twice: %v", err)
	}

	c, _, _ = NewCode("u1", PurposePasswordReset, now, p)
	var thr *ThrottledError
	if err := c.CheckResend(now.Add(20*time.Second), p); !errors.As(err, &thr) || thr.RetryAfter != 40*time.Second {
		t.Fatalf("resend after 20s: %v", err)
	}
	if err := c.CheckResend(now.Add(time.Minute), p); err != nil {
		t.Fatalf("resend after 60s: %v", err)
	}
	// A code of one purpose does not match the other's hash.
	other := c
	other.Purpose = PurposeEmailVerification
	if macCode(p.Key, c.Salt, c.Purpose, "123456") == nil || bytes.Equal(macCode(p.Key, c.Salt, c.Purpose, "123456"), macCode(p.Key, other.Salt, other.Purpose, "123456")) {
		t.Fatal("the purpose is not part of the hash")
	}
}

// A code is stored under the server's key: the same code (same digits, salt and purpose) is
// stored differently under another key, and does not check under it.
func TestCodeIsKeyed(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	p := CodePolicy{TTL: 10 * time.Minute, ResendAfter: time.Minute, MaxAttempts: 5, Key: testCodeKey('a')}
	q := p
	q.Key = testCodeKey('b')
	draw := func() io.Reader { return bytes.NewReader(bytes.Repeat([]byte{7}, 64)) }
	underP, digits, err := newCode(draw(), "u1", PurposePasswordReset, now, p)
	if err != nil {
		t.Fatal(err)
	}
	underQ, digitsQ, err := newCode(draw(), "u1", PurposePasswordReset, now, q)
	if err != nil {
		t.Fatal(err)
	}
	if digits != digitsQ || !bytes.Equal(underP.Salt, underQ.Salt) {
		t.Fatal("the two draws differ: the test compares nothing")
	}
	if bytes.Equal(underP.Hash, underQ.Hash) {
		t.Fatal("the same code is stored alike under two keys")
	}
	// The right digits under the wrong key: a miss, counted.
	var inc *CodeIncorrectError
	if err := underP.Check(digits, now, q); !errors.As(err, &inc) || inc.Remaining != 4 {
		t.Fatalf("the right digits under the wrong key: %v", err)
	}
	if err := underP.Check(digits, now, p); err != nil {
		t.Fatalf("the right digits under the right key: %v", err)
	}
}

// What a database dump holds (salt, purpose, hash) is not enough to find the digits: the
// stored hash is not the unkeyed SHA-256 of the same inputs, which trying 10^6 digit strings
// would reproduce, nor the HMAC under an empty key.
func TestCodeHashNeedsTheKey(t *testing.T) {
	t.Parallel()
	p := CodePolicy{TTL: 10 * time.Minute, ResendAfter: time.Minute, MaxAttempts: 5, Key: testCodeKey('k')}
	c, digits, err := NewCode("u1", PurposeEmailVerification, time.Now(), p)
	if err != nil {
		t.Fatal(err)
	}
	unkeyed := sha256.New()
	unkeyed.Write(c.Salt)
	unkeyed.Write([]byte(c.Purpose))
	unkeyed.Write([]byte{0})
	unkeyed.Write([]byte(digits))
	if bytes.Equal(c.Hash, unkeyed.Sum(nil)) {
		t.Fatal("the stored hash is the unkeyed SHA-256 of the row and the digits")
	}
	if bytes.Equal(c.Hash, macCode(nil, c.Salt, c.Purpose, digits)) {
		t.Fatal("the stored hash is the HMAC under an empty key")
	}
	if !bytes.Equal(c.Hash, macCode(p.Key, c.Salt, c.Purpose, digits)) {
		t.Fatal("the stored hash is not the HMAC under the key")
	}
}

// No code is made under a key shorter than MinCodeKeySize.
func TestCodeRefusesAShortKey(t *testing.T) {
	t.Parallel()
	for _, key := range [][]byte{nil, testCodeKey('k')[:MinCodeKeySize-1]} {
		p := CodePolicy{TTL: 10 * time.Minute, ResendAfter: time.Minute, MaxAttempts: 5, Key: key}
		if _, _, err := NewCode("u1", PurposeEmailVerification, time.Now(), p); !errors.Is(err, ErrCodeKeySize) {
			t.Errorf("a %d-byte key: %v", len(key), err)
		}
	}
}

func TestSession(t *testing.T) {
	t.Parallel()
	p := SessionPolicy{IdleTTL: 30 * 24 * time.Hour, AbsoluteTTL: 90 * 24 * time.Hour}
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	s, token, err := NewSession("id", "u1", now, p, NewClient(" 10.0.0.1 ", strings.Repeat("a", 600)))
	if err != nil {
		t.Fatal(err)
	}
	if !WellFormedSessionToken(token) || len(token) != 43 {
		t.Fatalf("token %q is not 43 base64url characters", token)
	}
	if WellFormedSessionToken(token[:42]) || WellFormedSessionToken(token[:42]+"=") {
		t.Fatal("a malformed token passed")
	}
	if !bytes.Equal(s.TokenHash, HashSessionToken(token)) || strings.Contains(string(s.TokenHash), token) {
		t.Fatal("token hash wrong")
	}
	if s.Client.Address != "10.0.0.1" || len(s.Client.UserAgent) != 512 {
		t.Fatalf("client = %+v", s.Client)
	}
	if !s.ExpiresAt().Equal(now.Add(p.IdleTTL)) {
		t.Fatalf("expires at %s", s.ExpiresAt())
	}
	// Used every 20 days, it slides, but never beyond 90 days.
	at := now
	for range 4 {
		at = at.Add(20 * 24 * time.Hour)
		if !s.Active(at) {
			t.Fatalf("session ended at %s despite use", at)
		}
		s.Touch(at, p)
	}
	if !s.ExpiresAt().Equal(now.Add(p.AbsoluteTTL)) {
		t.Fatalf("slid beyond the absolute expiry: %s", s.ExpiresAt())
	}
	if s.Active(now.Add(p.AbsoluteTTL)) {
		t.Fatal("active at the absolute expiry")
	}
	s2, _, _ := NewSession("id2", "u1", now, p, Client{})
	if s2.Active(now.Add(p.IdleTTL + time.Second)) {
		t.Fatal("active after the idle expiry without use")
	}
	s2.RevokedAt = now
	if s2.Active(now) {
		t.Fatal("active after revocation")
	}
}

func TestParseReferralCode(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"":                "",
		"   ":             "",
		"THU-FC2SANZQ":    "THU-FC2SANZQ",
		" thu-fc2sanzq\t": "THU-FC2SANZQ",
		"Thu-0123456z":    "THU-0123456Z",
	} {
		if got, err := ParseReferralCode(raw); err != nil || got != want {
			t.Errorf("ParseReferralCode(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
	for _, raw := range []string{"THU-FC2SANZ", "THU-FC2SANZQQ", "THU-FC2SANZI", "THU-FC2SANZL", "THU-FC2SANZO",
		"THU-FC2SANZU", "THX-FC2SANZQ", "THUFC2SANZQ", "THU-FC2SAN Q"} {
		var v *ValidationError
		_, err := ParseReferralCode(raw)
		if !errors.As(err, &v) || len(v.Violations) != 1 || v.Violations[0].Field != "referral_code" {
			t.Errorf("ParseReferralCode(%q) = %v, want a violation on referral_code", raw, err)
		}
	}
}
