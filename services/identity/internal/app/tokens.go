package app

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"time"

	"github.com/thumela/thumela/services/platform/auth"

	"github.com/thumela/thumela/services/identity/internal/domain"
)

// GetUser returns the caller's own account, the one the access token names; a token that
// names no user is domain.ErrUserNotFound.
func (s *Service) GetUser(ctx context.Context, caller auth.Claims) (domain.User, error) {
	if !caller.IsUser() {
		return domain.User{}, domain.ErrUserNotFound
	}
	return s.store.UserByID(ctx, caller.Subject)
}

// userAccessToken signs an access token for u's session. steppedUpAt (the session's last
// step-up) goes in as "sua" while it is within StepUpWindow of now, so that every token of
// a freshly stepped-up session carries it, Refresh's included, and none after the window.
func (s *Service) userAccessToken(u domain.User, sessionID string, steppedUpAt, now time.Time) (string, time.Time, error) {
	var sua time.Time
	if !steppedUpAt.IsZero() && now.Sub(steppedUpAt) < StepUpWindow && !steppedUpAt.After(now) {
		sua = steppedUpAt
	}
	exp := now.Add(s.cfg.AccessTokenTTL)
	access, err := s.cfg.Signer.Sign(auth.Claims{
		Subject: u.ID, Kind: auth.KindUser, Email: u.Email.String(),
		GivenName: u.Name.First(), FamilyName: u.Name.Last(), SessionID: sessionID, SteppedUpAt: sua,
		IssuedAt: now, ExpiresAt: exp, Issuer: s.cfg.Issuer,
	})
	if err != nil {
		return "", time.Time{}, err
	}
	return access, exp.Truncate(time.Second), nil
}

// PublicKeys lists the keys that verify access tokens: the current one first.
func (s *Service) PublicKeys() []auth.PublicKey {
	return append([]auth.PublicKey{s.cfg.Signer.PublicKey()}, s.cfg.Previous...)
}

// IssueServiceToken gives a configured internal service a short-lived token naming it. The
// secret is compared in constant time, and an unknown name costs the same comparison.
func (s *Service) IssueServiceToken(name, secret string) (string, time.Time, error) {
	want, known := s.services[name]
	got := sha256.Sum256([]byte(secret))
	if subtle.ConstantTimeCompare(want[:], got[:]) != 1 || !known || name == "" {
		return "", time.Time{}, domain.ErrInvalidServiceCredentials
	}
	now := s.now()
	exp := now.Add(s.cfg.AccessTokenTTL)
	token, err := s.cfg.Signer.Sign(auth.Claims{
		Subject: name, Kind: auth.KindService, IssuedAt: now, ExpiresAt: exp, Issuer: s.cfg.Issuer,
	})
	if err != nil {
		return "", time.Time{}, err
	}
	return token, exp.Truncate(time.Second), nil
}
