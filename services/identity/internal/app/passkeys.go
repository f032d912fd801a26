package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/google/uuid"

	"github.com/thumela/thumela/services/platform/auth"

	"github.com/thumela/thumela/services/identity/internal/domain"
	"github.com/thumela/thumela/services/identity/internal/events"
)

// Passkeys are WebAuthn credentials, verified with github.com/go-webauthn/webauthn (well kept,
// covers every attestation format and the spec's checks). Identity keeps the ceremony state
// (the challenge) itself, in webauthn_challenges: single use, bound to a purpose, to the
// session that asked where there is one, and five minutes long.

// PasskeyConfig is the WebAuthn relying party. An empty RPID turns passkeys off: the Begin
// calls then answer ErrPasskeysUnavailable and step-up asks for the password.
type PasskeyConfig struct {
	// RPID is the site's registrable domain ("thumela.co.za"; "localhost" in development).
	RPID string
	// RPName is what the browser shows ("Thumela").
	RPName string
	// Origins are the exact origins pages run on ("https://thumela.co.za").
	Origins []string
}

const (
	// ChallengeTTL is how long a WebAuthn ceremony may take between Begin and Finish.
	ChallengeTTL = 5 * time.Minute
	// MaxPasskeys bounds a user's passkeys: enough for every device a person owns.
	MaxPasskeys = 20
	// maxCredentialJSON bounds what the browser sends back (a registration with an attestation
	// certificate chain is a few kilobytes).
	maxCredentialJSON = 64 << 10
	// maxPasskeyName is the longest name kept, in characters.
	maxPasskeyName = 64
)

// Passkey errors, mapped to gRPC codes by the ports.
var (
	// ErrPasskeysUnavailable: no relying party is configured (FailedPrecondition).
	ErrPasskeysUnavailable = errors.New("passkeys are not configured")
	// ErrPasskeyNotFound: no passkey of this user has that id, or no passkey has that
	// credential id (NotFound).
	ErrPasskeyNotFound = errors.New("passkey not found")
	// ErrPasskeyExists: the credential is registered already (AlreadyExists).
	ErrPasskeyExists = errors.New("passkey already registered")
	// ErrTooManyPasskeys: the user has MaxPasskeys (FailedPrecondition).
	ErrTooManyPasskeys = errors.New("too many passkeys")
	// ErrChallengeInvalid: the ceremony's challenge is unknown, used, expired, for another
	// purpose or another session (FailedPrecondition: start again).
	ErrChallengeInvalid = errors.New("passkey challenge invalid")
	// ErrPasskeyRejected: the browser's answer did not verify (wrong origin or challenge, bad
	// signature, no user verification, unknown credential, a cloned authenticator)
	// (PermissionDenied).
	ErrPasskeyRejected = errors.New("passkey not accepted")
)

// Passkey is a registered WebAuthn credential.
type Passkey struct {
	ID                string
	UserID            string
	CredentialID      []byte
	PublicKey         []byte
	SignCount         uint32
	Transports        []string
	AAGUID            []byte
	AttestationType   string
	AttestationFormat string
	// Attestation is the raw attestation (webauthn.CredentialAttestation as JSON).
	Attestation  []byte
	Flags        byte
	CloneWarning bool
	Name         string
	CreatedAt    time.Time
	LastUsedAt   time.Time // zero until first used
}

// ChallengePurpose is what a WebAuthn challenge may finish.
type ChallengePurpose string

const (
	PurposeRegistration ChallengePurpose = "registration"
	PurposeSignIn       ChallengePurpose = "sign_in"
	PurposeStepUp       ChallengePurpose = "step_up"
)

// Challenge is a ceremony between Begin and Finish.
type Challenge struct {
	ID      string
	Purpose ChallengePurpose
	// SessionID and UserID are empty for a sign-in (nobody is known yet).
	SessionID string
	UserID    string
	// SessionData is webauthn.SessionData as JSON.
	SessionData []byte
	CreatedAt   time.Time
	ExpiresAt   time.Time
}

