package app

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/identity/internal/domain"
	"github.com/thumela/thumela/services/identity/internal/events"
	"github.com/thumela/thumela/services/platform/clientnet"
)

// SignedUp is the answer to SignUp. It is the same whether or not the address already has an
// account, so it names no user.
type SignedUp struct {
	Email             domain.Email
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
	// ReferralCode is a friend's code from /signup?ref=<code>, optional; kept on a new
	// account only (an address that already has one ignores it).
	ReferralCode string
}

// SignUp creates an unverified account and e-mails a verification code: the user, the code,
// user.signed_up and the e-mail notification are written in one transaction.
//
// The answer never tells whether the address already has an account: every valid form gets
// "check your e-mail" with the times a fresh code would have, after the same argon2id work.
// What happens behind it depends on the address:
//   - new: the account is created and the code e-mailed;
//   - taken by a verified account: nothing changes, and the owner is e-mailed that someone tried
//     to sign up with their address (TEMPLATE_SIGN_UP_ATTEMPT), with the way to reset the
//     password if it was them;
//   - taken by an account that was never verified, with the password chosen then: the same
//     person coming back. The names are updated and a fresh code is sent (or, within the resend
//     interval, the one already sent stands);
//   - taken by an unverified account, with another password: the account's password becomes one
//     nobody knows (domain.UnusablePasswordHash), its names and code stay, and the owner gets the
//     sign-up-attempt e-mail. Two people have each typed a password for an address that neither
//     has proved, and either may be a stranger: letting the second replace the password would
//     let a stranger set the password its owner then unknowingly verifies, and keeping the
//     first let a stranger who signed up first keep theirs while the owner, signing up later
//     and asking for a code, verified the stranger's account (account pre-hijacking). So
//     neither password opens it: the owner verifies with a code from their inbox and chooses a
//     password with "Forgot password?", which proves the address (and verifies it).
func (s *Service) SignUp(ctx context.Context, in SignUpInput) (SignedUp, error) {
	v := &domain.ValidationError{}
	name, err := domain.ParseName(in.FirstName, in.LastName)
	collect(v, err)
	email, err := domain.ParseEmail(in.Email)
	collect(v, err)
	v.Add("password", domain.PasswordProblems(in.Password, email)...)
	referral, err := domain.ParseReferralCode(in.ReferralCode)
	collect(v, err)
	if err := v.Err(); err != nil {
		return SignedUp{}, err
	}
	// Two argon2id computations on every path, outside the transaction: the new password's hash
	// and a check against the unverified account's hash (or a dummy one), so the time taken
	// does not tell an address with an account from one without.
	hash, err := domain.HashPassword(in.Password)
	if err != nil {
		return SignedUp{}, err
	}
	prior, err := s.store.UserByEmail(ctx, email)
	if err != nil && !errors.Is(err, domain.ErrUserNotFound) {
		return SignedUp{}, err
	}
	samePassword := false
	if err == nil && !prior.Verified() {
		if samePassword, err = domain.VerifyPassword(prior.PasswordHash, in.Password); err != nil {
			return SignedUp{}, err
		}
	} else {
		domain.VerifyDummy(in.Password)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return SignedUp{}, err
	}
	now := s.now()
	sent := s.pretendSent(now)
	out := SignedUp{Email: email, CodeExpiresAt: sent.CodeExpiresAt, ResendAvailableAt: sent.ResendAvailableAt}
	signUp := func(tx Tx) error {
		existing, err := tx.UserByEmailForUpdate(ctx, email)
		switch {
		case errors.Is(err, domain.ErrUserNotFound):
			u := domain.User{
				ID: id.String(), Email: email, PasswordHash: hash, Name: name,
				CreatedAt: now, UpdatedAt: now, PasswordChangedAt: now, ReferralCode: referral,
			}
			if err := tx.InsertUser(ctx, u); err != nil {
				return err
			}
			signedUp, err := events.SignedUp(u, now)
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
			out.CodeExpiresAt, out.ResendAvailableAt = c.ExpiresAt, c.ResendAvailableAt(s.cfg.Codes)
			return nil
		case err != nil:
			return err
		case existing.Verified():
			return s.tellOwnerOfSignUpAttempt(ctx, tx, existing, now)
		}
		same := samePassword
		if existing.PasswordHash != prior.PasswordHash {
			// Changed (or created) since the read above by a concurrent call: check again.
			if same, err = domain.VerifyPassword(existing.PasswordHash, in.Password); err != nil {
				return err
			}
		}
		if !same {
			unusable, err := domain.UnusablePasswordHash()
			if err != nil {
				return err
			}
			existing.PasswordHash, existing.PasswordChangedAt, existing.UpdatedAt = unusable, now, now
			if err := tx.UpdateUser(ctx, existing); err != nil {
				return err
			}
			return s.tellOwnerOfSignUpAttempt(ctx, tx, existing, now)
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
		// Only the person who knows the password sees the times of the code already sent.
		out.CodeExpiresAt, out.ResendAvailableAt = c.ExpiresAt, c.ResendAvailableAt(s.cfg.Codes)
		return nil
	}
	err = s.store.InTx(ctx, signUp)
	if errors.Is(err, domain.ErrEmailTaken) {
		// A concurrent sign-up of the same address inserted it first (the row did not exist to
		// lock): run again, now as a sign-up for an existing account.
		err = s.store.InTx(ctx, signUp)
	}
	if err != nil {
		return SignedUp{}, err
	}
	return out, nil
}

// tellOwnerOfSignUpAttempt e-mails the owner of an existing account that someone tried to sign
// up with their address. It names neither the names nor the password that were typed: the
// e-mail is the owner's, and the form's contents are a stranger's.
func (s *Service) tellOwnerOfSignUpAttempt(ctx context.Context, tx Tx, u domain.User, now time.Time) error {
	msg, err := events.SignUpAttemptEmail(u, now)
	if err != nil {
		return err
	}
	return tx.Publish(ctx, msg)
}

// VerifyEmail checks the e-mailed code, marks the account verified (publishing user.verified)
// and opens a session. Every refusal (no account, no code, a wrong, expired, used or dead
// code, an account already verified) is the one domain.ErrCodeInvalid, counted against the
// code throttle alike, so the form tells nobody which addresses have accounts.
func (s *Service) VerifyEmail(ctx context.Context, rawEmail, digits string, client domain.Client) (Authenticated, error) {
	email, err := s.parseCodeRequest(rawEmail, digits)
	if err != nil {
		return Authenticated{}, err
	}
	now := s.now()
	if err := s.checkCodeThrottle(ctx, email, client.Address, now); err != nil {
		return Authenticated{}, err
	}
	var out Authenticated
	var ok bool
	err = s.store.InTx(ctx, func(tx Tx) error {
		u, c, found, err := lockUserAndCode(ctx, tx, email, domain.PurposeEmailVerification)
		if err != nil {
			return err
		}
		if ok, err = s.tryCode(ctx, tx, c, found, email, digits, client, now); !ok || err != nil {
			return err // a refused try is committed: the count is the point
		}
		if !u.Verified() {
			u.EmailVerifiedAt, u.UpdatedAt = now, now
			if err := tx.UpdateUser(ctx, u); err != nil {
				return err
			}
			verified, err := events.Verified(u, now)
			if err != nil {
				return err
			}
			if err := tx.Publish(ctx, verified); err != nil {
				return err
			}
		}
		out, err = s.openSessionBy(ctx, tx, u, client, domain.MethodEmailCode, now)
		return err
	})
	if err != nil {
		return Authenticated{}, err
	}
	if !ok {
		return Authenticated{}, domain.ErrCodeInvalid
	}
	return out, nil
}

// ResendCode sends a new code for purpose, killing the previous one. The answer is the same
// for every address: the times a fresh code would have. A verification code goes only to an
// account that is not verified yet, and only once the resend interval since the last one has
// passed (the form counts it down from the answer); otherwise nothing is sent. A reset code
// follows RequestPasswordReset.
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
		_, err = s.resend(ctx, tx, u, domain.PurposeEmailVerification, now)
		return err
	})
	var throttled *domain.ThrottledError
	if err != nil && !errors.As(err, &throttled) {
		return CodeSent{}, err
	}
	return s.pretendSent(now), nil
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
// (found reports whether there is one). An unknown e-mail is no error: it has no code (found is
// false), which is refused like any other try, so a code form does not tell which addresses
// have accounts.
func lockUserAndCode(ctx context.Context, tx Tx, email domain.Email, purpose domain.CodePurpose) (u domain.User, c domain.Code, found bool, err error) {
	u, err = tx.UserByEmailForUpdate(ctx, email)
	if errors.Is(err, domain.ErrUserNotFound) {
		return domain.User{}, c, false, nil
	}
	if err != nil {
		return u, c, false, err
	}
	c, found, err = tx.Code(ctx, u.ID, purpose)
	return u, c, found, err
}

