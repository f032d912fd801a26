package grpcport_test

import (
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/platform/auth"
)

const (
	chromeWindows = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	firefoxLinux  = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	safariIPhone  = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
)

// signInFrom signs in with a user agent and a device cookie, and returns the session.
func (e *env) signInFrom(email, userAgent, deviceID string) *identityv1.Session {
	e.t.Helper()
	res, err := e.bff.SignIn(ctxT(e.t), &identityv1.SignInRequest{
		Email: email, Password: goodPassword, DeviceId: deviceID,
		Client: &identityv1.Client{Address: "198.51.100.9", UserAgent: userAgent},
	})
	if err != nil {
		e.t.Fatalf("SignIn: %v", err)
	}
	if res.GetSession().GetId() == "" {
		e.t.Fatal("SignIn answered no session id")
	}
	return res.GetSession()
}

// revocations returns the SessionsRevoked events identity wrote to its outbox for userID.
func (e *env) revocations(userID string) []*identityv1.SessionsRevoked {
	e.t.Helper()
	rows, err := e.pool.Query(ctxT(e.t), `SELECT payload FROM outbox WHERE subject = $1 ORDER BY seq`,
		"thumela.identity."+userID+".sessions_revoked")
	if err != nil {
		e.t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*identityv1.SessionsRevoked, error) {
		var payload []byte
		if err := row.Scan(&payload); err != nil {
			return nil, err
		}
		ev := &identityv1.SessionsRevoked{}
		return ev, proto.Unmarshal(payload, ev)
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

// lastRevocation fails unless the newest SessionsRevoked of userID names exactly ids, for reason.
func (e *env) lastRevocation(userID, reason string, ids ...string) {
	e.t.Helper()
	evs := e.revocations(userID)
	if len(evs) == 0 {
		e.t.Fatalf("no SessionsRevoked for %s", userID)
	}
	ev := evs[len(evs)-1]
	got := slices.Sorted(slices.Values(ev.GetSessionIds()))
	want := slices.Sorted(slices.Values(ids))
	if ev.GetUserId() != userID || ev.GetReason() != reason || !slices.Equal(got, want) || ev.GetOccurredAt() == nil {
		e.t.Fatalf("SessionsRevoked = %v, want user %s, reason %s, sessions %v", ev, userID, reason, want)
	}
}

func TestSessionsListRevokeAndEvents(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	const email = "sessions@example.com"
	id, first := e.signUpVerified(email)
	_, other := e.signUpVerified("someone-else@example.com")
	second := e.signInFrom(email, firefoxLinux, "device-two")
	third := e.signInFrom(email, safariIPhone, "device-three")

	asFirst := auth.WithBearer(ctx, e.accessToken(first))
	list, err := e.client.ListSessions(asFirst, &identityv1.ListSessionsRequest{SessionToken: first})
	if err != nil {
		t.Fatal(err)
	}
	ss := list.GetSessions()
	if len(ss) != 3 || !ss[0].GetCurrent() || ss[1].GetCurrent() || ss[2].GetCurrent() {
		t.Fatalf("sessions = %v, want 3 with the current first", ss)
	}
	if ss[0].GetMethod() != "email_code" || ss[1].GetMethod() != "password" {
		t.Fatalf("methods %q, %q; want email_code (verification) and password", ss[0].GetMethod(), ss[1].GetMethod())
	}
	byID := map[string]*identityv1.SessionInfo{}
	for _, s := range ss {
		byID[s.GetId()] = s
	}
	if s := byID[second.GetId()]; s.GetBrowser() != "Firefox" || s.GetOs() != "Linux" || s.GetDeviceType() != "desktop" {
		t.Fatalf("Firefox on Linux parsed as %v", s)
	}
	if s := byID[third.GetId()]; s.GetBrowser() != "Safari" || s.GetOs() != "iOS" || s.GetDeviceType() != "mobile" {
		t.Fatalf("Safari on an iPhone parsed as %v", s)
	}
	if r, err := e.bff.Refresh(ctx, &identityv1.RefreshRequest{SessionToken: second.GetToken()}); err != nil || r.GetSessionId() != second.GetId() {
		t.Fatalf("Refresh = %v, %v; want session id %s", r, err, second.GetId())
	}

	// Another user's session id is NotFound, whether it exists or not; and that session lives on.
	otherList, err := e.client.ListSessions(auth.WithBearer(ctx, e.accessToken(other)), &identityv1.ListSessionsRequest{SessionToken: other})
	if err != nil || len(otherList.GetSessions()) != 1 {
		t.Fatalf("the other user's list = %v, %v", otherList, err)
	}
	otherID := otherList.GetSessions()[0].GetId()
	_, err = e.client.RevokeSession(asFirst, &identityv1.RevokeSessionRequest{SessionToken: first, SessionId: otherID})
	wantStatus(t, err, codes.NotFound, "")
	_, err = e.client.RevokeSession(asFirst, &identityv1.RevokeSessionRequest{SessionToken: first, SessionId: "not-a-uuid"})
	wantStatus(t, err, codes.NotFound, "")
	// No id at all is no session, not "every session": the caller's own stays signed in.
	for _, id := range []string{"", "  "} {
		_, err = e.client.RevokeSession(asFirst, &identityv1.RevokeSessionRequest{SessionToken: first, SessionId: id})
		wantStatus(t, err, codes.NotFound, "")
	}
	e.accessToken(first)
	e.accessToken(other)
	// Someone else's session token with one's own access token is refused.
	_, err = e.client.ListSessions(asFirst, &identityv1.ListSessionsRequest{SessionToken: other})
	wantStatus(t, err, codes.Unauthenticated, "")
	// And no access token at all.
	_, err = e.client.ListSessions(ctx, &identityv1.ListSessionsRequest{SessionToken: first})
	wantStatus(t, err, codes.Unauthenticated, "")
	if n := len(e.revocations(id)); n != 0 {
		t.Fatalf("%d revocations written before any revocation", n)
	}

	// One session: revoked at once, and the news is in the outbox (same transaction).
	if _, err := e.client.RevokeSession(asFirst, &identityv1.RevokeSessionRequest{SessionToken: first, SessionId: second.GetId()}); err != nil {
		t.Fatal(err)
	}
	e.lastRevocation(id, "revoked", second.GetId())
	_, err = e.bff.Refresh(ctx, &identityv1.RefreshRequest{SessionToken: second.GetToken()})
	wantStatus(t, err, codes.Unauthenticated, "")
	_, err = e.client.RevokeSession(asFirst, &identityv1.RevokeSessionRequest{SessionToken: first, SessionId: second.GetId()})
	wantStatus(t, err, codes.NotFound, "")

	// All the others.
	fourth := e.signInFrom(email, chromeWindows, "device-four")
	res, err := e.client.RevokeOtherSessions(asFirst, &identityv1.RevokeOtherSessionsRequest{SessionToken: first})
	if err != nil || res.GetRevoked() != 2 {
		t.Fatalf("RevokeOtherSessions = %v, %v; want 2 revoked", res, err)
	}
	e.lastRevocation(id, "revoked", third.GetId(), fourth.GetId())
	if res, err := e.client.RevokeOtherSessions(asFirst, &identityv1.RevokeOtherSessionsRequest{SessionToken: first}); err != nil || res.GetRevoked() != 0 {
		t.Fatalf("RevokeOtherSessions again = %v, %v", res, err)
	}
	if n := len(e.revocations(id)); n != 2 {
		t.Fatalf("%d revocation events; revoking nothing must write none", n)
	}
	e.accessToken(first)

	// Signing out.
	if _, err := e.bff.SignOut(ctx, &identityv1.SignOutRequest{SessionToken: first}); err != nil {
		t.Fatal(err)
	}
	e.lastRevocation(id, "sign_out", ss[0].GetId())
	if n := len(e.revocations(id)); n != 3 {
		t.Fatalf("%d revocation events after sign-out", n)
	}
	if _, err := e.bff.SignOut(ctx, &identityv1.SignOutRequest{SessionToken: first}); err != nil {
		t.Fatal(err)
	}
	if n := len(e.revocations(id)); n != 3 {
		t.Fatal("signing out a signed-out session wrote another revocation")
	}
}

func TestPasswordChangeAndResetPublishRevocations(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	const email = "passwords-revoke@example.com"
	id, first := e.signUpVerified(email)
	second := e.signInFrom(email, firefoxLinux, "device-two")
	firstID := e.sessionID(first)

	const next = "another-correct-horse-77"
	if _, err := e.client.ChangePassword(auth.WithBearer(ctx, e.accessToken(first)), &identityv1.ChangePasswordRequest{
		CurrentPassword: goodPassword, NewPassword: next, SessionToken: first,
	}); err != nil {
		t.Fatal(err)
	}
	e.lastRevocation(id, "password_changed", second.GetId())

	if _, err := e.bff.RequestPasswordReset(ctx, &identityv1.RequestPasswordResetRequest{Email: email, Client: browser}); err != nil {
		t.Fatal(err)
	}
	code := e.lastCode(id, "password_reset_code")
	if _, err := e.bff.ResetPassword(ctx, &identityv1.ResetPasswordRequest{
		Email: email, Code: code, NewPassword: "yet-another-horse-1234", Client: browser,
	}); err != nil {
		t.Fatal(err)
	}
	e.lastRevocation(id, "password_reset", firstID)
}

// sessionID is the id of the session of token (Refresh names it).
func (e *env) sessionID(token string) string {
	e.t.Helper()
	res, err := e.bff.Refresh(ctxT(e.t), &identityv1.RefreshRequest{SessionToken: token})
	if err != nil || res.GetSessionId() == "" {
		e.t.Fatalf("Refresh = %v, %v", res, err)
	}
	return res.GetSessionId()
}

func TestNewDeviceEmail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	const email = "devices@example.com"
	id, code := e.signUp(email)
	newSignIns := func() []*notificationsv1.NotificationRequest {
		var out []*notificationsv1.NotificationRequest
		for _, n := range e.notifications(id) {
			if n.GetTemplate() == notificationsv1.Template_TEMPLATE_NEW_SIGN_IN {
				out = append(out, n)
			}
		}
		return out
	}
	// The first device (verification signs in) is no news.
	if _, err := e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{
		Email: email, Code: code, DeviceId: "laptop-cookie", Client: &identityv1.Client{Address: "198.51.100.9", UserAgent: firefoxLinux},
	}); err != nil {
		t.Fatal(err)
	}
	e.signInFrom(email, firefoxLinux, "laptop-cookie")
	if n := len(newSignIns()); n != 0 {
		t.Fatalf("%d new-sign-in e-mails for the first device", n)
	}

	// A second device is.
	e.clock.Advance(time.Minute)
	e.signInFrom(email, chromeWindows, "office-pc-cookie")
	got := newSignIns()
	if len(got) != 1 {
		t.Fatalf("%d new-sign-in e-mails after a second device, want 1", len(got))
	}
	p := got[0].GetParams()
	if got[0].GetRecipient() != email || p["first_name"] != "Thandi" || p["device"] != "Chrome on Windows" ||
		p["address"] != "198.51.100.9" || p["at"] != e.clock.Now().UTC().Format(time.RFC3339) {
		t.Fatalf("new-sign-in e-mail = %v", got[0])
	}

	// The same device again, or no device cookie at all, is not.
	e.signInFrom(email, chromeWindows, "office-pc-cookie")
	e.signInFrom(email, chromeWindows, "")
	if n := len(newSignIns()); n != 1 {
		t.Fatalf("%d new-sign-in e-mails after known devices, want 1", n)
	}
	// Only hashes are stored.
	var stored int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM known_devices WHERE user_id = $1
		AND position(convert_to('office-pc-cookie', 'UTF8') in device_hash) = 0`, id).Scan(&stored); err != nil || stored != 2 {
		t.Fatalf("known devices = %d, %v; want 2, hashed", stored, err)
	}
}

func TestRefreshWritesLastSeenAtMostOnceAMinute(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	_, token := e.signUpVerified("seen@example.com")
	lastSeen := func() time.Time {
		var at time.Time
		if err := e.pool.QueryRow(ctx, `SELECT last_seen_at FROM sessions`).Scan(&at); err != nil {
			t.Fatal(err)
		}
		return at
	}
	opened := lastSeen()
	e.clock.Advance(30 * time.Second)
	e.accessToken(token)
	if !lastSeen().Equal(opened) {
		t.Fatal("a refresh within a minute wrote last_seen_at")
	}
	e.clock.Advance(31 * time.Second)
	e.accessToken(token)
	if got := lastSeen(); !got.Equal(e.clock.Now().Truncate(time.Microsecond)) {
		t.Fatalf("last_seen_at = %s after a minute, want %s", got, e.clock.Now())
	}
}

// The owner is e-mailed when the password changes, in the account or with a reset code: a
// password changed by someone else is how a takeover starts.
func TestPasswordChangeAndResetAreEmailedToTheOwner(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	const email = "passwords-mailed@example.com"
	id, session := e.signUpVerified(email)
	changed := func() []*notificationsv1.NotificationRequest {
		var out []*notificationsv1.NotificationRequest
		for _, n := range e.notifications(id) {
			if n.GetTemplate() == notificationsv1.Template_TEMPLATE_PASSWORD_CHANGED {
				out = append(out, n)
			}
		}
		return out
	}
	if n := len(changed()); n != 0 {
		t.Fatalf("%d password-changed e-mails before any change", n)
	}

	// A wrong current password changes nothing and tells nobody.
	if _, err := e.client.ChangePassword(auth.WithBearer(ctx, e.accessToken(session)), &identityv1.ChangePasswordRequest{
		CurrentPassword: "not-the-password-1", NewPassword: "another-correct-horse-77", SessionToken: session,
	}); err == nil {
		t.Fatal("a wrong current password changed the password")
	}
	if n := len(changed()); n != 0 {
		t.Fatalf("%d password-changed e-mails after a refused change", n)
	}

	if _, err := e.client.ChangePassword(auth.WithBearer(ctx, e.accessToken(session)), &identityv1.ChangePasswordRequest{
		CurrentPassword: goodPassword, NewPassword: "another-correct-horse-77", SessionToken: session,
	}); err != nil {
		t.Fatal(err)
	}
	if got := changed(); len(got) != 1 || got[0].GetParams()["how"] != "changed" || got[0].GetRecipient() != email ||
		got[0].GetParams()["first_name"] == "" || got[0].GetParams()["at"] == "" {
		t.Fatalf("after a change: %v", got)
	}

	if _, err := e.bff.RequestPasswordReset(ctx, &identityv1.RequestPasswordResetRequest{Email: email, Client: browser}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.bff.ResetPassword(ctx, &identityv1.ResetPasswordRequest{
		Email: email, Code: e.lastCode(id, "password_reset_code"), NewPassword: "yet-another-horse-1234", Client: browser,
	}); err != nil {
		t.Fatal(err)
	}
	if got := changed(); len(got) != 2 || got[1].GetParams()["how"] != "reset" {
		t.Fatalf("after a reset: %v", got)
	}
}
