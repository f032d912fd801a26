package app

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/google/uuid"

	"github.com/thumela/thumela/services/platform/auth"

	"github.com/thumela/thumela/services/identity/internal/domain"
)

// StepUpWindow is how long a step-up counts: access tokens issued within it carry "sua", and
// transfers accepts a transfer that needs a step-up only within it.
const StepUpWindow = 5 * time.Minute

var (
	// ErrStepUpPassword: the password given for a step-up is wrong (InvalidArgument on the
	// password field, not Unauthenticated: the session itself is fine).
	ErrStepUpPassword = errors.New("step-up password incorrect")
	// ErrStepUpNoProof: neither a password nor a passkey answer was given (InvalidArgument).
	ErrStepUpNoProof = errors.New("step-up without a proof")
	// ErrStepUpRequired: the action needs a step-up of the session for its purpose, made within
	// StepUpWindow and not yet spent (FailedPrecondition, ErrorInfo STEP_UP_REQUIRED).
	ErrStepUpRequired = errors.New("step-up required")
	// ErrStepUpPurpose: the step-up names a purpose identity does not know (InvalidArgument).
	ErrStepUpPurpose = errors.New("unknown step-up purpose")
)

// StepUpPurpose is what a step-up allows. A proof for one purpose allows nothing else.
type StepUpPurpose string

const (
	// StepUpSendMoney (the default) stamps the session: its access tokens carry "sua" for
	// StepUpWindow, which transfers checks before money moves.
	StepUpSendMoney StepUpPurpose = ""
	// StepUpAddPasskey allows one passkey registration of the session within StepUpWindow
	// (step_up_proofs); it puts no "sua" in any token.
	StepUpAddPasskey StepUpPurpose = "add_passkey"
)

// StepUpStart says how the user proves it is them: with a passkey (the request options and
// the challenge's id) or, with none, the password.
type StepUpStart struct {
	Passkey     bool
	OptionsJSON []byte
	ChallengeID string
}

// StepUpProof is one of: a password, or a passkey assertion (AuthenticationResponseJSON) with
// the id of the challenge BeginStepUp made (empty: the session's newest step-up challenge).
type StepUpProof struct {
	Password       string
	ChallengeID    string
	CredentialJSON []byte
	// Purpose is what the step-up is for; empty is sending money.
	Purpose StepUpPurpose
}

// SteppedUp is a fresh access token for the session carrying the step-up (none for a purpose
// other than sending money), and until when the step-up counts.
type SteppedUp struct {
	AccessToken string
	ExpiresAt   time.Time
	Until       time.Time
}

// BeginStepUp starts a step-up of the signed-in session: a passkey assertion when the user
// has a passkey (any of theirs, user verification required), else the password.
func (s *Service) BeginStepUp(ctx context.Context, caller auth.Claims, token string) (StepUpStart, error) {
	now := s.now()
	sess, u, err := s.liveSession(ctx, caller, token, now)
	if err != nil {
		return StepUpStart{}, err
	}
	if s.rp == nil {
		return StepUpStart{}, nil
	}
	keys, err := s.store.PasskeysByUser(ctx, u.ID)
	if err != nil || len(keys) == 0 {
		return StepUpStart{}, err
	}
	assertion, sd, err := s.rp.BeginLogin(newPasskeyUser(u, keys), webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return StepUpStart{}, err
	}
	id, err := s.saveChallenge(ctx, PurposeStepUp, sess.ID, u.ID, sd, now)
	if err != nil {
		return StepUpStart{}, err
	}
	options, err := json.Marshal(assertion.Response)
	if err != nil {
		return StepUpStart{}, err
	}
	return StepUpStart{Passkey: true, OptionsJSON: options, ChallengeID: id}, nil
}

