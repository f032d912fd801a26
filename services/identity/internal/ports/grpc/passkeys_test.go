package grpcport_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/descope/virtualwebauthn"
	"github.com/google/uuid"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/service"

	"github.com/thumela/thumela/services/identity/internal/app"
)

// The passkey tests drive whole WebAuthn ceremonies against the real relying party with
// github.com/descope/virtualwebauthn, a software authenticator built for testing go-webauthn
// servers: it signs real attestations and assertions (ES256), so every check the library
// makes (challenge, origin, RP id hash, signature, user verification) runs for real.

const (
	testRPID   = "thumela.test"
	testOrigin = "https://thumela.test"
)

var testRP = virtualwebauthn.RelyingParty{ID: testRPID, Name: "Thumela", Origin: testOrigin}

func withPasskeys() option {
	return func(c *app.Config) {
		c.Passkeys = app.PasskeyConfig{RPID: testRPID, RPName: "Thumela", Origins: []string{testOrigin}}
	}
}

// person is a signed-in user as the BFF holds them: a session token and its access token.
type person struct {
	id, email, session string
}

func (e *env) person(prefix string) person {
	e.t.Helper()
	email := prefix + "-" + uuid.NewString()[:8] + "@example.co.za"
	id, session := e.signUpVerified(email)
	return person{id: id, email: email, session: session}
}

// as is a context carrying p's access token, as the BFF forwards it.
func (e *env) as(p person) context.Context {
	return auth.WithBearer(ctxT(e.t), e.accessToken(p.session))
}

// platformAuthenticator is a passkey provider that verifies its user (Touch ID and the like).
func platformAuthenticator() virtualwebauthn.Authenticator {
	return virtualwebauthn.NewAuthenticator()
}

// newCredential is a P-256 passkey whose public key virtualwebauthn encodes correctly. It
// writes the key's coordinates with big.Int.Bytes, which drops leading zero bytes, so about one
// key in 128 has a coordinate shorter than 32 bytes and a relying party rightly refuses it (CI
// saw FinishPasskeyRegistration answer PermissionDenied once). Such keys are drawn again.
func newCredential(t testing.TB) virtualwebauthn.Credential {
	t.Helper()
	for {
		cred := virtualwebauthn.NewCredential(virtualwebauthn.KeyTypeEC2)
		parsed, err := x509.ParsePKCS8PrivateKey(cred.Key.Data)
		if err != nil {
			t.Fatal(err)
		}
		key, ok := parsed.(*ecdsa.PrivateKey)
		if !ok {
			t.Fatalf("an EC2 credential's key is a %T", parsed)
		}
		if len(key.X.Bytes()) == 32 && len(key.Y.Bytes()) == 32 {
			return cred
		}
	}
}

// register adds a passkey for p on authenticator a and returns it with the credential.
func (e *env) register(p person, a *virtualwebauthn.Authenticator, name string) (*identityv1.Passkey, virtualwebauthn.Credential) {
	e.t.Helper()
	cred := newCredential(e.t)
	resp, err := e.registrationResponse(p, a, cred)
	if err != nil {
		e.t.Fatal(err)
	}
	res, err := e.client.FinishPasskeyRegistration(e.as(p), &identityv1.FinishPasskeyRegistrationRequest{
		SessionToken: p.session, CredentialJson: []byte(resp), Name: name, Client: browser,
	})
	if err != nil {
		e.t.Fatalf("FinishPasskeyRegistration: %v", err)
	}
	handle := uuid.MustParse(p.id)
	a.Options.UserHandle = handle[:]
	a.AddCredential(cred)
	return res.GetPasskey(), cred
}

// confirm steps p's session up for adding a passkey with the password ("Confirm it's you").
func (e *env) confirm(p person) {
	e.t.Helper()
	res, err := e.client.FinishStepUp(e.as(p), &identityv1.FinishStepUpRequest{SessionToken: p.session, Client: browser,
		Purpose: identityv1.StepUpPurpose_STEP_UP_PURPOSE_ADD_PASSKEY,
		Proof:   &identityv1.FinishStepUpRequest_Password{Password: goodPassword}})
	if err != nil {
		e.t.Fatalf("FinishStepUp for a passkey: %v", err)
	}
	if res.GetAccessToken() != "" {
		e.t.Fatal("a step-up for a passkey answered an access token")
	}
}

