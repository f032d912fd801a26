package domain

import (
	"bufio"
	"crypto/rand"
	"crypto/subtle"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
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
	MsgPasswordCommon    = "This password is too common. Please choose one that is harder to guess."
	MsgPasswordIsEmail   = "Password must not be your email address."
	MsgPasswordUnchanged = "New password must be different from your current password."
)

//go:embed common_passwords.txt
var commonPasswordsFile string

var commonPasswords = sync.OnceValue(func() map[string]struct{} {
	set := make(map[string]struct{}, 1024)
	sc := bufio.NewScanner(strings.NewReader(commonPasswordsFile))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		set[strings.ToLower(line)] = struct{}{}
	}
	return set
})

// PasswordProblems returns every reason the policy refuses pw for the account email (nil when
// it is acceptable): too short, too long, too common, or the e-mail address itself.
func PasswordProblems(pw string, email Email) []string {
	var reasons []string
	n := utf8.RuneCountInString(pw)
	switch {
	case n < MinPasswordLen:
		reasons = append(reasons, MsgPasswordTooShort)
	case n > MaxPasswordLen:
		reasons = append(reasons, MsgPasswordTooLong)
	}
	if IsCommonPassword(pw) {
		reasons = append(reasons, MsgPasswordCommon)
	}
	if !email.IsZero() {
		lower := strings.ToLower(strings.TrimSpace(pw))
		if lower == email.String() || lower == email.LocalPart() {
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
		if _, ok := set[candidate]; ok {
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
	key := argonKey([]byte(pw), salt, argonTime, argonMemoryKiB, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemoryKiB, argonTime,
		argonThreads, phcB64.EncodeToString(salt), phcB64.EncodeToString(key)), nil
}

// VerifyPassword reports whether pw matches the PHC-encoded hash, comparing in constant time.
func VerifyPassword(encoded, pw string) (bool, error) {
	p, err := parsePHC(encoded)
	if err != nil {
		return false, err
	}
	key := argonKey([]byte(pw), p.salt, p.time, p.memory, p.threads, uint32(len(p.key)))
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

// WarmUp computes the dummy hash ahead of the first sign-in.
func WarmUp() { _ = dummyHash() }

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