// FinishStepUp checks the proof, stamps the session and answers an access token carrying the
// step-up ("sua"). A password is checked as at sign-in (argon2id, same throttle: wrong ones
// count against the account and the address). It is accepted even from a user who has a
// passkey: whoever knows the password can sign in and remove the passkey, so refusing it
// would add no strength, only lock out someone whose passkey is on another device.
//
// A step-up for StepUpAddPasskey records a proof that BeginPasskeyRegistration requires and
// FinishPasskeyRegistration spends, and stamps nothing: it cannot move money.
func (s *Service) FinishStepUp(ctx context.Context, caller auth.Claims, token string, proof StepUpProof, client domain.Client) (SteppedUp, error) {
	if proof.Purpose != StepUpSendMoney && proof.Purpose != StepUpAddPasskey {
		return SteppedUp{}, ErrStepUpPurpose
	}
	now := s.now()
	sess, u, err := s.liveSession(ctx, caller, token, now)
	if err != nil {
		return SteppedUp{}, err
	}
	switch {
	case len(proof.CredentialJSON) > 0:
		if err := s.stepUpWithPasskey(ctx, sess, u, proof, now); err != nil {
			return SteppedUp{}, err
		}
	case proof.Password != "":
		if err := s.stepUpWithPassword(ctx, u, proof.Password, client, now); err != nil {
			return SteppedUp{}, err
		}
	default:
		return SteppedUp{}, ErrStepUpNoProof
	}
	var out SteppedUp
	err = s.store.InTx(ctx, func(tx Tx) error {
		// The session may have been revoked while the proof was checked.
		locked, err := tx.SessionByTokenHash(ctx, domain.HashSessionToken(token))
		if err != nil {
			return err
		}
		if !locked.Active(now) || locked.ID != sess.ID {
			return domain.ErrSessionInvalid
		}
		until := now.Add(StepUpWindow).Truncate(time.Second)
		if proof.Purpose != StepUpSendMoney {
			out = SteppedUp{Until: until}
			return tx.SaveStepUpProof(ctx, sess.ID, proof.Purpose, now, now.Add(StepUpWindow))
		}
		if err := tx.StampStepUp(ctx, sess.ID, now); err != nil {
			return err
		}
		access, exp, err := s.userAccessToken(u, sess.ID, now, now)
		if err != nil {
			return err
		}
		out = SteppedUp{AccessToken: access, ExpiresAt: exp, Until: until}
		return nil
	})
	if err != nil {
		return SteppedUp{}, err
	}
	return out, nil
}

func (s *Service) stepUpWithPassword(ctx context.Context, u domain.User, password string, client domain.Client, now time.Time) error {
	account := accountKey(u.Email.String())
	if err := s.checkSignInThrottle(ctx, account, client.Address, now); err != nil {
		return err
	}
	ok, err := domain.VerifyPassword(u.PasswordHash, password)
	if err != nil {
		return err
	}
	if !ok {
		if err := s.failedSignIn(ctx, account, client, now); !errors.Is(err, domain.ErrInvalidCredentials) {
			return err
		}
		return ErrStepUpPassword
	}
	return nil
}

func (s *Service) stepUpWithPasskey(ctx context.Context, sess domain.Session, u domain.User, proof StepUpProof, now time.Time) error {
	rp, err := s.relyingParty()
	if err != nil {
		return err
	}
	var c Challenge
	if proof.ChallengeID != "" {
		if _, err := uuid.Parse(proof.ChallengeID); err != nil {
			return ErrChallengeInvalid
		}
		c, err = s.store.TakeChallenge(ctx, proof.ChallengeID, PurposeStepUp)
	} else {
		c, err = s.store.TakeSessionChallenge(ctx, sess.ID, PurposeStepUp)
	}
	if err != nil {
		return err
	}
	sd, err := openChallenge(c, sess.ID, now)
	if err != nil {
		return err
	}
	if len(proof.CredentialJSON) > maxCredentialJSON {
		return s.rejected(ctx, "step-up", errors.New("credential JSON too long"))
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(proof.CredentialJSON)
	if err != nil {
		return s.rejected(ctx, "step-up", err)
	}
	keys, err := s.store.PasskeysByUser(ctx, u.ID)
	if err != nil {
		return err
	}
	cred, err := rp.ValidateLogin(newPasskeyUser(u, keys), sd, parsed)
	if err != nil {
		return s.rejected(ctx, "step-up", err)
	}
	for _, k := range keys {
		if string(k.CredentialID) != string(cred.ID) {
			continue
		}
		if cred.Authenticator.CloneWarning || k.CloneWarning {
			if err := s.store.UpdatePasskeyUse(ctx, k.used(cred, k.LastUsedAt)); err != nil {
				return err
			}
			return s.rejected(ctx, "step-up", errors.New("passkey possibly cloned"))
		}
		return s.store.UpdatePasskeyUse(ctx, k.used(cred, now))
	}
	return s.rejected(ctx, "step-up", errors.New("verified credential is not the user's"))
}