// NewRelyingParty checks cfg and returns the WebAuthn relying party, or nil when cfg.RPID is
// empty (passkeys off).
func NewRelyingParty(cfg PasskeyConfig) (*webauthn.WebAuthn, error) {
	if cfg.RPID == "" {
		return nil, nil
	}
	if len(cfg.Origins) == 0 {
		return nil, errors.New("passkeys: no allowed origins")
	}
	name := cfg.RPName
	if name == "" {
		name = "Thumela"
	}
	timeout := webauthn.TimeoutConfig{Enforce: true, Timeout: ChallengeTTL, TimeoutUVD: ChallengeTTL}
	rp, err := webauthn.New(&webauthn.Config{
		RPID:          cfg.RPID,
		RPDisplayName: name,
		RPOrigins:     cfg.Origins,
		// No attestation: a bank needs the user's device to hold the key, not to know its
		// make, and asking makes browsers show an extra privacy prompt.
		AttestationPreference: protocol.PreferNoAttestation,
		Timeouts:              webauthn.TimeoutsConfig{Login: timeout, Registration: timeout},
	})
	if err != nil {
		return nil, fmt.Errorf("passkeys: %w", err)
	}
	return rp, nil
}

// passkeyUser adapts a user and their passkeys to the library.
type passkeyUser struct {
	u     domain.User
	creds []webauthn.Credential
}

// userHandle is the WebAuthn user handle: the user id's 16 bytes. It names no person (no
// e-mail), which is what the spec asks of it.
func userHandle(userID string) []byte {
	id, err := uuid.Parse(userID)
	if err != nil {
		return []byte(userID)
	}
	return id[:]
}

func (p passkeyUser) WebAuthnID() []byte                         { return userHandle(p.u.ID) }
func (p passkeyUser) WebAuthnName() string                       { return p.u.Email.String() }
func (p passkeyUser) WebAuthnCredentials() []webauthn.Credential { return p.creds }
func (p passkeyUser) WebAuthnDisplayName() string {
	return strings.TrimSpace(p.u.Name.First() + " " + p.u.Name.Last())
}

func newPasskeyUser(u domain.User, keys []Passkey) passkeyUser {
	creds := make([]webauthn.Credential, 0, len(keys))
	for _, k := range keys {
		creds = append(creds, k.credential())
	}
	return passkeyUser{u: u, creds: creds}
}

// credential is the library's view of a stored passkey.
func (p Passkey) credential() webauthn.Credential {
	transports := make([]protocol.AuthenticatorTransport, 0, len(p.Transports))
	for _, t := range p.Transports {
		transports = append(transports, protocol.AuthenticatorTransport(t))
	}
	var att webauthn.CredentialAttestation
	_ = json.Unmarshal(p.Attestation, &att) // informational; an unreadable one is empty
	return webauthn.Credential{
		ID: p.CredentialID, PublicKey: p.PublicKey, AttestationType: p.AttestationType,
		AttestationFormat: p.AttestationFormat, Transport: transports,
		Flags:         webauthn.CredentialFlagsFromMsgpByte(p.Flags),
		Authenticator: webauthn.Authenticator{AAGUID: p.AAGUID, SignCount: p.SignCount, CloneWarning: p.CloneWarning},
		Attestation:   att,
	}
}

// used returns p after an assertion the library verified and returned as c.
func (p Passkey) used(c *webauthn.Credential, now time.Time) Passkey {
	p.SignCount = c.Authenticator.SignCount
	p.CloneWarning = p.CloneWarning || c.Authenticator.CloneWarning
	p.Flags = c.Flags.MsgpByte()
	p.LastUsedAt = now
	return p
}

func (s *Service) relyingParty() (*webauthn.WebAuthn, error) {
	if s.rp == nil {
		return nil, ErrPasskeysUnavailable
	}
	return s.rp, nil
}

// liveSession resolves the session token of a signed-in call to its session and user. The
// caller's access token must name the same user: a token and a cookie of two people do not
// make one request.
func (s *Service) liveSession(ctx context.Context, caller auth.Claims, token string, now time.Time) (domain.Session, domain.User, error) {
	if !caller.IsUser() || !domain.WellFormedSessionToken(token) {
		return domain.Session{}, domain.User{}, domain.ErrSessionInvalid
	}
	var (
		sess domain.Session
		u    domain.User
	)
	err := s.store.InTx(ctx, func(tx Tx) error {
		var err error
		if sess, err = tx.SessionByTokenHash(ctx, domain.HashSessionToken(token)); err != nil {
			return err
		}
		if !sess.Active(now) || sess.UserID != caller.Subject {
			return domain.ErrSessionInvalid
		}
		u, err = tx.UserByID(ctx, sess.UserID)
		if errors.Is(err, domain.ErrUserNotFound) {
			return domain.ErrSessionInvalid
		}
		return err
	})
	return sess, u, err
}

