package app

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/seal"

	"github.com/thumela/thumela/services/identity/internal/domain"
)

// MaxAccessTokenTTL is the longest an access token may live: it cannot be revoked, so it must
// be short.
const MaxAccessTokenTTL = 10 * time.Minute

// ThrottlePolicy bounds failures per Window: wrong passwords per account and per client
// address, wrong codes per account.
type ThrottlePolicy struct {
	Window          time.Duration
	AccountFailures int
	AddressFailures int
	CodeFailures    int
}

// Config is everything the use cases need to know.
type Config struct {
	Codes          domain.CodePolicy
	Sessions       domain.SessionPolicy
	AccessTokenTTL time.Duration
	Throttle       ThrottlePolicy
	// Issuer is the iss of every token signed (service.TokenIssuer).
	Issuer string
	// Signer signs new tokens; Previous keys still verify tokens signed before a rotation.
	Signer   auth.Signer
	Previous []auth.PublicKey
	// ServiceSecrets maps internal service names to their IssueServiceToken secrets.
	ServiceSecrets map[string]string
	// SealTo is the notifications service's public key: the codes e-mailed travel sealed to it.
	SealTo seal.PublicKey
	// Now is the clock; nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

// Service implements identity's use cases.
type Service struct {
	store    Store
	cfg      Config
	now      func() time.Time
	logger   *slog.Logger
	services map[string][sha256.Size]byte
}

// New checks cfg and returns the service.
func New(store Store, cfg Config) (*Service, error) {
	switch {
	case cfg.AccessTokenTTL <= 0 || cfg.AccessTokenTTL > MaxAccessTokenTTL:
		return nil, fmt.Errorf("access token TTL %s must be positive and at most %s", cfg.AccessTokenTTL, MaxAccessTokenTTL)
	case cfg.Codes.TTL <= 0 || cfg.Codes.ResendAfter < 0 || cfg.Codes.MaxAttempts < 1:
		return nil, errors.New("code TTL, resend interval and attempts must be positive")
	case cfg.Sessions.IdleTTL <= 0 || cfg.Sessions.AbsoluteTTL < cfg.Sessions.IdleTTL:
		return nil, errors.New("session idle TTL must be positive and at most the absolute TTL")
	case cfg.Throttle.Window <= 0 || cfg.Throttle.AccountFailures < 1 || cfg.Throttle.AddressFailures < 1 || cfg.Throttle.CodeFailures < 1:
		return nil, errors.New("throttle window and limits must be positive")
	case cfg.Signer.KeyID == "" || len(cfg.Signer.Key) == 0:
		return nil, errors.New("no signing key")
	case cfg.Issuer == "":
		return nil, errors.New("no token issuer")
	case cfg.SealTo.ID == "":
		return nil, errors.New("no notifications public key to seal codes to")
	}
	s := &Service{store: store, cfg: cfg, logger: cfg.Logger, services: map[string][sha256.Size]byte{}}
	clock := cfg.Now
	if clock == nil {
		clock = time.Now
	}
	// PostgreSQL keeps microseconds: times compared after a round trip must not have more.
	s.now = func() time.Time { return clock().Truncate(time.Microsecond) }
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	for name, secret := range cfg.ServiceSecrets {
		s.services[name] = sha256.Sum256([]byte(secret))
	}
	domain.WarmUp()
	return s, nil
}

// SignedUp is the answer to SignUp.
type SignedUp struct {
	User              domain.User
	CodeExpiresAt     time.Time
	ResendAvailableAt time.Time
}

// Authenticated is an opened session.
type Authenticated struct {
	User             domain.User
	SessionToken     string
	SessionExpiresAt time.Time
}

// Grant is an access token for a live session.
type Grant struct {
	User             domain.User
	AccessToken      string
	ExpiresAt        time.Time
	SessionExpiresAt time.Time
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
		sess.Touch(now, s.cfg.Sessions)
		if err := tx.UpdateSession(ctx, sess); err != nil {
			return err
		}
		exp := now.Add(s.cfg.AccessTokenTTL)
		access, err := s.cfg.Signer.Sign(auth.Claims{
			Subject: u.ID, Kind: auth.KindUser, Email: u.Email.String(),
			GivenName: u.Name.First(), FamilyName: u.Name.Last(), SessionID: sess.ID,
			IssuedAt: now, ExpiresAt: exp, Issuer: s.cfg.Issuer,
		})
		if err != nil {
			return err
		}
		out = Grant{User: u, AccessToken: access, ExpiresAt: exp.Truncate(time.Second), SessionExpiresAt: sess.ExpiresAt()}
		return nil
	})
	if err != nil {
		return Grant{}, err
	}
	return out, nil
}

