package domain

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"crypto/subtle"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"

	"github.com/thumela/thumela/services/platform/intconv"
)

// Password length limits, in characters. The maximum is accepted in full: argon2id hashes
// every byte (unlike bcrypt, which silently ignores everything after 72 bytes).
const (
	MinPasswordLen = 8
	MaxPasswordLen = 128
)

// The reasons a password is refused, as the forms show them.
const (
	MsgPasswordTooShort  = "Password must be at least 8 characters."
	MsgPasswordTooLong   = "Password must be at most 128 characters."
	MsgPasswordBlank     = "Password must not be only spaces."
	MsgPasswordCommon    = "This password is too common. Please choose one that is harder to guess."
	MsgPasswordIsEmail   = "Password must not contain your email address."
	MsgPasswordUnchanged = "New password must be different from your current password."
)

// minLocalPartInPassword is the shortest e-mail local part looked for inside a password: "jo"
// inside "enjoyable-walks" is chance, "thandi" inside "Thandi2024!" is not.
const minLocalPartInPassword = 3

// breachedPasswords is the top 100,000 of a public list of breached passwords, lower-cased, one
// a line, gzipped (passwords/README.md says where it comes from and under which licence).
//
//go:embed passwords/breached-100k.txt.gz
var breachedPasswords []byte

// localPasswords are the South African favourites the breached list lacks.
//
//go:embed passwords/za.txt
var localPasswords string

// passwordSet is the common passwords held as a sorted slice of 64-bit hashes: 8 bytes an
// entry (under 1 MiB for the list) where a map of strings would take ten times that for the
// life of the process. The seed is drawn per process, so nobody can craft a password that
// collides with a listed one; a chance collision (about 1 in 10^14 per check) would only refuse
// a good password.
type passwordSet struct {
	seed   maphash.Seed
	hashes []uint64
}

func (p *passwordSet) add(pw string) { p.hashes = append(p.hashes, maphash.String(p.seed, pw)) }

func (p *passwordSet) has(pw string) bool {
	_, ok := slices.BinarySearch(p.hashes, maphash.String(p.seed, pw))
	return ok
}

// commonPasswords loads the embedded lists once, on first use (or at WarmUp).
var commonPasswords = sync.OnceValue(func() *passwordSet {
	p := &passwordSet{seed: maphash.MakeSeed(), hashes: make([]uint64, 0, 100_100)}
	zr, err := gzip.NewReader(bytes.NewReader(breachedPasswords))
	if err != nil {
		panic(fmt.Sprintf("embedded password list: %v", err)) // the build embeds a valid file
	}
	readPasswordList(p, zr, false)
	readPasswordList(p, strings.NewReader(localPasswords), true)
	slices.Sort(p.hashes)
	p.hashes = slices.Compact(p.hashes)
	return p
})

// readPasswordList adds every line of r; with comments, lines starting with # are skipped (the
// breached list has real passwords that start with #).
func readPasswordList(p *passwordSet, r io.Reader, comments bool) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || comments && strings.HasPrefix(line, "#") {
			continue
		}
		p.add(strings.ToLower(line))
	}
	if err := sc.Err(); err != nil {
		panic(fmt.Sprintf("embedded password list: %v", err))
	}
}

// CommonPasswordCount is how many distinct common passwords are loaded (for tests and the
// documentation's figures).
func CommonPasswordCount() int { return len(commonPasswords().hashes) }

