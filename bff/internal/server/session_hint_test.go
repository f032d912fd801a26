package server_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/grpc"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"

	"github.com/thumela/thumela/bff/internal/handlers"
	"github.com/thumela/thumela/bff/internal/session"
	"github.com/thumela/thumela/bff/internal/upstream"
)

// The signed-in hint (docs/decisions.md, "A signed-in hint cookie"): set beside the session
// cookie, cleared with it, and cleared when the session it stood for has ended.

const (
	sessionCookieName = "thumela_session"
	hintCookieName    = "thumela_signed_in"
)

// revocableIdentity is fakeIdentity with session ids (the session token stands for its id)
// and RevokeSession, for the sessions list's "sign this device out".
type revocableIdentity struct {
	*fakeIdentity
}

func (f revocableIdentity) Refresh(ctx context.Context, req *identityv1.RefreshRequest) (*identityv1.RefreshResponse, error) {
	res, err := f.fakeIdentity.Refresh(ctx, req)
	if err != nil {
		return nil, err
	}
	res.SessionId = req.GetSessionToken()
	return res, nil
}

func (f revocableIdentity) RevokeSession(_ context.Context, req *identityv1.RevokeSessionRequest) (*identityv1.RevokeSessionResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.sessions, req.GetSessionId())
	return &identityv1.RevokeSessionResponse{}, nil
}

func newBFFWithRevocableSessions(t *testing.T) (*httptest.Server, *fakeIdentity, *handlers.Deps) {
	t.Helper()
	identity := &fakeIdentity{sessions: map[string]bool{}}
	conn := serveUpstream(t, func(s *grpc.Server) {
		identityv1.RegisterIdentityServiceServer(s, revocableIdentity{identity})
		profilesv1.RegisterProfilesServiceServer(s, fakeProfiles{})
	})
	idClient := identityv1.NewIdentityServiceClient(conn)
	deps := &handlers.Deps{
		Logger:   quietLogger(),
		Identity: idClient,
		Profiles: profilesv1.NewProfilesServiceClient(conn),
		Tokens:   session.NewTokens(upstream.SessionRefresher{Identity: idClient}),
		Cookies:  session.Cookies{Secure: true},
	}
	return serveBFF(t, deps), identity, deps
}

// parsedSetCookies are the Set-Cookie values of h by name.
func parsedSetCookies(t *testing.T, h http.Header) map[string]*http.Cookie {
	t.Helper()
	out := map[string]*http.Cookie{}
	for _, v := range h.Values("Set-Cookie") {
		ck, err := http.ParseSetCookie(v)
		if err != nil {
			t.Fatalf("Set-Cookie %q: %v", v, err)
		}
		out[ck.Name] = ck
	}
	return out
}

// expectCleared fails unless h removes both the session cookie and its hint.
func expectCleared(t *testing.T, what string, h http.Header) {
	t.Helper()
	got := parsedSetCookies(t, h)
	for _, name := range []string{sessionCookieName, hintCookieName} {
		if ck := got[name]; ck == nil || ck.MaxAge >= 0 {
			t.Errorf("%s: %s not cleared (Set-Cookie %v)", what, name, h.Values("Set-Cookie"))
		}
	}
}

// asBrowser is a context whose Connect call sends cookie (when not empty) as a browser would,
// and what reads the answer's headers: the error's metadata when the call failed.
func asBrowser(ctx context.Context, cookie string) (context.Context, func(error) http.Header) {
	ctx, info := connect.NewClientContext(ctx)
	if cookie != "" {
		info.RequestHeader().Set("Cookie", cookie)
	}
	return ctx, func(err error) http.Header {
		var ce *connect.Error
		if errors.As(err, &ce) {
			return ce.Meta()
		}
		return info.ResponseHeader()
	}
}

// signIn signs in with a plain client and returns the Set-Cookie values of the answer.
func signIn(t *testing.T, srv *httptest.Server) map[string]*http.Cookie {
	t.Helper()
	auth := bffv1connect.NewAuthServiceClient(srv.Client(), srv.URL)
	ctx, answer := asBrowser(context.Background(), "")
	_, err := auth.SignIn(ctx, &bffv1.SignInRequest{Email: "thandi@example.co.za", Password: "right-password"})
	if err != nil {
		t.Fatal(err)
	}
	return parsedSetCookies(t, answer(nil))
}