// tryCode tries digits against the code (found false: there is none, or no account) and stores
// the result. Any refusal records a code failure for the address typed, known or not, so the
// throttle treats every address alike; ok is false for a refusal, which the caller answers
// with domain.ErrCodeInvalid after committing, and err is a fault.
func (s *Service) tryCode(ctx context.Context, tx Tx, c domain.Code, found bool, email domain.Email, digits string, client domain.Client, now time.Time) (ok bool, err error) {
	if found {
		checkErr := c.Check(digits, now, s.cfg.Codes)
		var incorrect *domain.CodeIncorrectError
		switch {
		case checkErr == nil:
			return true, tx.SaveCode(ctx, c)
		case errors.As(checkErr, &incorrect), errors.Is(checkErr, domain.ErrTooManyCodeAttempts):
			if err := tx.SaveCode(ctx, c); err != nil { // the try counts against the code
				return false, err
			}
		case errors.Is(checkErr, domain.ErrCodeExpired):
		default:
			return false, checkErr
		}
	}
	return false, tx.RecordFailure(ctx, Failure{Kind: FailureCode, Account: email.String(), Address: clientnet.Key(client.Address), At: now})
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
	msg, err := events.CodeEmail(s.cfg.SealTo, u, purpose, digits, s.cfg.Codes.TTL, now)
	if err != nil {
		return domain.Code{}, err
	}
	return c, tx.Publish(ctx, msg)
}

func (s *Service) pretendSent(now time.Time) CodeSent {
	return CodeSent{CodeExpiresAt: now.Add(s.cfg.Codes.TTL), ResendAvailableAt: now.Add(s.cfg.Codes.ResendAfter)}
}

// collect adds the violations of a *domain.ValidationError err to v, so that a form is refused
// with every problem at once.
func collect(v *domain.ValidationError, err error) {
	var ve *domain.ValidationError
	if errors.As(err, &ve) {
		v.Violations = append(v.Violations, ve.Violations...)
	}
}
