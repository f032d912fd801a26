package app

import (
	"context"
	"strings"
	"time"

	"github.com/thumela/thumela/services/identity/internal/domain"
)

// ThrottlePolicy bounds failures per Window: wrong passwords per account and per client
// address, wrong codes per account.
type ThrottlePolicy struct {
	Window          time.Duration
	AccountFailures int
	AddressFailures int
	CodeFailures    int
}

// accountKey is the throttle key of what was typed as an e-mail, valid or not.
func accountKey(raw string) string {
	s := strings.ToLower(strings.TrimSpace(raw))
	if len(s) > 254 {
		s = s[:254]
	}
	return strings.ToValidUTF8(s, "")
}

func (s *Service) failedSignIn(ctx context.Context, account string, c domain.Client, now time.Time) error {
	if err := s.store.RecordFailure(ctx, Failure{Kind: FailurePassword, Account: account, Address: c.Address, At: now}); err != nil {
		return err
	}
	return domain.ErrInvalidCredentials
}

func (s *Service) checkSignInThrottle(ctx context.Context, account, address string, now time.Time) error {
	t := s.cfg.Throttle
	queries := []FailureQuery{{Kind: FailurePassword, Account: account, N: t.AccountFailures}}
	if address != "" {
		queries = append(queries, FailureQuery{Kind: FailurePassword, Address: address, N: t.AddressFailures})
	}
	return s.throttle(ctx, domain.ThrottleSignIn, now, queries...)
}

func (s *Service) checkCodeThrottle(ctx context.Context, email domain.Email, now time.Time) error {
	return s.throttle(ctx, domain.ThrottleCodes, now,
		FailureQuery{Kind: FailureCode, Account: email.String(), N: s.cfg.Throttle.CodeFailures})
}

// throttle answers a *domain.ThrottledError when any query finds its limit of failures in the
// window; the caller may retry once enough of them have aged out of it.
func (s *Service) throttle(ctx context.Context, what domain.ThrottleKind, now time.Time, queries ...FailureQuery) error {
	window := s.cfg.Throttle.Window
	var wait time.Duration
	for _, q := range queries {
		q.Since = now.Add(-window)
		at, full, err := s.store.NthRecentFailure(ctx, q)
		if err != nil {
			return err
		}
		if full {
			wait = max(wait, at.Add(window).Sub(now), time.Second)
		}
	}
	if wait > 0 {
		return &domain.ThrottledError{What: what, RetryAfter: wait}
	}
	return nil
}