// PasswordProblems returns every reason the policy refuses pw for the account email (nil when
// it is acceptable): too short, too long, only white space, too common, or containing the
// e-mail address (or its local part, when that has at least 3 characters).
func PasswordProblems(pw string, email Email) []string {
	var reasons []string
	n := utf8.RuneCountInString(pw)
	switch {
	case n < MinPasswordLen:
		reasons = append(reasons, MsgPasswordTooShort)
	case n > MaxPasswordLen:
		reasons = append(reasons, MsgPasswordTooLong)
	}
	if n > 0 && strings.TrimSpace(pw) == "" {
		reasons = append(reasons, MsgPasswordBlank)
	}
	if IsCommonPassword(pw) {
		reasons = append(reasons, MsgPasswordCommon)
	}
	if !email.IsZero() {
		lower := strings.ToLower(pw)
		local := email.LocalPart()
		if strings.Contains(lower, email.String()) ||
			(len(local) >= minLocalPartInPassword && strings.Contains(lower, local)) {
			reasons = append(reasons, MsgPasswordIsEmail)
		}
	}
	return reasons
}

// IsCommonPassword reports whether pw is, give or take case, trailing digits and symbols and
// the usual letter-for-symbol swaps, one of the embedded common passwords, a single repeated
// character, or a run of consecutive characters ("12345678", "abcdefgh").
func IsCommonPassword(pw string) bool {
	lower := strings.ToLower(strings.TrimSpace(pw))
	if lower == "" {
		return false
	}
	if repeated(lower) || consecutive(lower) {
		return true
	}
	set := commonPasswords()
	stripped := strings.TrimRight(lower, "0123456789!@#$%^&*()_-+=.,?~ ")
	for _, candidate := range []string{lower, stripped, unleet(lower, 'i'), unleet(lower, 'l'),
		unleet(stripped, 'i'), unleet(stripped, 'l')} {
		if len(candidate) < 4 && candidate != lower {
			continue // "abc" left after stripping "abc2024!" is not evidence of anything
		}
		if set.has(candidate) {
			return true
		}
	}
	return false
}

// unleet undoes the swaps people make to satisfy composition rules; one is read as one.
func unleet(s string, one rune) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '@', '4':
			return 'a'
		case '0':
			return 'o'
		case '1', '!':
			return one
		case '3':
			return 'e'
		case '$', '5':
			return 's'
		case '7':
			return 't'
		}
		return r
	}, s)
}

func repeated(s string) bool {
	first, _ := utf8.DecodeRuneInString(s)
	return strings.Trim(s, string(first)) == ""
}

// consecutive reports whether every character is one more, or every one one less, than the
// one before.
func consecutive(s string) bool {
	rs := []rune(s)
	if len(rs) < 3 {
		return false
	}
	step := rs[1] - rs[0]
	if step != 1 && step != -1 {
		return false
	}
	for i := 2; i < len(rs); i++ {
		if rs[i]-rs[i-1] != step {
			return false
		}
	}
	return true
}

// Argon2id parameters: OWASP's recommended minimum (19 MiB, 2 passes, 1 lane). They are stored
// in every hash, so raising them later keeps old hashes verifiable.
const (
	argonMemoryKiB = 19456
	argonTime      = 2
	argonThreads   = 1
	argonSaltLen   = 16
	argonKeyLen    = 32
)

// ErrMalformedHash is returned for a stored hash that is not an argon2id PHC string.
var ErrMalformedHash = errors.New("malformed password hash")

// hashSlots bounds concurrent hashing: each one takes 19 MiB, and a burst of sign-ins must not
// take the process's memory with it. A hash is pure CPU, so more hashes at once than cores
// finish no sooner; one slot per core keeps the throughput and halves the peak (the bench's
// 101 sign-ups took identity to 66 MiB with two slots per core).
var hashSlots = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))

var phcB64 = base64.RawStdEncoding.Strict()

// HashPassword returns pw's argon2id hash in the PHC string format
// $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>, with a fresh 16-byte salt.
func HashPassword(pw string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password salt: %w", err)
	}
	return phcString(salt, argonKey([]byte(pw), salt, argonTime, argonMemoryKiB, argonThreads, argonKeyLen)), nil
}

// phcString is salt and key in the PHC string format with today's parameters.
func phcString(salt, key []byte) string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemoryKiB, argonTime,
		argonThreads, phcB64.EncodeToString(salt), phcB64.EncodeToString(key))
}