// SignOut revokes the session. An unknown or already revoked token is not an error: the
// browser is signed out either way.
func (s *Service) SignOut(ctx context.Context, token string) error {
	if !domain.WellFormedSessionToken(token) {
		return nil
	}
	return s.store.RevokeSession(ctx, domain.HashSessionToken(token), s.now())
}

// GetUser returns the caller's own account; any other id is domain.ErrUserNotFound.
func (s *Service) GetUser(ctx context.Context, caller auth.Claims, id string) (domain.User, error) {
	if !caller.IsUser() || caller.Subject != id {
		return domain.User{}, domain.ErrUserNotFound
	}
	return s.store.UserByID(ctx, id)
}

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
		if err := tx.RevokeUserSessions(ctx, u.ID, keep, now); err != nil {
			return err
		}
		return tx.DeleteCodes(ctx, u.ID)
	})
}

// RequestPasswordReset e-mails a reset code when the account exists and the resend interval
// allows. The answer is the same in every case, so it never says whether the e-mail exists.
func (s *Service) RequestPasswordReset(ctx context.Context, rawEmail string, client domain.Client) (CodeSent, error) {
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
// code proves the address is the user's, so an unverified account becomes verified.
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
	if err := s.checkCodeThrottle(ctx, email, now); err != nil {
		return err
	}
	hash, err := domain.HashPassword(next)
	if err != nil {
		return err
	}
	var wrong error
	err = s.store.InTx(ctx, func(tx Tx) error {
		u, c, found, err := lockUserAndCode(ctx, tx, email, domain.PurposePasswordReset)
		if err != nil {
			return err
		}
		if !found {
			return domain.ErrCodeExpired
		}
		if wrong, err = s.checkCode(ctx, tx, &c, email, digits, client, now); wrong != nil || err != nil {
			return err
		}
		u.PasswordHash, u.PasswordChangedAt, u.UpdatedAt = hash, now, now
		if !u.Verified() {
			u.EmailVerifiedAt = now
			verified, err := verifiedMessage(u, now)
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
		if err := tx.RevokeUserSessions(ctx, u.ID, "", now); err != nil {
			return err
		}
		return tx.DeleteCodes(ctx, u.ID)
	})
	if err != nil {
		return err
	}
	return wrong
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

// Cleanup deletes throttle records, sessions and codes that no rule reads any more.
func (s *Service) Cleanup(ctx context.Context) (int64, error) {
	now := s.now()
	return s.store.Cleanup(ctx, now.Add(-s.cfg.Throttle.Window), now.Add(-24*time.Hour), now.Add(-24*time.Hour))
}

// ---- helpers ----

func collect(v *domain.ValidationError, err error) {
	var ve *domain.ValidationError
	if errors.As(err, &ve) {
		v.Violations = append(v.Violations, ve.Violations...)
	}
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

// accountKey is the throttle key of what was typed as an e-mail, valid or not.
func accountKey(raw string) string {
	s := strings.ToLower(strings.TrimSpace(raw))
	if len(s) > 254 {
		s = s[:254]
	}
	return strings.ToValidUTF8(s, "")
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

// openSession starts a session for u.
func (s *Service) openSession(ctx context.Context, tx Tx, u domain.User, c domain.Client, now time.Time) (Authenticated, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return Authenticated{}, err
	}
	sess, token, err := domain.NewSession(id.String(), u.ID, now, s.cfg.Sessions, c)
	if err != nil {
		return Authenticated{}, err
	}
	if err := tx.InsertSession(ctx, sess); err != nil {
		return Authenticated{}, err
	}
	return Authenticated{User: u, SessionToken: token, SessionExpiresAt: sess.ExpiresAt()}, nil
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
