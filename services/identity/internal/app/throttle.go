package app

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/thumela/thumela/services/identity/internal/domain"
	"github.com/thumela/thumela/services/platform/clientnet"
)

// ThrottlePolicy slows guessing without letting a stranger lock the owner out. Failures are
// counted within Window per key; after a key's free failures every further one doubles the
// wait before the next try (BaseDelay, 2×, 4×, … up to MaxDelay), measured from the latest
// failure. There is no hard lock.
//
// The keys, for passwords and codes alike:
//   - per (account, address): the tight limit. A stranger's failures are their own pair, so
//     the owner signing in from elsewhere never waits for them.
//   - per address, across accounts: one place spraying guesses over many accounts.
//   - per account, from anywhere: a much higher ceiling that slows an attack spread over many
//     addresses. Only there can a stranger make the owner wait, and only by sustaining that
//     many failures within Window, and then by the delay, never by a lock.
type ThrottlePolicy struct {
	Window    time.Duration
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// Wrong passwords allowed before delays start.
	PairFailures    int
	AddressFailures int
	AccountFailures int
	// Wrong codes allowed before delays start.
	CodePairFailures    int
	CodeAddressFailures int
	CodeAccountFailures int
}

// DefaultThrottlePolicy is the policy when the configuration says nothing else.
func DefaultThrottlePolicy() ThrottlePolicy {
	return ThrottlePolicy{
		Window: time.Hour, BaseDelay: 2 * time.Second, MaxDelay: 15 * time.Minute,
		PairFailures: 5, AddressFailures: 50, AccountFailures: 100,
		CodePairFailures: 10, CodeAddressFailures: 20, CodeAccountFailures: 50,
	}
}

func (p ThrottlePolicy) validate() error {
	if p.Window <= 0 || p.BaseDelay <= 0 || p.MaxDelay < p.BaseDelay ||
		p.PairFailures < 1 || p.AddressFailures < 1 || p.AccountFailures < 1 ||
		p.CodePairFailures < 1 || p.CodeAddressFailures < 1 || p.CodeAccountFailures < 1 {
		return errors.New("throttle window, delays and free failures must be positive")
	}
	return nil
}

// delay is the wait after n failures of a key that allows free ones.
func (p ThrottlePolicy) delay(n, free int) time.Duration {
	if n < free {
		return 0
	}
	d := p.BaseDelay
	for i := free; i < n && d < p.MaxDelay; i++ {
		d *= 2
	}
	return min(d, p.MaxDelay)
}

// FailureKind is what failed: a password or a one-time code.
type FailureKind string

const (
	FailurePassword FailureKind = "password"
	FailureCode     FailureKind = "code"
)

// Failure is one failed attempt. Account is the normalised e-mail as typed, known or not, so an
// unknown e-mail is throttled exactly like a known one. Address is the client's clientnet.Key
// (an IPv6 client's /64), not its exact address.
type Failure struct {
	Kind    FailureKind
	Account string
	Address string
	At      time.Time
}

// FailureQuery selects failures of one kind since Since by the pair, the address or the
// account (By says which of Account and Address count).
type FailureQuery struct {
	Kind    FailureKind
	By      FailureKey
	Account string
	Address string
	Since   time.Time
}

// FailureStats are a key's failures within the window.
type FailureStats struct {
	Count int
	Last  time.Time
}

// FailureKey is what a FailureQuery matches failures by.
type FailureKey int

const (
	// KeyPair matches Account and Address together (Address may be "": an attempt that came
	// with no address, as a signed-in password change).
	KeyPair FailureKey = iota
	KeyAddress
	KeyAccount
)

// accountKey is the throttle key of what was typed as an e-mail, valid or not.
func accountKey(raw string) string {
	s := strings.ToLower(strings.TrimSpace(raw))
	if len(s) > 254 {
		s = s[:254]
	}
	return strings.ToValidUTF8(s, "")
}

func (s *Service) failedSignIn(ctx context.Context, account string, c domain.Client, now time.Time) error {
	if err := s.store.RecordFailure(ctx, Failure{Kind: FailurePassword, Account: account, Address: clientnet.Key(c.Address), At: now}); err != nil {
		return err
	}
	return domain.ErrInvalidCredentials
}

// checkSignInThrottle answers a *domain.ThrottledError while any of the account's keys from
// address is in its delay.
func (s *Service) checkSignInThrottle(ctx context.Context, account, address string, now time.Time) error {
	t := s.cfg.Throttle
	return s.throttle(ctx, domain.ThrottleSignIn, FailurePassword, account, address, now,
		t.PairFailures, t.AddressFailures, t.AccountFailures)
}

// checkCodeThrottle is checkSignInThrottle for one-time codes: guesses at one account's code
// from one address, sprays over many accounts' codes from one address, and a ceiling per
// account.
func (s *Service) checkCodeThrottle(ctx context.Context, email domain.Email, address string, now time.Time) error {
	t := s.cfg.Throttle
	return s.throttle(ctx, domain.ThrottleCodes, FailureCode, email.String(), address, now,
		t.CodePairFailures, t.CodeAddressFailures, t.CodeAccountFailures)
}

// throttle checks the pair, address and account keys of kind; the longest wait wins.
func (s *Service) throttle(ctx context.Context, what domain.ThrottleKind, kind FailureKind, account, address string, now time.Time, pairFree, addressFree, accountFree int) error {
	t := s.cfg.Throttle
	address = clientnet.Key(address)
	checks := []struct {
		key  FailureKey
		free int
	}{{KeyPair, pairFree}, {KeyAccount, accountFree}}
	if address != "" {
		checks = append(checks, struct {
			key  FailureKey
			free int
		}{KeyAddress, addressFree})
	}
	var wait time.Duration
	for _, c := range checks {
		st, err := s.store.FailureStats(ctx, FailureQuery{Kind: kind, By: c.key, Account: account, Address: address, Since: now.Add(-t.Window)})
		if err != nil {
			return err
		}
		if d := t.delay(st.Count, c.free); d > 0 {
			if until := st.Last.Add(d).Sub(now); until > 0 {
				wait = max(wait, until)
			}
		}
	}
	if wait > 0 {
		return &domain.ThrottledError{What: what, RetryAfter: max(wait, time.Second)}
	}
	return nil
}