// registrationResponse confirms it is p, begins a registration and answers it on a.
func (e *env) registrationResponse(p person, a *virtualwebauthn.Authenticator, cred virtualwebauthn.Credential) (string, error) {
	e.confirm(p)
	return e.registrationResponseBegun(p, a, cred)
}

// signInOptions begins a passkey sign-in and returns the parsed options and challenge id.
func (e *env) signInOptions() (*virtualwebauthn.AssertionOptions, string, map[string]any) {
	e.t.Helper()
	begin, err := e.bff.BeginPasskeySignIn(ctxT(e.t), &identityv1.BeginPasskeySignInRequest{Client: browser})
	if err != nil {
		e.t.Fatalf("BeginPasskeySignIn: %v", err)
	}
	var raw map[string]any
	if err := json.Unmarshal(begin.GetOptionsJson(), &raw); err != nil {
		e.t.Fatal(err)
	}
	opts, err := virtualwebauthn.ParseAssertionOptions(string(begin.GetOptionsJson()))
	if err != nil {
		e.t.Fatal(err)
	}
	return opts, begin.GetChallengeId(), raw
}

// unverifiedClaims reads a token's payload without checking it (the clock of these tests
// runs ahead of the verifier's).
func unverifiedClaims(t *testing.T, token string) map[string]any {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWS: %d parts", len(parts))
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPasskeyCeremonies(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withPasskeys())
	thandi := e.person("thandi")
	device := platformAuthenticator()

	// Registration: options ask for a discoverable credential with user verification.
	e.confirm(thandi)
	begin, err := e.client.BeginPasskeyRegistration(e.as(thandi), &identityv1.BeginPasskeyRegistrationRequest{SessionToken: thandi.session})
	if err != nil {
		t.Fatal(err)
	}
	var creation struct {
		RP  struct{ ID, Name string }
		Sel struct {
			ResidentKey      string `json:"residentKey"`
			UserVerification string `json:"userVerification"`
		} `json:"authenticatorSelection"`
	}
	if err := json.Unmarshal(begin.GetOptionsJson(), &creation); err != nil {
		t.Fatal(err)
	}
	if creation.RP.ID != testRPID || creation.RP.Name != "Thumela" || creation.Sel.ResidentKey != "required" ||
		creation.Sel.UserVerification != "required" {
		t.Fatalf("creation options = %s", begin.GetOptionsJson())
	}

	key, cred := e.register(thandi, &device, "  My\u202e phone\x07 ")
	if key.GetName() != "My phone" || key.GetLastUsedAt() != nil || key.GetCreatedAt() == nil {
		t.Fatalf("passkey = %v, want the name cleaned of control characters and no last use", key)
	}
	var added *notificationsv1.NotificationRequest
	for _, n := range e.notifications(thandi.id) {
		if n.GetTemplate() == notificationsv1.Template_TEMPLATE_PASSKEY_ADDED {
			added = n
		}
	}
	if added == nil || added.GetParams()["name"] != "My phone" || added.GetParams()["first_name"] != "Thandi" ||
		added.GetParams()["at"] == "" || added.GetRecipient() != thandi.email {
		t.Fatalf("passkey-added e-mail = %v", added)
	}

	// The same authenticator answering a new registration is told to exclude its passkey.
	e.confirm(thandi)
	again, err := e.client.BeginPasskeyRegistration(e.as(thandi), &identityv1.BeginPasskeyRegistrationRequest{SessionToken: thandi.session})
	if err != nil {
		t.Fatal(err)
	}
	againOpts, err := virtualwebauthn.ParseAttestationOptions(string(again.GetOptionsJson()))
	if err != nil {
		t.Fatal(err)
	}
	if !cred.IsExcludedForAttestation(*againOpts) {
		t.Fatal("a second registration does not exclude the passkey already registered")
	}
	// Registering the same credential twice is refused (the challenge above is still live).
	dup := virtualwebauthn.CreateAttestationResponse(testRP, device, cred, *againOpts)
	_, err = e.client.FinishPasskeyRegistration(e.as(thandi), &identityv1.FinishPasskeyRegistrationRequest{
		SessionToken: thandi.session, CredentialJson: []byte(dup), Client: browser})
	wantStatus(t, err, codes.AlreadyExists, "This passkey is already registered.")

	// Sign-in with the passkey: no e-mail, no allowCredentials (the autofill UI's request).
	opts, challenge, raw := e.signInOptions()
	if _, ok := raw["allowCredentials"]; ok || raw["userVerification"] != "required" || raw["rpId"] != testRPID {
		t.Fatalf("request options = %v", raw)
	}
	assertion := virtualwebauthn.CreateAssertionResponse(testRP, device, cred, *opts)
	signedIn, err := e.bff.FinishPasskeySignIn(ctxT(t), &identityv1.FinishPasskeySignInRequest{
		ChallengeId: challenge, CredentialJson: []byte(assertion), Client: browser, DeviceId: "device-cookie-1"})
	if err != nil {
		t.Fatalf("FinishPasskeySignIn: %v", err)
	}
	if signedIn.GetUser().GetId() != thandi.id || signedIn.GetSession().GetToken() == "" || signedIn.GetSession().GetId() == "" {
		t.Fatalf("signed in as %v", signedIn)
	}
	var method string
	var lastUsed *time.Time
	if err := e.pool.QueryRow(ctxT(t), `SELECT s.method, p.last_used_at FROM sessions s, passkeys p
		WHERE s.id = $1 AND p.id = $2`, signedIn.GetSession().GetId(), key.GetId()).Scan(&method, &lastUsed); err != nil {
		t.Fatal(err)
	}
	if method != "passkey" || lastUsed == nil {
		t.Fatalf("session method %q, passkey last used %v", method, lastUsed)
	}
	// The challenge answered once.
	_, err = e.bff.FinishPasskeySignIn(ctxT(t), &identityv1.FinishPasskeySignInRequest{
		ChallengeId: challenge, CredentialJson: []byte(assertion), Client: browser})
	wantStatus(t, err, codes.FailedPrecondition, "This passkey request has expired. Please try again.")

	t.Run("another site's assertion is refused", func(t *testing.T) {
		opts, challenge, _ := e.signInOptions()
		phish := virtualwebauthn.RelyingParty{ID: testRPID, Name: "Thumela", Origin: "https://thumela-login.example"}
		_, err := e.bff.FinishPasskeySignIn(ctxT(t), &identityv1.FinishPasskeySignInRequest{
			ChallengeId: challenge, CredentialJson: []byte(virtualwebauthn.CreateAssertionResponse(phish, device, cred, *opts))})
		wantStatus(t, err, codes.PermissionDenied, "We could not verify your passkey. Please try again.")
	})

	t.Run("an expired challenge is refused", func(t *testing.T) {
		opts, challenge, _ := e.signInOptions()
		e.clock.Advance(app.ChallengeTTL + time.Second)
		_, err := e.bff.FinishPasskeySignIn(ctxT(t), &identityv1.FinishPasskeySignInRequest{
			ChallengeId: challenge, CredentialJson: []byte(virtualwebauthn.CreateAssertionResponse(testRP, device, cred, *opts))})
		wantStatus(t, err, codes.FailedPrecondition, "")
	})

	t.Run("an unknown passkey and a made-up challenge are refused", func(t *testing.T) {
		opts, challenge, _ := e.signInOptions()
		stranger := platformAuthenticator()
		strangerCred := newCredential(t)
		stranger.Options.UserHandle = device.Options.UserHandle
		stranger.AddCredential(strangerCred)
		_, err := e.bff.FinishPasskeySignIn(ctxT(t), &identityv1.FinishPasskeySignInRequest{
			ChallengeId: challenge, CredentialJson: []byte(virtualwebauthn.CreateAssertionResponse(testRP, stranger, strangerCred, *opts))})
		wantStatus(t, err, codes.PermissionDenied, "")
		_, err = e.bff.FinishPasskeySignIn(ctxT(t), &identityv1.FinishPasskeySignInRequest{
			ChallengeId: uuid.NewString(), CredentialJson: []byte(`{}`)})
		wantStatus(t, err, codes.FailedPrecondition, "")
		_, err = e.bff.FinishPasskeySignIn(ctxT(t), &identityv1.FinishPasskeySignInRequest{ChallengeId: "not-an-id"})
		wantStatus(t, err, codes.FailedPrecondition, "")
	})
}

func TestPasskeyRegistrationRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withPasskeys())
	p := e.person("refusals")

	t.Run("no user verification", func(t *testing.T) {
		lazy := virtualwebauthn.NewAuthenticatorWithOptions(virtualwebauthn.AuthenticatorOptions{UserNotVerified: true})
		resp, err := e.registrationResponse(p, &lazy, newCredential(t))
		if err != nil {
			t.Fatal(err)
		}
		_, err = e.client.FinishPasskeyRegistration(e.as(p), &identityv1.FinishPasskeyRegistrationRequest{
			SessionToken: p.session, CredentialJson: []byte(resp), Client: browser})
		wantStatus(t, err, codes.PermissionDenied, "We could not verify your passkey. Please try again.")
	})

	t.Run("another origin", func(t *testing.T) {
		e.confirm(p)
		begin, err := e.client.BeginPasskeyRegistration(e.as(p), &identityv1.BeginPasskeyRegistrationRequest{SessionToken: p.session})
		if err != nil {
			t.Fatal(err)
		}
		opts, _ := virtualwebauthn.ParseAttestationOptions(string(begin.GetOptionsJson()))
		evil := virtualwebauthn.RelyingParty{ID: testRPID, Name: "Thumela", Origin: "https://evil.example"}
		resp := virtualwebauthn.CreateAttestationResponse(evil, platformAuthenticator(), newCredential(t), *opts)
		_, err = e.client.FinishPasskeyRegistration(e.as(p), &identityv1.FinishPasskeyRegistrationRequest{
			SessionToken: p.session, CredentialJson: []byte(resp), Client: browser})
		wantStatus(t, err, codes.PermissionDenied, "")
	})

	t.Run("no challenge, or another session's", func(t *testing.T) {
		// Begun in one session, finished in another of the same user: the challenge is bound.
		other, err := e.signIn(p.email, goodPassword)
		if err != nil {
			t.Fatal(err)
		}
		device := platformAuthenticator()
		resp, err := e.registrationResponse(p, &device, newCredential(t))
		if err != nil {
			t.Fatal(err)
		}
		otherSession := other.GetSession().GetToken()
		_, err = e.client.FinishPasskeyRegistration(auth.WithBearer(ctxT(t), e.accessToken(otherSession)),
			&identityv1.FinishPasskeyRegistrationRequest{SessionToken: otherSession, CredentialJson: []byte(resp), Client: browser})
		wantStatus(t, err, codes.FailedPrecondition, "This passkey request has expired. Please try again.")
	})

	t.Run("one person's token with another's session", func(t *testing.T) {
		q := e.person("mallory")
		_, err := e.client.BeginPasskeyRegistration(e.as(q), &identityv1.BeginPasskeyRegistrationRequest{SessionToken: p.session})
		wantStatus(t, err, codes.Unauthenticated, "")
		_, err = e.client.ListPasskeys(ctxT(t), &identityv1.ListPasskeysRequest{SessionToken: p.session})
		wantStatus(t, err, codes.Unauthenticated, "")
	})

	t.Run("passkeys off", func(t *testing.T) {
		off := newEnv(t)
		q := off.person("off")
		_, err := off.client.BeginPasskeyRegistration(off.as(q), &identityv1.BeginPasskeyRegistrationRequest{SessionToken: q.session})
		wantStatus(t, err, codes.FailedPrecondition, "Passkeys are not available right now. Please use your password.")
		_, err = off.bff.BeginPasskeySignIn(ctxT(t), &identityv1.BeginPasskeySignInRequest{})
		wantStatus(t, err, codes.FailedPrecondition, "")
	})
}