// UnusablePasswordHash returns a hash that no password matches: today's PHC form with a random
// salt and a random key in place of a derived one, so checking a password against it costs the
// same argon2id work as against a real hash (and tells nothing by its time), yet nobody knows a
// password that gives the key. It is what an unverified account's password becomes when a
// second sign-up with another password contests it (app.SignUp): only the inbox's owner then
// chooses one, with a reset code.
func UnusablePasswordHash() (string, error) {
	salt := make([]byte, argonSaltLen)
	key := make([]byte, argonKeyLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password salt: %w", err)
	}
	if _, err := rand.Read(key); err != nil {
		return "", fmt.Errorf("unusable password key: %w", err)
	}
	return phcString(salt, key), nil
}

// VerifyPassword reports whether pw matches the PHC-encoded hash, comparing in constant time.
func VerifyPassword(encoded, pw string) (bool, error) {
	p, err := parsePHC(encoded)
	if err != nil {
		return false, err
	}
	key := argonKey([]byte(pw), p.salt, p.time, p.memory, p.threads, intconv.Uint32(len(p.key)))
	return subtle.ConstantTimeCompare(key, p.key) == 1, nil
}

// NeedsRehash reports whether encoded was made with other parameters than today's, so a
// successful sign-in can upgrade it.
func NeedsRehash(encoded string) bool {
	p, err := parsePHC(encoded)
	return err != nil || p.memory != argonMemoryKiB || p.time != argonTime || p.threads != argonThreads ||
		len(p.salt) != argonSaltLen || len(p.key) != argonKeyLen
}

var dummyHash = sync.OnceValue(func() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	h, err := HashPassword(base64.RawStdEncoding.EncodeToString(b))
	if err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return h
})

// VerifyDummy spends the time of one VerifyPassword against a hash no password matches, so a
// sign-in for an unknown e-mail takes as long as a wrong password for a known one.
func VerifyDummy(pw string) {
	_, _ = VerifyPassword(dummyHash(), pw)
}

// WarmUp computes the dummy hash and loads the common-password list ahead of the first
// sign-up or sign-in.
func WarmUp() {
	_ = dummyHash()
	_ = commonPasswords()
}

func argonKey(pw, salt []byte, time, memory uint32, threads uint8, keyLen uint32) []byte {
	hashSlots <- struct{}{}
	defer func() { <-hashSlots }()
	return argon2.IDKey(pw, salt, time, memory, threads, keyLen)
}

type phc struct {
	memory, time uint32
	threads      uint8
	salt, key    []byte
}

// parsePHC reads $argon2id$v=19$m=…,t=…,p=…$salt$hash, refusing other algorithms, versions,
// and parameters far outside anything this service writes (a corrupted row must not make a
// sign-in allocate gigabytes).
func parsePHC(s string) (phc, error) {
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return phc{}, ErrMalformedHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return phc{}, ErrMalformedHash
	}
	var p phc
	var threads uint32
	if n, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.memory, &p.time, &threads); err != nil || n != 3 ||
		parts[3] != fmt.Sprintf("m=%d,t=%d,p=%d", p.memory, p.time, threads) {
		return phc{}, ErrMalformedHash
	}
	if p.memory < 8 || p.memory > 1<<20 || p.time < 1 || p.time > 16 || threads < 1 || threads > 16 {
		return phc{}, ErrMalformedHash
	}
	p.threads = uint8(threads)
	var err error
	if p.salt, err = phcB64.DecodeString(parts[4]); err != nil || len(p.salt) < 8 {
		return phc{}, ErrMalformedHash
	}
	if p.key, err = phcB64.DecodeString(parts[5]); err != nil || len(p.key) < 16 || len(p.key) > 64 {
		return phc{}, ErrMalformedHash
	}
	return p, nil
}