func TestSignInSetsAReadableHintBesideTheSessionAndSignOutClearsBoth(t *testing.T) {
	t.Parallel()
	srv, _ := newBFF(t)
	auth := bffv1connect.NewAuthServiceClient(srv.Client(), srv.URL)

	got := signIn(t, srv)
	sess, hint := got[sessionCookieName], got[hintCookieName]
	if sess == nil || hint == nil {
		t.Fatalf("Set-Cookie = %v, want the session and its hint", got)
	}
	if hint.HttpOnly || hint.Value == "" || hint.Value == sess.Value {
		t.Errorf("hint = %+v, want readable by scripts and not the token", hint)
	}
	if !hint.Secure || hint.Path != "/" || hint.SameSite != http.SameSiteLaxMode || !hint.Expires.Equal(sess.Expires) || hint.MaxAge != sess.MaxAge {
		t.Errorf("hint = %+v, want Secure, Path=/, SameSite=Lax, expiring with the session (%+v)", hint, sess)
	}

	// The hint alone opens nothing: the server decides from the session cookie only.
	ctx, _ := asBrowser(context.Background(), hintCookieName+"="+hint.Value)
	if _, err := auth.GetSession(ctx, &bffv1.GetSessionRequest{}); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("GetSession with only the hint: %v, want Unauthenticated", err)
	}

	cookies := sessionCookieName + "=" + sess.Value + "; " + hintCookieName + "=" + hint.Value
	ctx, answer := asBrowser(context.Background(), cookies)
	if _, err := auth.GetSession(ctx, &bffv1.GetSessionRequest{}); err != nil {
		t.Fatalf("GetSession signed in: %v", err)
	} else if v := answer(nil).Values("Set-Cookie"); len(v) != 0 {
		t.Errorf("GetSession signed in sets %v, want nothing", v)
	}
	ctx, answer = asBrowser(context.Background(), cookies)
	if _, err := auth.SignOut(ctx, &bffv1.SignOutRequest{}); err != nil {
		t.Fatal(err)
	}
	expectCleared(t, "SignOut", answer(nil))
}

func TestAnEndedSessionsCookieAndHintAreClearedWithTheUnauthenticatedAnswer(t *testing.T) {
	t.Parallel()
	srv, identity, deps := newBFFWithRevocableSessions(t)
	auth := bffv1connect.NewAuthServiceClient(srv.Client(), srv.URL)
	token := signIn(t, srv)[sessionCookieName].Value

	// The session ends behind the browser's back (expired, or revoked on another device).
	identity.mu.Lock()
	delete(identity.sessions, token)
	identity.mu.Unlock()
	deps.Tokens.Forget(token)

	for _, tc := range []struct{ name, cookie string }{
		{"session and hint", sessionCookieName + "=" + token + "; " + hintCookieName + "=1"},
		{"session without its hint", sessionCookieName + "=" + token},
		{"hint without its session", hintCookieName + "=1"},
	} {
		ctx, answer := asBrowser(context.Background(), tc.cookie)
		_, err := auth.GetSession(ctx, &bffv1.GetSessionRequest{})
		if connect.CodeOf(err) != connect.CodeUnauthenticated {
			t.Fatalf("%s: GetSession = %v, want Unauthenticated", tc.name, err)
		}
		expectCleared(t, tc.name, answer(err))
	}

	// Any call that needs the session clears them too, the file downloads included.
	security := bffv1connect.NewSecurityServiceClient(srv.Client(), srv.URL)
	ctx, answer := asBrowser(context.Background(), sessionCookieName+"="+token)
	_, err := security.RevokeOtherSessions(ctx, &bffv1.RevokeOtherSessionsRequest{})
	if connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("RevokeOtherSessions = %v, want Unauthenticated", err)
	}
	expectCleared(t, "RevokeOtherSessions", answer(err))

	req, err := http.NewRequest(http.MethodGet, srv.URL+"/api/statement?from=2026-11-01&to=2026-11-30&format=csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Cookie", sessionCookieName+"="+token+"; "+hintCookieName+"=1")
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("statement with an ended session: %d, want 401", res.StatusCode)
	}
	expectCleared(t, "statement", res.Header)
}

func TestAVisitorsUnauthenticatedAnswerSetsNoCookie(t *testing.T) {
	t.Parallel()
	srv, _ := newBFF(t)
	auth := bffv1connect.NewAuthServiceClient(srv.Client(), srv.URL)
	ctx, answer := asBrowser(context.Background(), "theme=dark")
	_, err := auth.GetSession(ctx, &bffv1.GetSessionRequest{})
	if connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("GetSession = %v, want Unauthenticated", err)
	}
	// Nothing to clear, and so no Set-Cookie that could undo a sign-in in another tab.
	if v := answer(err).Values("Set-Cookie"); len(v) != 0 {
		t.Fatalf("Set-Cookie = %v, want none", v)
	}
}

func TestRevokingThisDevicesSessionClearsItsCookieAndHint(t *testing.T) {
	t.Parallel()
	srv, _, _ := newBFFWithRevocableSessions(t)
	token := signIn(t, srv)[sessionCookieName].Value
	security := bffv1connect.NewSecurityServiceClient(srv.Client(), srv.URL)
	ctx, answer := asBrowser(context.Background(), sessionCookieName+"="+token+"; "+hintCookieName+"=1")
	if _, err := security.RevokeSession(ctx, &bffv1.RevokeSessionRequest{SessionId: token}); err != nil {
		t.Fatal(err)
	}
	expectCleared(t, "RevokeSession of this device", answer(nil))
}
