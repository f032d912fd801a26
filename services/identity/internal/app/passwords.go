package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/platform/auth"

	"github.com/thumela/thumela/services/identity/internal/domain"
	"github.com/thumela/thumela/services/identity/internal/events"
)

// ChangePassword checks the caller's current password, sets the new one, revokes every other
// session of the user (the one named by sessionToken, or else the token's sid, stays) and
// deletes pending codes. Wrong current passwords count against the sign-in throttle.
func (s *Service) ChangePassword(ctx context.Context, caller auth.Claims, current, next, sessionToken string) error {
	if !caller.IsUser() {
		return domain.ErrUnauthenticated
	}
	u, err := s.store.UserByID(ctx, caller.Subject)
	if err != nil {
		return err
	}
	v := &domain.ValidationError{}
	v.Add("new_password", domain.PasswordProblems(next, u.Email)...)
	if len(v.Violations) == 0 && next == current {
		v.Add("new_password", domain.MsgPasswordUnchanged)
	}
	if err := v.Err(); err != nil {
		return err
	}
	now := s.now()
	account := u.Email.String()
	if err := s.checkSignInThrottle(ctx, account, "", now); err != nil {
		return err
	}
	ok, err := domain.VerifyPassword(u.PasswordHash, current)
	if err != nil {
		return fmt.Errorf("user %s: %w", u.ID, err)
	}
	if !ok {
		if err := s.store.RecordFailure(ctx, Failure{Kind: FailurePassword, Account: account, At: now}); err != nil {
			return err
		}
		return domain.ErrWrongCurrentPassword
	}
	hash, err := domain.HashPassword(next)
	if err != nil {
		return err
	}
	return s.store.InTx(ctx, func(tx Tx) error {
		locked, err := tx.UserByIDForUpdate(ctx, u.ID)
		if err != nil {
			return err
		}
		if locked.PasswordHash != u.PasswordHash {
			// Changed by a concurrent call since the check: make the caller try again.
			return domain.ErrWrongCurrentPassword
		}
		locked.PasswordHash, locked.PasswordChangedAt, locked.UpdatedAt = hash, now, now
		if err := tx.UpdateUser(ctx, locked); err != nil {
			return err
		}
		keep := caller.SessionID
		if domain.WellFormedSessionToken(sessionToken) {
			if sess, err := tx.SessionByTokenHash(ctx, domain.HashSessionToken(sessionToken)); err == nil && sess.UserID == u.ID {
				keep = sess.ID
			} else if err != nil && !errors.Is(err, domain.ErrSessionInvalid) {
				return err
			}
		}
		if _, err := uuid.Parse(keep); err != nil {
			keep = ""
		}
		if _, err := s.revokeSessions(ctx, tx, RevokeQuery{UserID: u.ID, Except: keep, At: now}, events.RevokedPasswordChanged); err != nil {
			return err
		}
		if err := publishPasswordChanged(ctx, tx, locked, events.PasswordChanged, now); err != nil {
			return err
		}
		return tx.DeleteCodes(ctx, u.ID)
	})
}

// RequestPasswordReset e-mails a reset code when the account exists and the resend interval
// allows. The answer is the same in every case, so it never says whether the e-mail exists.
func (s *Service) RequestPasswordReset(ctx context.Context, rawEmail string, _ domain.Client) (CodeSent, error) {
	email, err := domain.ParseEmail(rawEmail)
	if err != nil {
		return CodeSent{}, err
	}
	now := s.now()
	err = s.store.InTx(ctx, func(tx Tx) error {
		u, err := tx.UserByEmailForUpdate(ctx, email)
		if errors.Is(err, domain.ErrUserNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		_, err = s.resend(ctx, tx, u, domain.PurposePasswordReset, now)
		return err
	})
	var throttled *domain.ThrottledError
	if err != nil && !errors.As(err, &throttled) {
		return CodeSent{}, err
	}
	return s.pretendSent(now), nil
}

// ResetPassword sets a new password with an e-mailed reset code and revokes every session. The
// code proves the address is the user's, so an unverified account becomes verified. As in
// VerifyEmail, every refusal is the one domain.ErrCodeInvalid (no "tries left", which would
// tell that a reset is pending) and counts against the code throttle, account or not; the
// new password is hashed before the lookup, so the time taken tells nothing either.
func (s *Service) ResetPassword(ctx context.Context, rawEmail, digits, next string, client domain.Client) error {
	email, err := s.parseCodeRequest(rawEmail, digits)
	if err != nil {
		return err
	}
	v := &domain.ValidationError{}
	v.Add("new_password", domain.PasswordProblems(next, email)...)
	if err := v.Err(); err != nil {
		return err
	}
	now := s.now()
	if err := s.checkCodeThrottle(ctx, email, client.Address, now); err != nil {
		return err
	}
	hash, err := domain.HashPassword(next)
	if err != nil {
		return err
	}
	var ok bool
	err = s.store.InTx(ctx, func(tx Tx) error {
		u, c, found, err := lockUserAndCode(ctx, tx, email, domain.PurposePasswordReset)
		if err != nil {
			return err
		}
		if ok, err = s.tryCode(ctx, tx, c, found, email, digits, client, now); !ok || err != nil {
			return err // a refused try is committed: the count is the point
		}
		u.PasswordHash, u.PasswordChangedAt, u.UpdatedAt = hash, now, now
		if !u.Verified() {
			u.EmailVerifiedAt = now
			verified, err := events.Verified(u, now)
			if err != nil {
				return err
			}
			if err := tx.Publish(ctx, verified); err != nil {
				return err
			}
		}
		if err := tx.UpdateUser(ctx, u); err != nil {
			return err
		}
		if _, err := s.revokeSessions(ctx, tx, RevokeQuery{UserID: u.ID, At: now}, events.RevokedPasswordReset); err != nil {
			return err
		}
		if err := publishPasswordChanged(ctx, tx, u, events.PasswordReset, now); err != nil {
			return err
		}
		return tx.DeleteCodes(ctx, u.ID)
	})
	if err != nil {
		return err
	}
	if !ok {
		return domain.ErrCodeInvalid
	}
	return nil
}

// publishPasswordChanged e-mails the owner, in the transaction that changed the password, that
// it changed: a password changed by someone else is the start of a takeover, and the owner's
// inbox is where they can learn of it (as with a new sign-in or a passkey added).
func publishPasswordChanged(ctx context.Context, tx Tx, u domain.User, how string, now time.Time) error {
	msg, err := events.PasswordChangedEmail(u, how, now)
	if err != nil {
		return err
	}
	return tx.Publish(ctx, msg)
}