func TestPasskeysAreScopedToTheirOwner(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withPasskeys())
	owner, other := e.person("owner"), e.person("other")
	device := platformAuthenticator()
	key, _ := e.register(owner, &device, "")
	if key.GetName() == "" {
		t.Fatal("a passkey registered without a name has none")
	}

	list, err := e.client.ListPasskeys(e.as(other), &identityv1.ListPasskeysRequest{SessionToken: other.session})
	if err != nil || len(list.GetPasskeys()) != 0 {
		t.Fatalf("another user's list = %v, %v; want empty", list, err)
	}
	_, err = e.client.DeletePasskey(e.as(other), &identityv1.DeletePasskeyRequest{SessionToken: other.session, PasskeyId: key.GetId()})
	wantStatus(t, err, codes.NotFound, "That passkey was not found.")
	_, err = e.client.DeletePasskey(e.as(other), &identityv1.DeletePasskeyRequest{SessionToken: other.session, PasskeyId: "x'; DROP TABLE passkeys; --"})
	wantStatus(t, err, codes.NotFound, "")

	list, err = e.client.ListPasskeys(e.as(owner), &identityv1.ListPasskeysRequest{SessionToken: owner.session})
	if err != nil || len(list.GetPasskeys()) != 1 || list.GetPasskeys()[0].GetId() != key.GetId() {
		t.Fatalf("owner's list = %v, %v", list, err)
	}
	if _, err := e.client.DeletePasskey(e.as(owner), &identityv1.DeletePasskeyRequest{SessionToken: owner.session, PasskeyId: key.GetId()}); err != nil {
		t.Fatal(err)
	}
	list, _ = e.client.ListPasskeys(e.as(owner), &identityv1.ListPasskeysRequest{SessionToken: owner.session})
	if len(list.GetPasskeys()) != 0 {
		t.Fatalf("after delete: %v", list)
	}
	// A deleted passkey signs nobody in, and step-up falls back to the password.
	opts, challenge, _ := e.signInOptions()
	_, err = e.bff.FinishPasskeySignIn(ctxT(t), &identityv1.FinishPasskeySignInRequest{ChallengeId: challenge,
		CredentialJson: []byte(virtualwebauthn.CreateAssertionResponse(testRP, device, device.Credentials[0], *opts))})
	wantStatus(t, err, codes.PermissionDenied, "")
	up, err := e.client.BeginStepUp(e.as(owner), &identityv1.BeginStepUpRequest{SessionToken: owner.session})
	if err != nil || up.GetPasskey() {
		t.Fatalf("BeginStepUp after the last passkey went = %v, %v; want the password", up, err)
	}
}

