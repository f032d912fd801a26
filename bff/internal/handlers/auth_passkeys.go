package handlers

import (
	"context"
	"errors"
	"net/http"
	"time"

	"connectrpc.com/connect"

	"github.com/thumela/thumela/bff/internal/rpcerr"
	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
)

// A WebAuthn ceremony spans two calls (Begin, Finish). Between them the BFF holds the id of
// identity's stored challenge in a short-lived HttpOnly cookie scoped to the service's path:
// page scripts never see it, no other call carries it, and it dies with the challenge.
// The challenge itself (and what it is bound to) stays in identity.
const (
	signInChallengeCookie = "thumela_passkey_challenge"
	stepUpChallengeCookie = "thumela_stepup_challenge"
	challengeCookieTTL    = 5 * time.Minute
	// maxCredentialJSON bounds what the browser sends back before it travels to identity.
	maxCredentialJSON = 64 << 10
)

var errNoChallenge = connect.NewError(connect.CodeFailedPrecondition,
	errors.New("This passkey request has expired. Please try again.")) //nolint:revive,staticcheck // ST1005: a sentence shown to the user as it is

// challengeCookie returns the Set-Cookie value that stores (or, with id empty, clears) a
// ceremony's challenge id for the calls under path.
func (d *Deps) challengeCookie(name, path, id string) string {
	//nolint:gosec // G124: Secure is on unless configured off, which only local development over http does
	ck := &http.Cookie{
		Name:     name,
		Value:    id,
		Path:     path,
		MaxAge:   int(challengeCookieTTL / time.Second),
		HttpOnly: true,
		Secure:   d.Cookies.Secure || d.Cookies.HostPrefix,
		// Strict: the Finish call is a same-site fetch from the page that began it.
		SameSite: http.SameSiteStrictMode,
	}
	if id == "" {
		ck.MaxAge = -1
	}
	return ck.String()
}

// takeChallengeCookie reads the ceremony's challenge id and clears the cookie: a challenge
// answers one Finish, right or wrong.
func (d *Deps) takeChallengeCookie(ctx context.Context, name, path string) string {
	info := callInfo(ctx)
	r := http.Request{Header: info.RequestHeader()}
	ck, err := r.Cookie(name)
	if err != nil || ck.Value == "" {
		return ""
	}
	info.ResponseHeader().Add("Set-Cookie", d.challengeCookie(name, path, ""))
	return ck.Value
}

func (a *Auth) BeginPasskeySignIn(ctx context.Context, _ *bffv1.BeginPasskeySignInRequest) (*bffv1.BeginPasskeySignInResponse, error) {
	res, err := a.Identity.BeginPasskeySignIn(ctx, &identityv1.BeginPasskeySignInRequest{Client: a.client(ctx)})
	if err != nil {
		return nil, rpcerr.FromService(ctx, a.Logger, err)
	}
	callInfo(ctx).ResponseHeader().Add("Set-Cookie",
		a.challengeCookie(signInChallengeCookie, "/"+bffv1connect.AuthServiceName+"/", res.GetChallengeId()))
	return &bffv1.BeginPasskeySignInResponse{OptionsJson: string(res.GetOptionsJson())}, nil
}

func (a *Auth) FinishPasskeySignIn(ctx context.Context, req *bffv1.FinishPasskeySignInRequest) (*bffv1.FinishPasskeySignInResponse, error) {
	challenge := a.takeChallengeCookie(ctx, signInChallengeCookie, "/"+bffv1connect.AuthServiceName+"/")
	if challenge == "" {
		return nil, errNoChallenge
	}
	if req.GetCredentialJson() == "" || len(req.GetCredentialJson()) > maxCredentialJSON {
		return nil, rpcerr.InvalidArgument("We could not read your passkey. Please try again.")
	}
	res, err := a.Identity.FinishPasskeySignIn(ctx, &identityv1.FinishPasskeySignInRequest{
		ChallengeId:    challenge,
		CredentialJson: []byte(req.GetCredentialJson()),
		Client:         a.client(ctx),
		DeviceId:       a.deviceID(ctx),
	})
	if err != nil {
		return nil, rpcerr.FromService(ctx, a.Logger, err)
	}
	user, profile := a.startSession(ctx, res.GetUser(), res.GetSession())
	return &bffv1.FinishPasskeySignInResponse{User: user, Profile: profile}, nil
}