func (s *Service) saveChallenge(ctx context.Context, purpose ChallengePurpose, sessionID, userID string, sd *webauthn.SessionData, now time.Time) (string, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return "", err
	}
	data, err := json.Marshal(sd)
	if err != nil {
		return "", fmt.Errorf("passkeys: encode session data: %w", err)
	}
	c := Challenge{ID: id.String(), Purpose: purpose, SessionID: sessionID, UserID: userID, SessionData: data,
		CreatedAt: now, ExpiresAt: now.Add(ChallengeTTL)}
	if err := s.store.InsertChallenge(ctx, c); err != nil {
		return "", err
	}
	return c.ID, nil
}

// openChallenge checks a taken challenge: live, and bound to sessionID when one is given.
func openChallenge(c Challenge, sessionID string, now time.Time) (webauthn.SessionData, error) {
	if !now.Before(c.ExpiresAt) || (sessionID != "" && c.SessionID != sessionID) {
		return webauthn.SessionData{}, ErrChallengeInvalid
	}
	var sd webauthn.SessionData
	if err := json.Unmarshal(c.SessionData, &sd); err != nil {
		return webauthn.SessionData{}, fmt.Errorf("passkeys: decode session data: %w", err)
	}
	return sd, nil
}

// rejected logs why the library refused a ceremony (its details name the failed check) and
// answers ErrPasskeyRejected: the browser learns only that it did not verify.
func (s *Service) rejected(ctx context.Context, what string, err error) error {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		s.logger.InfoContext(ctx, "passkey refused", "ceremony", what, "type", pe.Type, "details", pe.Details, "info", pe.DevInfo)
	} else {
		s.logger.InfoContext(ctx, "passkey refused", "ceremony", what, "error", err)
	}
	return ErrPasskeyRejected
}