func TestStepUpWithPasskey(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withPasskeys())
	p := e.person("stepkey")
	device := platformAuthenticator()
	_, cred := e.register(p, &device, "Laptop")

	up, err := e.client.BeginStepUp(e.as(p), &identityv1.BeginStepUpRequest{SessionToken: p.session})
	if err != nil || !up.GetPasskey() || up.GetChallengeId() == "" {
		t.Fatalf("BeginStepUp = %v, %v", up, err)
	}
	opts, err := virtualwebauthn.ParseAssertionOptions(string(up.GetOptionsJson()))
	if err != nil {
		t.Fatal(err)
	}
	if !cred.IsAllowedForAssertion(*opts) {
		t.Fatal("the step-up does not allow the user's passkey")
	}
	assertion := virtualwebauthn.CreateAssertionResponse(testRP, device, cred, *opts)

	// Another session of the same user cannot finish this session's step-up.
	other, err := e.signIn(p.email, goodPassword)
	if err != nil {
		t.Fatal(err)
	}
	otherSession := other.GetSession().GetToken()
	_, err = e.client.FinishStepUp(auth.WithBearer(ctxT(t), e.accessToken(otherSession)), &identityv1.FinishStepUpRequest{
		SessionToken: otherSession,
		Proof: &identityv1.FinishStepUpRequest_Passkey{Passkey: &identityv1.PasskeyAssertion{
			ChallengeId: up.GetChallengeId(), CredentialJson: []byte(assertion)}}})
	wantStatus(t, err, codes.FailedPrecondition, "")

	// Begun again (the one above was spent), finished in its own session.
	up, _ = e.client.BeginStepUp(e.as(p), &identityv1.BeginStepUpRequest{SessionToken: p.session})
	opts, _ = virtualwebauthn.ParseAssertionOptions(string(up.GetOptionsJson()))
	res, err := e.client.FinishStepUp(e.as(p), &identityv1.FinishStepUpRequest{
		SessionToken: p.session, Client: browser,
		Proof: &identityv1.FinishStepUpRequest_Passkey{Passkey: &identityv1.PasskeyAssertion{
			ChallengeId: up.GetChallengeId(), CredentialJson: []byte(virtualwebauthn.CreateAssertionResponse(testRP, device, cred, *opts))}}})
	if err != nil {
		t.Fatalf("FinishStepUp: %v", err)
	}
	wantSteppedUp(t, e, p, res)
}

func TestStepUpWithPassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withThrottle(3, 50, 10))
	p := e.person("steppw")

	up, err := e.client.BeginStepUp(e.as(p), &identityv1.BeginStepUpRequest{SessionToken: p.session})
	if err != nil || up.GetPasskey() || len(up.GetOptionsJson()) != 0 {
		t.Fatalf("BeginStepUp without passkeys = %v, %v; want the password", up, err)
	}
	// No token for the step-up before it happens.
	if _, ok := unverifiedClaims(t, e.accessToken(p.session))["sua"]; ok {
		t.Fatal("a token carries sua before any step-up")
	}

	_, err = e.client.FinishStepUp(e.as(p), &identityv1.FinishStepUpRequest{SessionToken: p.session})
	wantStatus(t, err, codes.InvalidArgument, "Please confirm with your passkey or password.")

	// Wrong passwords: refused on the password field, counted like sign-in failures, then
	// throttled (the right password too, while the throttle holds).
	for i := 0; i < 3; i++ {
		_, err := e.client.FinishStepUp(e.as(p), &identityv1.FinishStepUpRequest{SessionToken: p.session, Client: browser,
			Proof: &identityv1.FinishStepUpRequest_Password{Password: "wrong-horse-battery"}})
		st := wantStatus(t, err, codes.InvalidArgument, "Incorrect password. Please try again.")
		if v := badRequest(t, st); len(v) != 1 || v[0].GetField() != "password" {
			t.Fatalf("violations = %v", v)
		}
	}
	_, err = e.client.FinishStepUp(e.as(p), &identityv1.FinishStepUpRequest{SessionToken: p.session, Client: browser,
		Proof: &identityv1.FinishStepUpRequest_Password{Password: goodPassword}})
	st := wantStatus(t, err, codes.ResourceExhausted, "")
	if retryDelay(t, st) <= 0 {
		t.Fatal("no retry delay")
	}
	var stamped *time.Time
	if err := e.pool.QueryRow(ctxT(t), `SELECT stepped_up_at FROM sessions WHERE user_id = $1`, p.id).Scan(&stamped); err != nil || stamped != nil {
		t.Fatalf("stepped_up_at = %v, %v after refusals", stamped, err)
	}

	// Another account's right password steps up (the throttle counts per account; the clock
	// is not moved here: the server checks tokens against real time).
	q := e.person("steppw2")
	res, err := e.client.FinishStepUp(e.as(q), &identityv1.FinishStepUpRequest{SessionToken: q.session, Client: browser,
		Proof: &identityv1.FinishStepUpRequest_Password{Password: goodPassword}})
	if err != nil {
		t.Fatalf("FinishStepUp: %v", err)
	}
	wantSteppedUp(t, e, q, res)
}

// wantSteppedUp checks a step-up's answer and what follows: the session is stamped, the
// fresh token and every refresh within the window carry sua, and none after it.
func wantSteppedUp(t *testing.T, e *env, p person, res *identityv1.FinishStepUpResponse) {
	t.Helper()
	now := e.clock.Now()
	claims, err := auth.NewVerifier(e.keys, service.TokenIssuer, auth.WithClock(e.clock.Now)).Verify(ctxT(t), res.GetAccessToken())
	if err != nil {
		t.Fatalf("step-up token: %v", err)
	}
	if claims.Subject != p.id || claims.SteppedUpAt.IsZero() || now.Sub(claims.SteppedUpAt) > 2*time.Second ||
		!claims.SteppedUpWithin(app.StepUpWindow, now) {
		t.Fatalf("step-up token claims = %+v (sua %v), want sua ≈ %v", claims, claims.SteppedUpAt, now)
	}
	if until := res.GetSteppedUpUntil().AsTime(); until.Sub(now) < app.StepUpWindow-2*time.Second || until.Sub(now) > app.StepUpWindow {
		t.Fatalf("stepped up until %v, now %v", until, now)
	}
	var stamped *time.Time
	if err := e.pool.QueryRow(ctxT(t), `SELECT stepped_up_at FROM sessions WHERE token_hash = sha256($1::bytea)`,
		[]byte(p.session)).Scan(&stamped); err != nil {
		t.Fatal(err)
	}
	if stamped == nil || stamped.Unix() != claims.SteppedUpAt.Unix() {
		t.Fatalf("stepped_up_at = %v, want %v", stamped, claims.SteppedUpAt)
	}
	e.clock.Advance(4 * time.Minute)
	if sua, ok := unverifiedClaims(t, e.accessToken(p.session))["sua"].(float64); !ok || int64(sua) != claims.SteppedUpAt.Unix() {
		t.Fatalf("a refresh within the window has sua %v, want %d", sua, claims.SteppedUpAt.Unix())
	}
	e.clock.Advance(2 * time.Minute)
	if _, ok := unverifiedClaims(t, e.accessToken(p.session))["sua"]; ok {
		t.Fatal("a refresh after the window still carries sua")
	}
}

