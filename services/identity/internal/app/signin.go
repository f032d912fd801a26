package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/identity/internal/domain"
	"github.com/thumela/thumela/services/identity/internal/events"
)

// Authenticated is an opened session.
type Authenticated struct {
	User             domain.User
	SessionID        string
	SessionToken     string
	SessionExpiresAt time.Time
}

// Grant is an access token for a live session.
type Grant struct {
	User             domain.User
	SessionID        string
	AccessToken      string
	ExpiresAt        time.Time
	SessionExpiresAt time.Time
}

// SignIn checks the password and opens a new session. An unknown e-mail and a wrong password
// take the same time and answer the same domain.ErrInvalidCredentials. A right password for an
// unverified account answers domain.ErrEmailNotVerified and, when the resend interval allows,
// e-mails a fresh code.
func (s *Service) SignIn(ctx context.Context, rawEmail, password string, client domain.Client) (Authenticated, error) {
	now := s.now()
	account := accountKey(rawEmail)
	if err := s.checkSignInThrottle(ctx, account, client.Address, now); err != nil {
		return Authenticated{}, err
	}
	u, found, err := s.lookup(ctx, rawEmail)
	if err != nil {
		return Authenticated{}, err
	}
	if !found {
		domain.VerifyDummy(password)
		return Authenticated{}, s.failedSignIn(ctx, account, client, now)
	}
	ok, err := domain.VerifyPassword(u.PasswordHash, password)
	if err != nil {
		return Authenticated{}, fmt.Errorf("user %s: %w", u.ID, err)
	}
	if !ok {
		return Authenticated{}, s.failedSignIn(ctx, account, client, now)
	}
	if !u.Verified() {
		err := s.store.InTx(ctx, func(tx Tx) error {
			locked, err := tx.UserByIDForUpdate(ctx, u.ID)
			if err != nil {
				return err
			}
			_, err = s.resend(ctx, tx, locked, domain.PurposeEmailVerification, now)
			return err
		})
		var throttled *domain.ThrottledError
		if err != nil && !errors.As(err, &throttled) {
			return Authenticated{}, err
		}
		return Authenticated{}, domain.ErrEmailNotVerified
	}
	var rehash string
	if domain.NeedsRehash(u.PasswordHash) {
		if rehash, err = domain.HashPassword(password); err != nil {
			return Authenticated{}, err
		}
	}
	var out Authenticated
	err = s.store.InTx(ctx, func(tx Tx) error {
		locked, err := tx.UserByIDForUpdate(ctx, u.ID)
		if err != nil {
			return err
		}
		if rehash != "" && locked.PasswordHash == u.PasswordHash {
			locked.PasswordHash, locked.UpdatedAt = rehash, now
			if err := tx.UpdateUser(ctx, locked); err != nil {
				return err
			}
		}
		out, err = s.openSession(ctx, tx, locked, client, now)
		return err
	})
	if err != nil {
		return Authenticated{}, err
	}
	return out, nil
}

// Refresh exchanges a live session token for an access token, sliding the session's expiry.
func (s *Service) Refresh(ctx context.Context, token string) (Grant, error) {
	if !domain.WellFormedSessionToken(token) {
		return Grant{}, domain.ErrSessionInvalid
	}
	now := s.now()
	var out Grant
	err := s.store.InTx(ctx, func(tx Tx) error {
		sess, err := tx.SessionByTokenHash(ctx, domain.HashSessionToken(token))
		if err != nil {
			return err
		}
		if !sess.Active(now) {
			return domain.ErrSessionInvalid
		}
		u, err := tx.UserByID(ctx, sess.UserID)
		if errors.Is(err, domain.ErrUserNotFound) {
			return domain.ErrSessionInvalid
		}
		if err != nil {
			return err
		}
		// Written at most once a minute per session (Touch says when).
		if sess.Touch(now, s.cfg.Sessions) {
			if err := tx.UpdateSession(ctx, sess); err != nil {
				return err
			}
		}
		steppedUpAt, err := tx.SessionSteppedUpAt(ctx, sess.ID)
		if err != nil {
			return err
		}
		access, exp, err := s.userAccessToken(u, sess.ID, steppedUpAt, now)
		if err != nil {
			return err
		}
		out = Grant{User: u, SessionID: sess.ID, AccessToken: access, ExpiresAt: exp, SessionExpiresAt: sess.ExpiresAt()}
		return nil
	})
	if err != nil {
		return Grant{}, err
	}
	return out, nil
}

// SignOut revokes the session and tells every BFF (SessionsRevoked). An unknown or already
// revoked token is not an error: the browser is signed out either way.
func (s *Service) SignOut(ctx context.Context, token string) error {
	if !domain.WellFormedSessionToken(token) {
		return nil
	}
	now := s.now()
	return s.store.InTx(ctx, func(tx Tx) error {
		sess, err := tx.SessionByTokenHash(ctx, domain.HashSessionToken(token))
		if errors.Is(err, domain.ErrSessionInvalid) {
			return nil
		}
		if err != nil {
			return err
		}
		_, err = s.revokeSessions(ctx, tx, RevokeQuery{UserID: sess.UserID, Only: sess.ID, At: now}, events.RevokedSignOut)
		return err
	})
}

func (s *Service) lookup(ctx context.Context, rawEmail string) (domain.User, bool, error) {
	email, err := domain.ParseEmail(rawEmail)
	if err != nil {
		return domain.User{}, false, nil
	}
	u, err := s.store.UserByEmail(ctx, email)
	if errors.Is(err, domain.ErrUserNotFound) {
		return domain.User{}, false, nil
	}
	return u, err == nil, err
}

// openSession starts a session for u opened with a password.
func (s *Service) openSession(ctx context.Context, tx Tx, u domain.User, c domain.Client, now time.Time) (Authenticated, error) {
	return s.openSessionBy(ctx, tx, u, c, domain.MethodPassword, now)
}

// openSessionBy starts a session for u opened by method, recording its device (and e-mailing
// the owner about a new one). u's row must be locked by tx.
func (s *Service) openSessionBy(ctx context.Context, tx Tx, u domain.User, c domain.Client, method domain.SignInMethod, now time.Time) (Authenticated, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return Authenticated{}, err
	}
	sess, token, err := domain.NewSession(id.String(), u.ID, now, s.cfg.Sessions, c)
	if err != nil {
		return Authenticated{}, err
	}
	sess.Method = method
	if err := s.noteDevice(ctx, tx, u, sess, now); err != nil {
		return Authenticated{}, err
	}
	if err := tx.InsertSession(ctx, sess); err != nil {
		return Authenticated{}, err
	}
	return Authenticated{User: u, SessionID: sess.ID, SessionToken: token, SessionExpiresAt: sess.ExpiresAt()}, nil
}
