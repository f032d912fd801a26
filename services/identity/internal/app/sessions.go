package app

import (
	"context"
	"strings"
	"time"

	"github.com/thumela/thumela/services/platform/auth"

	"github.com/thumela/thumela/services/identity/internal/domain"
	"github.com/thumela/thumela/services/identity/internal/events"
)

// Sessions you can see (Account -> Security), revocations that every BFF hears of at once, and
// the e-mail about a sign-in from a new device.

// RevokeQuery selects open sessions of one user to revoke.
type RevokeQuery struct {
	UserID string
	// Only, when set, revokes that session alone.
	Only string
	// Except, when set, keeps that session.
	Except string
	At     time.Time
}

// SessionView is a live session as the list shows it.
type SessionView struct {
	domain.Session
	// Current is the session asking.
	Current bool
}

// ListSessions lists the caller's live sessions: the one asking (named by its token) first,
// then the most recently seen.
func (s *Service) ListSessions(ctx context.Context, caller auth.Claims, token string) ([]SessionView, error) {
	now := s.now()
	var out []SessionView
	err := s.store.InTx(ctx, func(tx Tx) error {
		current, err := s.currentSession(ctx, tx, caller, token, now)
		if err != nil {
			return err
		}
		live, err := tx.LiveSessions(ctx, current.UserID, now)
		if err != nil {
			return err
		}
		out = make([]SessionView, 0, len(live))
		out = append(out, SessionView{Session: current, Current: true})
		for _, sess := range live {
			if sess.ID != current.ID {
				out = append(out, SessionView{Session: sess})
			}
		}
		return nil
	})
	return out, err
}

// RevokeSession signs out one of the caller's sessions (the current one too). An id that is
// not a live session of the caller, another user's included, is domain.ErrSessionNotFound; so
// is no id at all, which RevokeQuery would read as "every session" (that is RevokeOtherSessions'
// and SignOut's to do, each saying so).
func (s *Service) RevokeSession(ctx context.Context, caller auth.Claims, token, sessionID string) error {
	if strings.TrimSpace(sessionID) == "" {
		return domain.ErrSessionNotFound
	}
	now := s.now()
	return s.store.InTx(ctx, func(tx Tx) error {
		current, err := s.currentSession(ctx, tx, caller, token, now)
		if err != nil {
			return err
		}
		ids, err := s.revokeSessions(ctx, tx, RevokeQuery{UserID: current.UserID, Only: sessionID, At: now}, events.RevokedByUser)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			return domain.ErrSessionNotFound
		}
		return nil
	})
}

// RevokeOtherSessions signs out every session of the caller except the one asking and says how
// many it ended.
func (s *Service) RevokeOtherSessions(ctx context.Context, caller auth.Claims, token string) (int, error) {
	now := s.now()
	var n int
	err := s.store.InTx(ctx, func(tx Tx) error {
		current, err := s.currentSession(ctx, tx, caller, token, now)
		if err != nil {
			return err
		}
		ids, err := s.revokeSessions(ctx, tx, RevokeQuery{UserID: current.UserID, Except: current.ID, At: now}, events.RevokedByUser)
		n = len(ids)
		return err
	})
	return n, err
}

// currentSession is the live session of the token, which must be the caller's: a token of
// another user's session, or a revoked or expired one, is domain.ErrSessionInvalid.
func (s *Service) currentSession(ctx context.Context, tx Tx, caller auth.Claims, token string, now time.Time) (domain.Session, error) {
	if !caller.IsUser() || !domain.WellFormedSessionToken(token) {
		return domain.Session{}, domain.ErrSessionInvalid
	}
	sess, err := tx.SessionByTokenHash(ctx, domain.HashSessionToken(token))
	if err != nil {
		return domain.Session{}, err
	}
	if !sess.Active(now) || sess.UserID != caller.Subject {
		return domain.Session{}, domain.ErrSessionInvalid
	}
	return sess, nil
}

// revokeSessions revokes what q selects and, when that is anything, writes SessionsRevoked to
// the outbox in the same transaction: the revocation and its news commit together, so no BFF
// keeps serving a session that identity has ended, and none drops one that is still live.
func (s *Service) revokeSessions(ctx context.Context, tx Tx, q RevokeQuery, reason string) ([]string, error) {
	ids, err := tx.RevokeSessions(ctx, q)
	if err != nil || len(ids) == 0 {
		return ids, err
	}
	msg, err := events.SessionsRevoked(q.UserID, ids, reason, q.At)
	if err != nil {
		return nil, err
	}
	return ids, tx.Publish(ctx, msg)
}

// noteDevice records the device of a session being opened and, when the device is new to a
// user who has signed in before, e-mails the owner. It runs before the session is stored, with
// the user's row locked, so two sign-ins at once cannot both count as the first.
func (s *Service) noteDevice(ctx context.Context, tx Tx, u domain.User, sess domain.Session, now time.Time) error {
	hash, ok := domain.DeviceHash(sess.Client.DeviceID)
	if !ok {
		// No device cookie (not a browser through the BFF): nothing to compare with.
		return nil
	}
	before, err := tx.SignedInBefore(ctx, u.ID, hash)
	if err != nil {
		return err
	}
	isNew, err := tx.RecordDevice(ctx, u.ID, hash, now)
	if err != nil || !isNew || !before {
		return err
	}
	msg, err := events.NewSignInEmail(u, sess.Device, sess.Client.Address, now)
	if err != nil {
		return err
	}
	return tx.Publish(ctx, msg)
}