// wantStepUpRequired checks the refusal of a passkey registration for want of a step-up: the
// words the user reads and the ErrorInfo a client asks for "Confirm it's you" on.
func wantStepUpRequired(t *testing.T, err error) {
	t.Helper()
	st := wantStatus(t, err, codes.FailedPrecondition, "Please confirm it's you before adding a passkey.")
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetReason() == "STEP_UP_REQUIRED" && info.GetDomain() == "identity.thumela.co.za" {
			return
		}
	}
	t.Fatalf("details = %v, want ErrorInfo STEP_UP_REQUIRED", st.Details())
}

// A session cookie alone must not add a passkey (a permanent sign-in that also confirms
// payments): registration needs a fresh step-up of the session for that purpose, spent by it.
func TestPasskeyRegistrationNeedsAStepUp(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withPasskeys(), withThrottle(3, 50, 10))
	p := e.person("sudo")
	begin := func(q person) error {
		_, err := e.client.BeginPasskeyRegistration(e.as(q), &identityv1.BeginPasskeyRegistrationRequest{SessionToken: q.session})
		return err
	}
	stepUp := func(q person, purpose identityv1.StepUpPurpose, password string) (*identityv1.FinishStepUpResponse, error) {
		return e.client.FinishStepUp(e.as(q), &identityv1.FinishStepUpRequest{SessionToken: q.session, Client: browser,
			Purpose: purpose, Proof: &identityv1.FinishStepUpRequest_Password{Password: password}})
	}

	// Signed in, nothing more: refused.
	wantStepUpRequired(t, begin(p))

	// A step-up for money is for money.
	q := e.person("money")
	if _, err := stepUp(q, identityv1.StepUpPurpose_STEP_UP_PURPOSE_SEND_MONEY, goodPassword); err != nil {
		t.Fatal(err)
	}
	wantStepUpRequired(t, begin(q))

	// A wrong password is refused as at sign-in, and proves nothing.
	_, err := stepUp(p, identityv1.StepUpPurpose_STEP_UP_PURPOSE_ADD_PASSKEY, "wrong-horse-battery")
	wantStatus(t, err, codes.InvalidArgument, "Incorrect password. Please try again.")
	wantStepUpRequired(t, begin(p))

	// An unknown purpose is refused.
	_, err = stepUp(p, identityv1.StepUpPurpose(99), goodPassword)
	wantStatus(t, err, codes.InvalidArgument, "")

	// A step-up for a passkey carries no "sua": it cannot move money.
	res, err := stepUp(p, identityv1.StepUpPurpose_STEP_UP_PURPOSE_ADD_PASSKEY, goodPassword)
	if err != nil {
		t.Fatal(err)
	}
	if res.GetAccessToken() != "" || res.GetSteppedUpUntil() == nil {
		t.Fatalf("FinishStepUp for a passkey = %v", res)
	}
	if _, ok := unverifiedClaims(t, e.accessToken(p.session))["sua"]; ok {
		t.Fatal("a step-up for a passkey put sua in the session's tokens")
	}

	// Another session of the same user gets nothing from it.
	other, err := e.signIn(p.email, goodPassword)
	if err != nil {
		t.Fatal(err)
	}
	wantStepUpRequired(t, begin(person{id: p.id, email: p.email, session: other.GetSession().GetToken()}))

	// With it, the first passkey of a password-only user is added (and e-mailed)...
	device := platformAuthenticator()
	cred := newCredential(t)
	if err := begin(p); err != nil { // a Begin does not spend it (a closed prompt may retry)
		t.Fatal(err)
	}
	resp, err := e.registrationResponseBegun(p, &device, cred)
	if err != nil {
		t.Fatal(err)
	}
	added, err := e.client.FinishPasskeyRegistration(e.as(p), &identityv1.FinishPasskeyRegistrationRequest{
		SessionToken: p.session, CredentialJson: []byte(resp), Client: browser})
	if err != nil {
		t.Fatalf("FinishPasskeyRegistration: %v", err)
	}
	handle := uuid.MustParse(p.id)
	device.Options.UserHandle = handle[:]
	device.AddCredential(cred)

	// ...and the step-up is spent: a second passkey needs another.
	wantStepUpRequired(t, begin(p))

	// Expired between Begin and Finish: refused at Finish, nothing stored. (The window is
	// moved rather than the clock: the server checks access tokens against real time.)
	e.confirm(p)
	late, err := e.registrationResponseBegun(p, &device, newCredential(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.pool.Exec(ctxT(t), `UPDATE step_up_proofs SET expires_at = $1
		WHERE session_id = (SELECT id FROM sessions WHERE token_hash = sha256($2::bytea))`, e.clock.Now().Add(-time.Second), []byte(p.session)); err != nil {
		t.Fatal(err)
	}
	_, err = e.client.FinishPasskeyRegistration(e.as(p), &identityv1.FinishPasskeyRegistrationRequest{
		SessionToken: p.session, CredentialJson: []byte(late), Client: browser})
	wantStepUpRequired(t, err)
	keys, err := e.client.ListPasskeys(e.as(p), &identityv1.ListPasskeysRequest{SessionToken: p.session})
	if err != nil || len(keys.GetPasskeys()) != 1 || keys.GetPasskeys()[0].GetId() != added.GetPasskey().GetId() {
		t.Fatalf("passkeys = %v, %v; want only the first", keys, err)
	}

	// A user with a passkey may confirm with it (a passkey step-up for this purpose).
	up, err := e.client.BeginStepUp(e.as(p), &identityv1.BeginStepUpRequest{SessionToken: p.session})
	if err != nil || !up.GetPasskey() {
		t.Fatalf("BeginStepUp = %v, %v", up, err)
	}
	opts, err := virtualwebauthn.ParseAssertionOptions(string(up.GetOptionsJson()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.FinishStepUp(e.as(p), &identityv1.FinishStepUpRequest{SessionToken: p.session, Client: browser,
		Purpose: identityv1.StepUpPurpose_STEP_UP_PURPOSE_ADD_PASSKEY,
		Proof: &identityv1.FinishStepUpRequest_Passkey{Passkey: &identityv1.PasskeyAssertion{
			ChallengeId: up.GetChallengeId(), CredentialJson: []byte(virtualwebauthn.CreateAssertionResponse(testRP, device, cred, *opts))}}}); err != nil {
		t.Fatalf("FinishStepUp with the passkey: %v", err)
	}
	second, err := e.registrationResponseBegun(p, &device, newCredential(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.FinishPasskeyRegistration(e.as(p), &identityv1.FinishPasskeyRegistrationRequest{
		SessionToken: p.session, CredentialJson: []byte(second), Client: browser}); err != nil {
		t.Fatalf("FinishPasskeyRegistration after a passkey step-up: %v", err)
	}
}

// registrationResponseBegun begins a registration without confirming first (the caller has).
func (e *env) registrationResponseBegun(p person, a *virtualwebauthn.Authenticator, cred virtualwebauthn.Credential) (string, error) {
	begin, err := e.client.BeginPasskeyRegistration(e.as(p), &identityv1.BeginPasskeyRegistrationRequest{SessionToken: p.session})
	if err != nil {
		return "", err
	}
	opts, err := virtualwebauthn.ParseAttestationOptions(string(begin.GetOptionsJson()))
	if err != nil {
		return "", err
	}
	return virtualwebauthn.CreateAttestationResponse(testRP, *a, cred, *opts), nil
}