// BeginPasskeyRegistration answers the creation options (PublicKeyCredentialCreationOptionsJSON)
// for a new passkey of the signed-in user: a discoverable credential (so it works with the
// autofill UI and 'Sign in with a passkey'), user verification required, and none of the
// user's passkeys again.
//
// A passkey signs in for good and confirms payments, so adding one needs a fresh proof of the
// user: a step-up of this session for StepUpAddPasskey within StepUpWindow, not yet spent
// (ErrStepUpRequired otherwise). A session cookie alone, stolen or borrowed, cannot add one.
func (s *Service) BeginPasskeyRegistration(ctx context.Context, caller auth.Claims, token string) ([]byte, error) {
	rp, err := s.relyingParty()
	if err != nil {
		return nil, err
	}
	now := s.now()
	sess, u, err := s.liveSession(ctx, caller, token, now)
	if err != nil {
		return nil, err
	}
	keys, err := s.store.PasskeysByUser(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	if len(keys) >= MaxPasskeys {
		return nil, ErrTooManyPasskeys
	}
	proved, err := s.store.HasStepUpProof(ctx, sess.ID, StepUpAddPasskey, now)
	if err != nil {
		return nil, err
	}
	if !proved {
		return nil, ErrStepUpRequired
	}
	user := newPasskeyUser(u, keys)
	creation, sd, err := rp.BeginRegistration(user,
		webauthn.WithAuthenticatorSelection(protocol.AuthenticatorSelection{
			RequireResidentKey: protocol.ResidentKeyRequired(),
			ResidentKey:        protocol.ResidentKeyRequirementRequired,
			UserVerification:   protocol.VerificationRequired,
		}),
		webauthn.WithExclusions(webauthn.Credentials(user.creds).CredentialDescriptors()),
	)
	if err != nil {
		return nil, fmt.Errorf("passkeys: begin registration: %w", err)
	}
	if _, err := s.saveChallenge(ctx, PurposeRegistration, sess.ID, u.ID, sd, now); err != nil {
		return nil, err
	}
	return json.Marshal(creation.Response)
}

// FinishPasskeyRegistration verifies the browser's RegistrationResponseJSON against the
// session's registration challenge, stores the passkey and e-mails the owner that a passkey
// was added. name is the user's; when empty one is made from the browser ("Chrome on
// Windows"). It spends the session's StepUpAddPasskey proof in the same transaction: one
// passkey per step-up, and none once the proof has expired (ErrStepUpRequired).
func (s *Service) FinishPasskeyRegistration(ctx context.Context, caller auth.Claims, token string, credentialJSON []byte, name string, client domain.Client) (Passkey, error) {
	rp, err := s.relyingParty()
	if err != nil {
		return Passkey{}, err
	}
	now := s.now()
	sess, u, err := s.liveSession(ctx, caller, token, now)
	if err != nil {
		return Passkey{}, err
	}
	// Taken (deleted) before anything is checked: a challenge answers one attempt.
	c, err := s.store.TakeSessionChallenge(ctx, sess.ID, PurposeRegistration)
	if err != nil {
		return Passkey{}, err
	}
	sd, err := openChallenge(c, sess.ID, now)
	if err != nil {
		return Passkey{}, err
	}
	if len(credentialJSON) == 0 || len(credentialJSON) > maxCredentialJSON {
		return Passkey{}, s.rejected(ctx, "registration", errors.New("credential JSON empty or too long"))
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(credentialJSON)
	if err != nil {
		return Passkey{}, s.rejected(ctx, "registration", err)
	}
	cred, err := rp.CreateCredential(newPasskeyUser(u, nil), sd, parsed)
	if err != nil {
		return Passkey{}, s.rejected(ctx, "registration", err)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Passkey{}, err
	}
	attestation, err := json.Marshal(cred.Attestation)
	if err != nil {
		return Passkey{}, err
	}
	transports := make([]string, 0, len(cred.Transport))
	for _, t := range cred.Transport {
		transports = append(transports, string(t))
	}
	key := Passkey{
		ID: id.String(), UserID: u.ID, CredentialID: cred.ID, PublicKey: cred.PublicKey,
		SignCount: cred.Authenticator.SignCount, Transports: transports, AAGUID: cred.Authenticator.AAGUID,
		AttestationType: cred.AttestationType, AttestationFormat: cred.AttestationFormat, Attestation: attestation,
		Flags: cred.Flags.MsgpByte(), Name: passkeyName(name, client), CreatedAt: now,
	}
	err = s.store.InTx(ctx, func(tx Tx) error {
		locked, err := tx.UserByIDForUpdate(ctx, u.ID) // serialises the count with other adds
		if err != nil {
			return err
		}
		keys, err := tx.PasskeysByUser(ctx, u.ID)
		if err != nil {
			return err
		}
		if len(keys) >= MaxPasskeys {
			return ErrTooManyPasskeys
		}
		proved, err := tx.TakeStepUpProof(ctx, sess.ID, StepUpAddPasskey, now)
		if err != nil {
			return err
		}
		if !proved {
			return ErrStepUpRequired
		}
		if err := tx.InsertPasskey(ctx, key); err != nil {
			return err
		}
		msg, err := events.PasskeyAddedEmail(locked, key.ID, key.Name, now)
		if err != nil {
			return err
		}
		return tx.Publish(ctx, msg)
	})
	if err != nil {
		return Passkey{}, err
	}
	return key, nil
}

// passkeyName keeps a name the user typed as printable text of at most maxPasskeyName
// characters, or makes one from the browser the passkey was added on.
func passkeyName(raw string, client domain.Client) string {
	name := printable(raw)
	if name == "" {
		d := domain.ParseUserAgent(client.UserAgent)
		switch {
		case d.Browser != "" && d.OS != "":
			name = d.Browser + " on " + d.OS
		case d.Browser != "":
			name = d.Browser
		case d.OS != "":
			name = d.OS
		default:
			name = "Passkey"
		}
	}
	if utf8.RuneCountInString(name) > maxPasskeyName {
		name = strings.TrimSpace(string([]rune(name)[:maxPasskeyName]))
	}
	return name
}

// printable drops control, format (bidirectional overrides included) and other invisible
// characters and collapses white space.
func printable(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return ' '
		case !unicode.IsPrint(r) || unicode.Is(unicode.Cf, r):
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	return strings.Join(strings.Fields(s), " ")
}

// ListPasskeys lists the signed-in user's passkeys, oldest first.
func (s *Service) ListPasskeys(ctx context.Context, caller auth.Claims, token string) ([]Passkey, error) {
	_, u, err := s.liveSession(ctx, caller, token, s.now())
	if err != nil {
		return nil, err
	}
	return s.store.PasskeysByUser(ctx, u.ID)
}

// DeletePasskey removes one of the signed-in user's passkeys; any other id, another user's
// included, is ErrPasskeyNotFound.
func (s *Service) DeletePasskey(ctx context.Context, caller auth.Claims, token, id string) error {
	_, u, err := s.liveSession(ctx, caller, token, s.now())
	if err != nil {
		return err
	}
	return s.store.DeletePasskey(ctx, u.ID, id)
}

// PasskeySignInStart is a discoverable sign-in's request options and the id of its challenge.
type PasskeySignInStart struct {
	OptionsJSON []byte
	ChallengeID string
}

// BeginPasskeySignIn starts a sign-in with any passkey of this site (no e-mail asked), which
// the browser's autofill (conditional) UI can also answer.
func (s *Service) BeginPasskeySignIn(ctx context.Context) (PasskeySignInStart, error) {
	rp, err := s.relyingParty()
	if err != nil {
		return PasskeySignInStart{}, err
	}
	assertion, sd, err := rp.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return PasskeySignInStart{}, fmt.Errorf("passkeys: begin sign-in: %w", err)
	}
	id, err := s.saveChallenge(ctx, PurposeSignIn, "", "", sd, s.now())
	if err != nil {
		return PasskeySignInStart{}, err
	}
	options, err := json.Marshal(assertion.Response)
	if err != nil {
		return PasskeySignInStart{}, err
	}
	return PasskeySignInStart{OptionsJSON: options, ChallengeID: id}, nil
}

// FinishPasskeySignIn verifies the assertion (the passkey named by its credential id, of the
// user its user handle names) and opens a session, as SignIn does, with method "passkey".
func (s *Service) FinishPasskeySignIn(ctx context.Context, challengeID string, credentialJSON []byte, client domain.Client) (Authenticated, error) {
	rp, err := s.relyingParty()
	if err != nil {
		return Authenticated{}, err
	}
	now := s.now()
	if _, err := uuid.Parse(challengeID); err != nil {
		return Authenticated{}, ErrChallengeInvalid
	}
	c, err := s.store.TakeChallenge(ctx, challengeID, PurposeSignIn)
	if err != nil {
		return Authenticated{}, err
	}
	sd, err := openChallenge(c, "", now)
	if err != nil {
		return Authenticated{}, err
	}
	if len(credentialJSON) == 0 || len(credentialJSON) > maxCredentialJSON {
		return Authenticated{}, s.rejected(ctx, "sign-in", errors.New("credential JSON empty or too long"))
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(credentialJSON)
	if err != nil {
		return Authenticated{}, s.rejected(ctx, "sign-in", err)
	}
	var key Passkey
	lookup := func(rawID, handle []byte) (webauthn.User, error) {
		var err error
		if key, err = s.store.PasskeyByCredentialID(ctx, rawID); err != nil {
			return nil, err
		}
		u, err := s.store.UserByID(ctx, key.UserID)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(handle, userHandle(u.ID)) {
			return nil, errors.New("user handle is not the passkey's owner")
		}
		return newPasskeyUser(u, []Passkey{key}), nil
	}
	user, cred, err := rp.ValidatePasskeyLogin(lookup, sd, parsed)
	if err != nil {
		return Authenticated{}, s.rejected(ctx, "sign-in", err)
	}
	if cred.Authenticator.CloneWarning {
		// The signature counter went backwards: two copies of the key may exist. Refused,
		// and recorded so that the passkey keeps refusing until the user replaces it.
		if err := s.store.UpdatePasskeyUse(ctx, key.used(cred, key.LastUsedAt)); err != nil {
			return Authenticated{}, err
		}
		return Authenticated{}, s.rejected(ctx, "sign-in", errors.New("signature counter went backwards"))
	}
	if key.CloneWarning {
		return Authenticated{}, s.rejected(ctx, "sign-in", errors.New("passkey marked as possibly cloned"))
	}
	u := user.(passkeyUser).u
	var out Authenticated
	err = s.store.InTx(ctx, func(tx Tx) error {
		locked, err := tx.UserByIDForUpdate(ctx, u.ID)
		if err != nil {
			return err
		}
		if !locked.Verified() {
			return domain.ErrEmailNotVerified
		}
		if err := tx.UpdatePasskeyUse(ctx, key.used(cred, now)); err != nil {
			return err
		}
		out, err = s.openSessionBy(ctx, tx, locked, client, domain.MethodPasskey, now)
		return err
	})
	if err != nil {
		return Authenticated{}, err
	}
	return out, nil
}
