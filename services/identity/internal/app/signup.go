package app

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/identity/internal/domain"
)

// SignedUp is the answer to SignUp.
type SignedUp struct {
	User              domain.User
	CodeExpiresAt     time.Time
	ResendAvailableAt time.Time
}

// CodeSent says when the code sent (or, where nothing may be revealed, that would have been
// sent) expires and when another may be asked for.
type CodeSent struct {
	CodeExpiresAt     time.Time
	ResendAvailableAt time.Time
}

// SignUpInput is a sign-up form.
type SignUpInput struct {
	FirstName, LastName, Email, Password string
	Client                               domain.Client
}

// SignUp creates an unverified account and e-mails a verification code: the user, the code,
// user.signed_up and the e-mail notification are written in one transaction.
//
// An e-mail that is taken by a verified account answers domain.ErrEmailTaken. One taken by an
// account that was never verified is treated as the same person coming back only when the
// password matches the one chosen then: the names are updated and a fresh code is sent (or,
// within the resend interval, the one already sent stands). With another password it answers
// ErrEmailTaken too. Letting a second sign-up replace the password of an unverified account
// would let anyone who knows an address set the password that its owner then unknowingly
// verifies; the owner who forgot their password uses the reset flow, which proves ownership
// of the address.
func (s *Service) SignUp(ctx context.Context, in SignUpInput) (SignedUp, error) {
	v := &domain.ValidationError{}
	name, err := domain.ParseName(in.FirstName, in.LastName)
	collect(v, err)
	email, err := domain.ParseEmail(in.Email)
	collect(v, err)
	v.Add("password", domain.PasswordProblems(in.Password, email)...)
	if err := v.Err(); err != nil {
		return SignedUp{}, err
	}
	hash, err := domain.HashPassword(in.Password)
	if err != nil {
		return SignedUp{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return SignedUp{}, err
	}
	now := s.now()
	var out SignedUp
	err = s.store.InTx(ctx, func(tx Tx) error {
		existing, err := tx.UserByEmailForUpdate(ctx, email)
		switch {
		case errors.Is(err, domain.ErrUserNotFound):
			u := domain.User{
				ID: id.String(), Email: email, PasswordHash: hash, Name: name,
				CreatedAt: now, UpdatedAt: now, PasswordChangedAt: now,
			}
			if err := tx.InsertUser(ctx, u); err != nil {
				return err
			}
			signedUp, err := signedUpMessage(u, now)
			if err != nil {
				return err
			}
			if err := tx.Publish(ctx, signedUp); err != nil {
				return err
			}
			c, err := s.sendCode(ctx, tx, u, domain.PurposeEmailVerification, now)
			if err != nil {
				return err
			}
			out = SignedUp{User: u, CodeExpiresAt: c.ExpiresAt, ResendAvailableAt: c.ResendAvailableAt(s.cfg.Codes)}
			return nil
		case err != nil:
			return err
		case existing.Verified():
			return domain.ErrEmailTaken
		}
		same, err := domain.VerifyPassword(existing.PasswordHash, in.Password)
		if err != nil {
			return err
		}
		if !same {
			return domain.ErrEmailTaken
		}
		existing.Name = name
		existing.UpdatedAt = now
		if err := tx.UpdateUser(ctx, existing); err != nil {
			return err
		}
		c, err := s.codeOrNew(ctx, tx, existing, domain.PurposeEmailVerification, now)
		if err != nil {
			return err
		}
		out = SignedUp{User: existing, CodeExpiresAt: c.ExpiresAt, ResendAvailableAt: c.ResendAvailableAt(s.cfg.Codes)}
		return nil
	})
	if err != nil {
		return SignedUp{}, err
	}
	return out, nil
}

// VerifyEmail checks the e-mailed code, marks the account verified (publishing user.verified)
// and opens a session.
func (s *Service) VerifyEmail(ctx context.Context, rawEmail, digits string, client domain.Client) (Authenticated, error) {
	email, err := s.parseCodeRequest(rawEmail, digits)
	if err != nil {
		return Authenticated{}, err
	}
	now := s.now()
	if err := s.checkCodeThrottle(ctx, email, now); err != nil {
		return Authenticated{}, err
	}
	var out Authenticated
	var wrong error
	err = s.store.InTx(ctx, func(tx Tx) error {
		u, c, found, err := lockUserAndCode(ctx, tx, email, domain.PurposeEmailVerification)
		if err != nil {
			return err
		}
		if u.Verified() && (!found || !c.UsedAt.IsZero()) {
			return domain.ErrAlreadyVerified
		}
		if !found {
			return domain.ErrCodeExpired
		}
		if wrong, err = s.checkCode(ctx, tx, &c, email, digits, client, now); wrong != nil || err != nil {
			return err // a wrong try is committed: the count is the point
		}
		if !u.Verified() {
			u.EmailVerifiedAt, u.UpdatedAt = now, now
			if err := tx.UpdateUser(ctx, u); err != nil {
				return err
			}
			verified, err := verifiedMessage(u, now)
			if err != nil {
				return err
			}
			if err := tx.Publish(ctx, verified); err != nil {
				return err
			}
		}
		out, err = s.openSession(ctx, tx, u, client, now)
		return err
	})
	if err != nil {
		return Authenticated{}, err
	}
	if wrong != nil {
		return Authenticated{}, wrong
	}
	return out, nil
}

// ResendCode sends a new code for purpose, killing the previous one. For an e-mail without an
// account (or, for verification, with a verified one) it answers as if it had sent one and
// sends nothing. A verification code asked for within the resend interval is refused with a
// *domain.ThrottledError; a reset code is then silently not sent (as RequestPasswordReset).
func (s *Service) ResendCode(ctx context.Context, rawEmail string, purpose domain.CodePurpose, client domain.Client) (CodeSent, error) {
	switch purpose {
	case domain.PurposePasswordReset:
		return s.RequestPasswordReset(ctx, rawEmail, client)
	case domain.PurposeEmailVerification:
	default:
		v := &domain.ValidationError{}
		v.Add("purpose", "Choose what the code is for.")
		return CodeSent{}, v
	}
	email, err := domain.ParseEmail(rawEmail)
	if err != nil {
		return CodeSent{}, err
	}
	now := s.now()
	out := s.pretendSent(now)
	err = s.store.InTx(ctx, func(tx Tx) error {
		u, err := tx.UserByEmailForUpdate(ctx, email)
		if errors.Is(err, domain.ErrUserNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if u.Verified() {
			return nil
		}
		c, err := s.resend(ctx, tx, u, domain.PurposeEmailVerification, now)
		if err != nil {
			return err
		}
		out = CodeSent{CodeExpiresAt: c.ExpiresAt, ResendAvailableAt: c.ResendAvailableAt(s.cfg.Codes)}
		return nil
	})
	if err != nil {
		return CodeSent{}, err
	}
	return out, nil
}

// parseCodeRequest checks the e-mail and that the code is 6 digits.
func (s *Service) parseCodeRequest(rawEmail, digits string) (domain.Email, error) {
	v := &domain.ValidationError{}
	email, err := domain.ParseEmail(rawEmail)
	collect(v, err)
	if len(digits) != domain.CodeLen || strings.Trim(digits, "0123456789") != "" {
		v.Add("code", "The code must be 6 digits.")
	}
	return email, v.Err()
}

// lockUserAndCode locks the account of email for the rest of tx and reads its code for purpose
// (found reports whether there is one). An unknown e-mail answers ErrCodeExpired, the answer a
// wrong or stale code gets, so a code form does not tell which addresses have accounts.
func lockUserAndCode(ctx context.Context, tx Tx, email domain.Email, purpose domain.CodePurpose) (u domain.User, c domain.Code, found bool, err error) {
	u, err = tx.UserByEmailForUpdate(ctx, email)
	if errors.Is(err, domain.ErrUserNotFound) {
		return u, c, false, domain.ErrCodeExpired
	}
	if err != nil {
		return u, c, false, err
	}
	c, found, err = tx.Code(ctx, u.ID, purpose)
	return u, c, found, err
}

// checkCode tries digits against c and stores the result. It returns the user's error for a
// wrong code (to be answered after the commit that keeps the count) or a fault.
func (s *Service) checkCode(ctx context.Context, tx Tx, c *domain.Code, email domain.Email, digits string, client domain.Client, now time.Time) (wrong, fault error) {
	checkErr := c.Check(digits, now, s.cfg.Codes)
	var incorrect *domain.CodeIncorrectError
	switch {
	case checkErr == nil:
		return nil, tx.SaveCode(ctx, *c)
	case errors.As(checkErr, &incorrect), errors.Is(checkErr, domain.ErrTooManyCodeAttempts):
		if err := tx.SaveCode(ctx, *c); err != nil {
			return nil, err
		}
		if err := tx.RecordFailure(ctx, Failure{Kind: FailureCode, Account: email.String(), Address: client.Address, At: now}); err != nil {
			return nil, err
		}
		return checkErr, nil
	default:
		return nil, checkErr
	}
}

// resend sends a new code unless one was sent within the resend interval
// (*domain.ThrottledError).
func (s *Service) resend(ctx context.Context, tx Tx, u domain.User, purpose domain.CodePurpose, now time.Time) (domain.Code, error) {
	c, found, err := tx.Code(ctx, u.ID, purpose)
	if err != nil {
		return domain.Code{}, err
	}
	if found {
		if err := c.CheckResend(now, s.cfg.Codes); err != nil {
			return domain.Code{}, err
		}
	}
	return s.sendCode(ctx, tx, u, purpose, now)
}

// codeOrNew keeps a live code sent within the resend interval and sends a new one otherwise.
func (s *Service) codeOrNew(ctx context.Context, tx Tx, u domain.User, purpose domain.CodePurpose, now time.Time) (domain.Code, error) {
	c, found, err := tx.Code(ctx, u.ID, purpose)
	if err != nil {
		return domain.Code{}, err
	}
	if found && c.Live(now, s.cfg.Codes) && c.CheckResend(now, s.cfg.Codes) != nil {
		return c, nil
	}
	return s.sendCode(ctx, tx, u, purpose, now)
}

// sendCode replaces the user's code for purpose and writes the e-mail to the outbox.
func (s *Service) sendCode(ctx context.Context, tx Tx, u domain.User, purpose domain.CodePurpose, now time.Time) (domain.Code, error) {
	c, digits, err := domain.NewCode(u.ID, purpose, now, s.cfg.Codes)
	if err != nil {
		return domain.Code{}, err
	}
	if err := tx.SaveCode(ctx, c); err != nil {
		return domain.Code{}, err
	}
	msg, err := codeEmail(s.cfg.SealTo, u, purpose, digits, s.cfg.Codes.TTL, now)
	if err != nil {
		return domain.Code{}, err
	}
	return c, tx.Publish(ctx, msg)
}

func (s *Service) pretendSent(now time.Time) CodeSent {
	return CodeSent{CodeExpiresAt: now.Add(s.cfg.Codes.TTL), ResendAvailableAt: now.Add(s.cfg.Codes.ResendAfter)}
}
