package grpcport_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/seal/sealtest"
	"github.com/thumela/thumela/services/platform/service"

	"github.com/thumela/thumela/services/identity/internal/domain"
	grpcport "github.com/thumela/thumela/services/identity/internal/ports/grpc"
)

func TestSignUpVerifyRefresh(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)

	res, err := e.bff.SignUp(ctx, &identityv1.SignUpRequest{
		FirstName: " Thandi ", LastName: "Nkosi", Email: "  Thandi.Nkosi@Example.COM ", Password: goodPassword, Client: browser,
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetEmail() != "thandi.nkosi@example.com" {
		t.Fatalf("email = %q", res.GetEmail())
	}
	if d := res.GetResendAvailableAt().AsTime().Sub(e.clock.Now()); d < 59*time.Second || d > 61*time.Second {
		t.Fatalf("resend available in %s", d)
	}
	if d := res.GetCodeExpiresAt().AsTime().Sub(e.clock.Now()); d < 599*time.Second || d > 601*time.Second {
		t.Fatalf("code expires in %s", d)
	}
	var id string
	if err := e.pool.QueryRow(ctx, `SELECT id FROM users WHERE email = $1`, res.GetEmail()).Scan(&id); err != nil {
		t.Fatal(err)
	}

	// The user, user.signed_up and the e-mail are all there (one transaction).
	var signedUp []byte
	if err := e.pool.QueryRow(ctx, `SELECT payload FROM outbox WHERE subject = $1`,
		"thumela.identity."+id+".signed_up").Scan(&signedUp); err != nil {
		t.Fatal(err)
	}
	ev := &identityv1.UserSignedUp{}
	if err := proto.Unmarshal(signedUp, ev); err != nil || ev.GetUserId() != id || ev.GetFirstName() != "Thandi" ||
		ev.GetEmail() != "thandi.nkosi@example.com" {
		t.Fatalf("signed_up = %v, %v", ev, err)
	}
	rs := e.outboxRequests(id)
	if len(rs) != 1 {
		t.Fatalf("%d e-mails", len(rs))
	}
	n := rs[0].req
	// The account is unverified, so its name is nobody's proved words: the code e-mail greets no
	// one by name (first_name empty, unverified "true"; TestCodeEmailsToAnUnverifiedAccountCarryNoName).
	if n.GetChannel() != notificationsv1.Channel_CHANNEL_EMAIL || n.GetRecipient() != "thandi.nkosi@example.com" ||
		n.GetTemplate() != notificationsv1.Template_TEMPLATE_SIGN_UP_CODE || n.GetUserId() != id || n.GetReference() != id ||
		n.GetSourceService() != "identity" || n.GetCreatedAt() == nil || n.GetId() == "" ||
		n.GetParams()["first_name"] != "" || n.GetParams()["unverified"] != "true" ||
		n.GetParams()["ttl_minutes"] != "10" || len(n.GetParams()) != 3 ||
		n.GetSecrets().GetKeyId() != e.sealKey.ID {
		t.Fatalf("notification request = %v", n)
	}
	// The request leaves identity's database once published (the relay deletes ephemeral rows).
	if !rs[0].ephemeral {
		t.Fatal("the e-mail request's outbox row is not ephemeral")
	}
	// The code travels sealed only: lastCode opens it and checks the request's bytes lack it.
	code := e.lastCode(id, "sign_up_code")
	if secrets := sealtest.OpenSecrets(t, e.sealKey, n); len(secrets) != 1 {
		t.Fatalf("%d secrets sealed, want the code alone", len(secrets))
	}

	// Not verified yet: signing in is refused.
	_, err = e.signIn("thandi.nkosi@example.com", goodPassword)
	wantStatus(t, err, codes.FailedPrecondition, grpcport.MsgVerifyEmail)

	vres, err := e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{Email: "THANDI.NKOSI@example.com", Code: code, Client: browser})
	if err != nil {
		t.Fatal(err)
	}
	if !vres.GetUser().GetEmailVerified() || vres.GetUser().GetId() != id || vres.GetSession().GetToken() == "" {
		t.Fatalf("VerifyEmail = %v", vres)
	}
	var verifiedEvents int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE subject = $1`,
		"thumela.identity."+id+".verified").Scan(&verifiedEvents); err != nil || verifiedEvents != 1 {
		t.Fatalf("%d verified events, %v", verifiedEvents, err)
	}
	// The code is single use.
	_, err = e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{Email: "thandi.nkosi@example.com", Code: code})
	wantStatus(t, err, codes.InvalidArgument, grpcport.MsgCodeInvalid)

	rres, err := e.bff.Refresh(ctx, &identityv1.RefreshRequest{SessionToken: vres.GetSession().GetToken()})
	if err != nil {
		t.Fatal(err)
	}
	if ttl := time.Until(rres.GetAccessTokenExpiresAt().AsTime()); ttl > 10*time.Minute || ttl < 9*time.Minute {
		t.Fatalf("access token lives %s", ttl)
	}
	if rres.GetSessionExpiresAt().AsTime().Before(time.Now().Add(29 * 24 * time.Hour)) {
		t.Fatalf("session expires at %s", rres.GetSessionExpiresAt().AsTime())
	}

	// A verifier that knows only what GetPublicKeys publishes accepts the token.
	keys, err := e.client.GetPublicKeys(ctx, &identityv1.GetPublicKeysRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(keys.GetKeys()) != 2 || keys.GetKeys()[1].GetKeyId() != e.previous.ID {
		t.Fatalf("GetPublicKeys = %v (want the current and the previous key)", keys)
	}
	published := auth.StaticKeys{}
	for _, k := range keys.GetKeys() {
		published = append(published, auth.PublicKey{ID: k.GetKeyId(), Key: k.GetEd25519PublicKey()})
	}
	claims, err := auth.NewVerifier(published, service.TokenIssuer).Verify(ctx, rres.GetAccessToken())
	if err != nil {
		t.Fatal(err)
	}
	if claims.Subject != id || claims.Kind != auth.KindUser || claims.Email != "thandi.nkosi@example.com" ||
		claims.GivenName != "Thandi" || claims.FamilyName != "Nkosi" || claims.SessionID == "" ||
		claims.Issuer != service.TokenIssuer || claims.ExpiresAt.Sub(claims.IssuedAt) > 10*time.Minute {
		t.Fatalf("claims = %+v", claims)
	}

	// GetUser: the account the token names; no token is Unauthenticated.
	authed := auth.WithBearer(ctx, rres.GetAccessToken())
	gres, err := e.client.GetUser(authed, &identityv1.GetUserRequest{})
	if err != nil || gres.GetUser().GetId() != id || gres.GetUser().GetEmail() != "thandi.nkosi@example.com" || gres.GetUser().GetFirstName() != "Thandi" {
		t.Fatalf("GetUser = %v, %v", gres, err)
	}
	_, err = e.client.GetUser(ctx, &identityv1.GetUserRequest{})
	wantStatus(t, err, codes.Unauthenticated, "")
}

func TestSignUpDuplicateEmail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	takenID, _ := e.signUpVerified("taken@example.com")
	pendingID, firstCode := e.signUp("pending@example.com")
	e.clock.Advance(5 * time.Second)

	// A new address, a verified one and an unverified one with another password: one answer
	// (the clock is the test's, so even the times must be equal).
	signUp := func(first, email, password string) *identityv1.SignUpResponse {
		t.Helper()
		res, err := e.bff.SignUp(ctx, &identityv1.SignUpRequest{
			FirstName: first, LastName: "X", Email: email, Password: password, Client: browser,
		})
		if err != nil {
			t.Fatalf("SignUp(%s) = %v", email, err)
		}
		return res
	}
	fresh := signUp("Sipho", "fresh@example.com", "another-good-one")
	for _, email := range []string{"Taken@Example.com", "pending@example.com"} {
		res := signUp("Mallory", email, "another-good-one")
		if res.GetEmail() != strings.ToLower(email) {
			t.Fatalf("email = %q", res.GetEmail())
		}
		res.Email = fresh.GetEmail()
		if !proto.Equal(res, fresh) {
			t.Fatalf("answers differ: %v / %v", res, fresh)
		}
	}

	// The owners were told, with nothing the stranger typed: the verified one by their own name,
	// the unverified one by no name (its name is the first sign-up's, nobody's proved).
	for _, id := range []string{takenID, pendingID} {
		var attempts []*notificationsv1.NotificationRequest
		for _, n := range e.notifications(id) {
			if n.GetTemplate() == notificationsv1.Template_TEMPLATE_SIGN_UP_ATTEMPT {
				attempts = append(attempts, n)
			}
		}
		if len(attempts) != 1 {
			t.Fatalf("user %s: %d sign-up-attempt e-mails", id, len(attempts))
		}
		a := attempts[0]
		// The unverified account's e-mail says its password no longer works ("unverified"); the
		// verified one's, that nothing changed.
		wantParams, unverified, firstName := 2, "", "Thandi"
		if id == pendingID {
			wantParams, unverified, firstName = 3, "true", ""
		}
		if a.GetParams()["first_name"] != firstName || a.GetParams()["at"] == "" || len(a.GetParams()) != wantParams ||
			a.GetParams()["unverified"] != unverified ||
			a.GetSecrets() != nil || a.GetChannel() != notificationsv1.Channel_CHANNEL_EMAIL || a.GetUserId() != id {
			t.Fatalf("attempt e-mail = %v", a)
		}
	}
	// No account changed hands or names.
	var renamed int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM users WHERE first_name = 'Mallory'`).Scan(&renamed); err != nil || renamed != 0 {
		t.Fatalf("%d accounts renamed by a stranger (%v)", renamed, err)
	}
	if _, err := e.signIn("taken@example.com", "another-good-one"); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("the stranger's password opens the verified account: %v", err)
	}
	if _, err := e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{Email: "pending@example.com", Code: firstCode}); err != nil {
		t.Fatalf("the owner's code stopped working: %v", err)
	}
	if _, err := e.signIn("pending@example.com", "another-good-one"); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("the stranger's password opens the unverified account: %v", err)
	}
	// Nor does the first password: which of the two sign-ups was the owner's, nobody can tell
	// (TestAStrangersPendingSignUpCannotBeVerifiedByTheOwner). The owner, verified by the code,
	// chooses a password with a reset code.
	if _, err := e.signIn("pending@example.com", goodPassword); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("the first of two contested passwords opens the account: %v", err)
	}
	if _, err := e.bff.RequestPasswordReset(ctx, &identityv1.RequestPasswordResetRequest{Email: "pending@example.com", Client: browser}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.bff.ResetPassword(ctx, &identityv1.ResetPasswordRequest{Email: "pending@example.com",
		Code: e.lastCode(pendingID, "password_reset_code"), NewPassword: goodPassword, Client: browser}); err != nil {
		t.Fatalf("the owner's reset: %v", err)
	}
	if _, err := e.signIn("pending@example.com", goodPassword); err != nil {
		t.Fatal(err)
	}

	// The same person again with the same password: names updated, the code already sent stands
	// within the resend interval, and a new one comes after it.
	id, againCode := e.signUp("again@example.com")
	res, err := e.bff.SignUp(ctx, &identityv1.SignUpRequest{
		FirstName: "Thandeka", LastName: "Nkosi", Email: "again@example.com", Password: goodPassword, Client: browser,
	})
	if err != nil || res.GetEmail() != "again@example.com" {
		t.Fatalf("SignUp again = %v, %v", res, err)
	}
	if n := len(e.notifications(id)); n != 1 {
		t.Fatalf("%d e-mails within the resend interval", n)
	}
	e.clock.Advance(61 * time.Second)
	if _, err := e.bff.SignUp(ctx, &identityv1.SignUpRequest{
		FirstName: "Thandeka", LastName: "Nkosi", Email: "again@example.com", Password: goodPassword, Client: browser,
	}); err != nil {
		t.Fatal(err)
	}
	newCode := e.lastCode(id, "sign_up_code")
	if len(e.notifications(id)) != 2 {
		t.Fatal("no new code after the resend interval")
	}
	if newCode != againCode {
		_, err = e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{Email: "again@example.com", Code: againCode})
		wantStatus(t, err, codes.InvalidArgument, grpcport.MsgCodeInvalid)
	}
	v, err := e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{Email: "again@example.com", Code: newCode})
	if err != nil || v.GetUser().GetFirstName() != "Thandeka" {
		t.Fatalf("VerifyEmail = %v, %v", v, err)
	}
}

// TestSignUpTakesAsLongForAnyAddress: every path does the same argon2id work, so the time a
// sign-up takes does not tell a taken address from a new one (loose bounds, no flakes). Not
// parallel, and the three kinds take turns, so other tests' load falls on each alike.
func TestSignUpTakesAsLongForAnyAddress(t *testing.T) {
	e := newEnv(t)
	e.signUpVerified("timed@example.com")
	e.signUp("timed-pending@example.com")
	kinds := []func(i int) string{
		func(i int) string { return fmt.Sprintf("timed-new-%d@example.com", i) },
		func(int) string { return "timed@example.com" },
		func(int) string { return "timed-pending@example.com" },
	}
	best := []time.Duration{time.Hour, time.Hour, time.Hour}
	for i := range 5 {
		for k, email := range kinds {
			began := time.Now()
			if _, err := e.bff.SignUp(ctxT(t), &identityv1.SignUpRequest{
				FirstName: "T", LastName: "N", Email: email(i), Password: "another-good-one", Client: browser,
			}); err != nil {
				t.Fatal(err)
			}
			best[k] = min(best[k], time.Since(began))
		}
	}
	fresh := best[0]
	for k, name := range map[int]string{1: "verified", 2: "unverified"} {
		if d := best[k]; d < fresh/4 || d > fresh*4 {
			t.Errorf("a sign-up for a %s address took %s, a new one %s", name, d, fresh)
		}
	}
}

// TestCodeFormsLookAlikeForAnyAddress: VerifyEmail and ResetPassword give one answer for an
// unknown address, a verified one, a wrong code, an expired one and a used one, and each
// counts against the code throttle alike.
func TestCodeFormsLookAlikeForAnyAddress(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withThrottle(10, 50, 3))
	ctx := ctxT(t)
	e.signUpVerified("verified@example.com")
	_, code := e.signUp("pending@example.com")
	wrong := "000000"
	if code == wrong {
		wrong = "999999"
	}
	var answers []*status.Status
	verify := func(email, digits string) {
		t.Helper()
		_, err := e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{Email: email, Code: digits, Client: browser})
		answers = append(answers, wantStatus(t, err, codes.InvalidArgument, grpcport.MsgCodeInvalid))
	}
	reset := func(email, digits string) {
		t.Helper()
		_, err := e.bff.ResetPassword(ctx, &identityv1.ResetPasswordRequest{Email: email, Code: digits,
			NewPassword: "a-fresh-passphrase", Client: browser})
		answers = append(answers, wantStatus(t, err, codes.InvalidArgument, grpcport.MsgCodeInvalid))
	}
	verify("nobody@example.com", "123456")
	verify("nobody@example.com", "654321")
	verify("verified@example.com", "123456")
	verify("pending@example.com", wrong)
	reset("nobody@example.com", "123456")
	reset("verified@example.com", "123456") // no reset pending
	if _, err := e.bff.RequestPasswordReset(ctx, &identityv1.RequestPasswordResetRequest{Email: "verified@example.com"}); err != nil {
		t.Fatal(err)
	}
	reset("verified@example.com", wrong) // one pending: still no "tries left"
	for _, a := range answers[1:] {
		if !proto.Equal(a.Proto(), answers[0].Proto()) {
			t.Fatalf("answers differ: %v / %v", a.Proto(), answers[0].Proto())
		}
	}
	// The throttle (3 code failures an account here) counts an unknown address as it counts a
	// known one: each has had 3 refused tries, and each is now refused alike.
	for _, email := range []string{"nobody@example.com", "verified@example.com"} {
		_, err := e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{Email: email, Code: "123456", Client: browser})
		wantStatus(t, err, codes.ResourceExhausted, "")
	}
}

// TestResendCodeAnswersAlikeForAnyAddress: one answer for a new, verified, unverified or
// recently-sent address; only the unverified account past the interval gets an e-mail.
func TestResendCodeAnswersAlikeForAnyAddress(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	e.signUpVerified("verified@example.com")
	id, _ := e.signUp("pending@example.com")
	e.clock.Advance(10 * time.Second)
	var answers []*identityv1.ResendCodeResponse
	for _, email := range []string{"nobody@example.com", "verified@example.com", "pending@example.com"} {
		res, err := e.bff.ResendCode(ctx, &identityv1.ResendCodeRequest{Email: email,
			Purpose: identityv1.CodePurpose_CODE_PURPOSE_EMAIL_VERIFICATION, Client: browser})
		if err != nil {
			t.Fatalf("ResendCode(%s) = %v", email, err)
		}
		answers = append(answers, res)
	}
	for _, a := range answers[1:] {
		if !proto.Equal(a, answers[0]) {
			t.Fatalf("answers differ: %v / %v", a, answers[0])
		}
	}
	if n := len(e.notifications(id)); n != 1 {
		t.Fatalf("%d e-mails: a code was sent within the resend interval", n)
	}
}

func TestConcurrentSignUpsOfOneEmail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const n = 4
	errs := make(chan error, n)
	for i := range n {
		go func() {
			_, err := e.bff.SignUp(ctxT(t), &identityv1.SignUpRequest{
				FirstName: "T", LastName: "N", Email: "race@example.com", Password: fmt.Sprintf("racing-passphrase-%d", i),
			})
			errs <- err
		}()
	}
	// Every racer gets the same answer (no AlreadyExists for the losers); one account is made,
	// and the others' attempts are e-mailed to it.
	for range n {
		if err := <-errs; err != nil {
			t.Fatalf("unexpected %v", err)
		}
	}
	var users int
	var id string
	if err := e.pool.QueryRow(ctxT(t), `SELECT count(*), min(id::text) FROM users`).Scan(&users, &id); err != nil || users != 1 {
		t.Fatalf("%d users (%v)", users, err)
	}
	var codeMails, attempts int
	for _, m := range e.notifications(id) {
		switch m.GetTemplate() {
		case notificationsv1.Template_TEMPLATE_SIGN_UP_CODE:
			codeMails++
		case notificationsv1.Template_TEMPLATE_SIGN_UP_ATTEMPT:
			attempts++
		}
	}
	if codeMails != 1 || attempts != n-1 {
		t.Fatalf("%d codes and %d attempt e-mails, want 1 and %d", codeMails, attempts, n-1)
	}
}

func TestSignUpValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	_, err := e.bff.SignUp(ctx, &identityv1.SignUpRequest{
		FirstName: "Thandi", LastName: "Nkosi", Email: "thandi@example.com", Password: "passw0rd",
	})
	st := wantStatus(t, err, codes.InvalidArgument, domain.MsgPasswordCommon)
	if v := badRequest(t, st); len(v) != 1 || v[0].GetField() != "password" || v[0].GetDescription() != domain.MsgPasswordCommon {
		t.Fatalf("violations = %v", v)
	}

	_, err = e.bff.SignUp(ctx, &identityv1.SignUpRequest{
		FirstName: "Thandi", LastName: "Nkosi", Email: "qwerty@example.com", Password: "qwerty",
	})
	st = wantStatus(t, err, codes.InvalidArgument, domain.MsgPasswordTooShort+" "+domain.MsgPasswordCommon+" "+domain.MsgPasswordIsEmail)
	var reasons []string
	for _, v := range badRequest(t, st) {
		if v.GetField() != "password" {
			t.Fatalf("violation on %q", v.GetField())
		}
		reasons = append(reasons, v.GetDescription())
	}
	if len(reasons) != 3 {
		t.Fatalf("reasons = %q", reasons)
	}

	_, err = e.bff.SignUp(ctx, &identityv1.SignUpRequest{FirstName: " ", LastName: "N", Email: "nope", Password: goodPassword})
	st = wantStatus(t, err, codes.InvalidArgument, "")
	v := badRequest(t, st)
	if len(v) != 2 || v[0].GetField() != "first_name" || v[1].GetField() != "email" {
		t.Fatalf("violations = %v", v)
	}

	// A first name that is a web address would be the sender's name in a voucher SMS.
	_, err = e.bff.SignUp(ctx, &identityv1.SignUpRequest{
		FirstName: "Visit fnb-secure.co.za", LastName: "Nkosi", Email: "lure@example.com", Password: goodPassword, Client: browser,
	})
	st = wantStatus(t, err, codes.InvalidArgument, "")
	if v := badRequest(t, st); len(v) != 1 || v[0].GetField() != "first_name" || v[0].GetDescription() != "Names can't contain a web address." {
		t.Fatalf("violations = %v", v)
	}
	var users int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM users`).Scan(&users); err != nil || users != 0 {
		t.Fatalf("%d users after refused sign-ups (%v)", users, err)
	}
}

func TestWrongCodeAndAttemptLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	_, code := e.signUp("tries@example.com")
	wrong := "000000"
	if code == wrong {
		wrong = "999999"
	}
	for remaining := 4; remaining >= 1; remaining-- {
		_, err := e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{Email: "tries@example.com", Code: wrong})
		// No "tries left": the count would tell that the address has an account.
		st := wantStatus(t, err, codes.InvalidArgument, grpcport.MsgCodeInvalid)
		if v := badRequest(t, st); v[0].GetField() != "code" {
			t.Fatalf("violation on %q", v[0].GetField())
		}
	}
	_, err := e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{Email: "tries@example.com", Code: wrong})
	wantStatus(t, err, codes.InvalidArgument, grpcport.MsgCodeInvalid)
	// The right code is dead too.
	_, err = e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{Email: "tries@example.com", Code: code})
	wantStatus(t, err, codes.InvalidArgument, grpcport.MsgCodeInvalid)

	// A malformed code is refused before any lookup.
	_, err = e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{Email: "tries@example.com", Code: "12ab56"})
	wantStatus(t, err, codes.InvalidArgument, "The code must be 6 digits.")
	// An unknown e-mail looks like any refused code.
	_, err = e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{Email: "nobody@example.com", Code: "123456"})
	wantStatus(t, err, codes.InvalidArgument, grpcport.MsgCodeInvalid)
}

func TestCodeThrottleAcrossResends(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withThrottle(10, 50, 6))
	ctx := ctxT(t)
	id, _ := e.signUp("brute@example.com")
	for i := range 6 {
		if i == 5 {
			e.clock.Advance(61 * time.Second)
			if _, err := e.bff.ResendCode(ctx, &identityv1.ResendCodeRequest{Email: "brute@example.com",
				Purpose: identityv1.CodePurpose_CODE_PURPOSE_EMAIL_VERIFICATION}); err != nil {
				t.Fatal(err)
			}
		}
		code := e.lastCode(id, "sign_up_code")
		wrong := "000000"
		if code == wrong {
			wrong = "999999"
		}
		_, _ = e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{Email: "brute@example.com", Code: wrong})
	}
	_, err := e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{Email: "brute@example.com", Code: e.lastCode(id, "sign_up_code")})
	st := wantStatus(t, err, codes.ResourceExhausted, "")
	if d := retryDelay(t, st); d <= 0 || d > 15*time.Minute {
		t.Fatalf("retry after %s", d)
	}
	// Once the failures age out of the window the throttle lets go; the code itself has
	// expired meanwhile.
	e.clock.Advance(15 * time.Minute)
	_, err = e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{Email: "brute@example.com", Code: e.lastCode(id, "sign_up_code")})
	wantStatus(t, err, codes.InvalidArgument, grpcport.MsgCodeInvalid)
}

func TestExpiredCode(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, code := e.signUp("late@example.com")
	e.clock.Advance(10*time.Minute + time.Second)
	_, err := e.bff.VerifyEmail(ctxT(t), &identityv1.VerifyEmailRequest{Email: "late@example.com", Code: code})
	wantStatus(t, err, codes.InvalidArgument, grpcport.MsgCodeInvalid)
}

func TestResendCode(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	id, oldCode := e.signUp("resend@example.com")
	req := &identityv1.ResendCodeRequest{Email: "resend@example.com", Purpose: identityv1.CodePurpose_CODE_PURPOSE_EMAIL_VERIFICATION, Client: browser}

	// Within the resend interval: the usual answer, nothing sent (a refusal would tell that the
	// address has an unverified account).
	e.clock.Advance(20 * time.Second)
	if _, err := e.bff.ResendCode(ctx, req); err != nil {
		t.Fatal(err)
	}
	if n := len(e.notifications(id)); n != 1 {
		t.Fatalf("%d e-mails within the resend interval", n)
	}

	e.clock.Advance(40 * time.Second)
	res, err := e.bff.ResendCode(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !res.GetResendAvailableAt().AsTime().Equal(e.clock.Now().Add(time.Minute).Truncate(time.Microsecond)) {
		t.Fatalf("resend available at %s", res.GetResendAvailableAt().AsTime())
	}
	if len(e.notifications(id)) != 2 {
		t.Fatal("no second e-mail")
	}
	newCode := e.lastCode(id, "sign_up_code")
	if newCode != oldCode { // one in a million they are equal
		_, err = e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{Email: "resend@example.com", Code: oldCode})
		wantStatus(t, err, codes.InvalidArgument, "")
	}
	if _, err := e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{Email: "resend@example.com", Code: newCode}); err != nil {
		t.Fatal(err)
	}

	// Unknown and verified e-mails: success, nothing sent.
	var before int
	_ = e.pool.QueryRow(ctx, `SELECT count(*) FROM outbox`).Scan(&before)
	for _, email := range []string{"nobody@example.com", "resend@example.com"} {
		res, err := e.bff.ResendCode(ctx, &identityv1.ResendCodeRequest{Email: email, Purpose: identityv1.CodePurpose_CODE_PURPOSE_EMAIL_VERIFICATION})
		if err != nil || res.GetResendAvailableAt() == nil || res.GetCodeExpiresAt() == nil {
			t.Fatalf("ResendCode(%s) = %v, %v", email, res, err)
		}
	}
	var after int
	_ = e.pool.QueryRow(ctx, `SELECT count(*) FROM outbox`).Scan(&after)
	if after != before {
		t.Fatalf("%d messages written for unknown or verified e-mails", after-before)
	}
	_, err = e.bff.ResendCode(ctx, &identityv1.ResendCodeRequest{Email: "resend@example.com"})
	wantStatus(t, err, codes.InvalidArgument, "")
}

func TestSignInUnknownEmailAndWrongPasswordLookAlike(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.signUpVerified("known@example.com")

	_, errUnknown := e.signIn("unknown@example.com", goodPassword)
	_, errWrong := e.signIn("known@example.com", "wrong-password-here")
	_, errInvalid := e.signIn("not an email", goodPassword)
	a := wantStatus(t, errUnknown, codes.Unauthenticated, grpcport.MsgInvalidCredentials)
	b := wantStatus(t, errWrong, codes.Unauthenticated, grpcport.MsgInvalidCredentials)
	c := wantStatus(t, errInvalid, codes.Unauthenticated, grpcport.MsgInvalidCredentials)
	if !proto.Equal(a.Proto(), b.Proto()) || !proto.Equal(a.Proto(), c.Proto()) {
		t.Fatalf("answers differ: %v / %v / %v", a.Proto(), b.Proto(), c.Proto())
	}

	// Both paths run argon2id: timings are in the same range (loose bounds, no flakes).
	measure := func(email string) time.Duration {
		best := time.Hour
		for range 3 {
			began := time.Now()
			_, _ = e.signIn(email, "wrong-password-here")
			best = min(best, time.Since(began))
		}
		return best
	}
	unknown, wrong := measure("unknown2@example.com"), measure("known@example.com")
	if unknown < wrong/4 || wrong < unknown/4 {
		t.Fatalf("unknown e-mail took %s, wrong password %s", unknown, wrong)
	}
}

func TestSignInUnverified(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _ := e.signUp("unverified@example.com")
	_, err := e.signIn("unverified@example.com", goodPassword)
	wantStatus(t, err, codes.FailedPrecondition, grpcport.MsgVerifyEmail)
	if n := len(e.notifications(id)); n != 1 {
		t.Fatalf("%d e-mails: a code was sent within the resend interval", n)
	}
	e.clock.Advance(61 * time.Second)
	_, err = e.signIn("unverified@example.com", goodPassword)
	wantStatus(t, err, codes.FailedPrecondition, grpcport.MsgVerifyEmail)
	if n := len(e.notifications(id)); n != 2 {
		t.Fatalf("%d e-mails: no fresh code after the resend interval", n)
	}
	if _, err := e.bff.VerifyEmail(ctxT(t), &identityv1.VerifyEmailRequest{
		Email: "unverified@example.com", Code: e.lastCode(id, "sign_up_code"),
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.signIn("unverified@example.com", goodPassword); err != nil {
		t.Fatal(err)
	}
	// A wrong password for an unverified account says nothing about verification.
	e.signUp("unverified2@example.com")
	_, err = e.signIn("unverified2@example.com", "wrong-password-here")
	wantStatus(t, err, codes.Unauthenticated, grpcport.MsgInvalidCredentials)
}

func TestSignOutThenRefreshRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	_, session := e.signUpVerified("out@example.com")
	e.accessToken(session)
	if _, err := e.bff.SignOut(ctx, &identityv1.SignOutRequest{SessionToken: session}); err != nil {
		t.Fatal(err)
	}
	_, err := e.bff.Refresh(ctx, &identityv1.RefreshRequest{SessionToken: session})
	wantStatus(t, err, codes.Unauthenticated, grpcport.MsgSessionInvalid)
	// Signing out twice, or with garbage, is fine; refreshing garbage is not.
	if _, err := e.bff.SignOut(ctx, &identityv1.SignOutRequest{SessionToken: session}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.bff.SignOut(ctx, &identityv1.SignOutRequest{SessionToken: "garbage"}); err != nil {
		t.Fatal(err)
	}
	_, err = e.bff.Refresh(ctx, &identityv1.RefreshRequest{SessionToken: "garbage"})
	wantStatus(t, err, codes.Unauthenticated, grpcport.MsgSessionInvalid)
}

func TestSessionRotationAndExpiry(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	_, fromVerify := e.signUpVerified("rotate@example.com")
	a, err := e.signIn("rotate@example.com", goodPassword)
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.signIn("rotate@example.com", goodPassword)
	if err != nil {
		t.Fatal(err)
	}
	ta, tb := a.GetSession().GetToken(), b.GetSession().GetToken()
	if ta == tb || ta == fromVerify || tb == fromVerify {
		t.Fatal("a sign-in reused a session token")
	}
	if raw, err := base64.RawURLEncoding.DecodeString(ta); err != nil || len(raw) != 32 {
		t.Fatalf("token %q is not 256 bits of base64url", ta)
	}
	e.accessToken(ta)
	e.accessToken(tb)
	if _, err := e.bff.SignOut(ctx, &identityv1.SignOutRequest{SessionToken: ta}); err != nil {
		t.Fatal(err)
	}
	_, err = e.bff.Refresh(ctx, &identityv1.RefreshRequest{SessionToken: ta})
	wantStatus(t, err, codes.Unauthenticated, grpcport.MsgSessionInvalid)
	e.accessToken(tb)

	// Idle expiry slides with use; unused for 30 days the session ends.
	e.clock.Advance(29 * 24 * time.Hour)
	res, err := e.bff.Refresh(ctx, &identityv1.RefreshRequest{SessionToken: tb})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.GetSessionExpiresAt().AsTime(), e.clock.Now().Add(720*time.Hour); got.Sub(want).Abs() > time.Second {
		t.Fatalf("session expires at %s, want %s", got, want)
	}
	e.clock.Advance(30*24*time.Hour + time.Minute)
	_, err = e.bff.Refresh(ctx, &identityv1.RefreshRequest{SessionToken: tb})
	wantStatus(t, err, codes.Unauthenticated, grpcport.MsgSessionInvalid)
}

func TestSessionAbsoluteExpiry(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	_, session := e.signUpVerified("absolute@example.com")
	for range 4 {
		e.clock.Advance(20 * 24 * time.Hour)
		e.accessToken(session)
	}
	e.clock.Advance(10*24*time.Hour + time.Minute) // 90 days and a minute after sign-in
	_, err := e.bff.Refresh(ctx, &identityv1.RefreshRequest{SessionToken: session})
	wantStatus(t, err, codes.Unauthenticated, grpcport.MsgSessionInvalid)
}

func TestNoSecretsStored(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	const password = "Sekrit-Passphrase-4711"
	res, err := e.bff.SignUp(ctx, &identityv1.SignUpRequest{FirstName: "T", LastName: "N", Email: "vault@example.com", Password: password})
	if err != nil {
		t.Fatal(err)
	}
	var id string
	if err := e.pool.QueryRow(ctx, `SELECT id FROM users WHERE email = $1`, res.GetEmail()).Scan(&id); err != nil {
		t.Fatal(err)
	}
	code := e.lastCode(id, "sign_up_code")
	v, err := e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{Email: "vault@example.com", Code: code})
	if err != nil {
		t.Fatal(err)
	}
	session := v.GetSession().GetToken()
	access := e.accessToken(session)
	e.clock.Advance(61 * time.Second)
	if _, err := e.bff.RequestPasswordReset(ctx, &identityv1.RequestPasswordResetRequest{Email: "vault@example.com"}); err != nil {
		t.Fatal(err)
	}
	resetCode := e.lastCode(id, "password_reset_code")
	_, _ = e.signIn("vault@example.com", "a-wrong-password")

	var hash string
	if err := e.pool.QueryRow(ctx, `SELECT password_hash FROM users WHERE id = $1`, id).Scan(&hash); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("stored hash %q", hash)
	}

	rawToken, _ := base64.RawURLEncoding.DecodeString(session)
	secrets := []string{password, strings.ToLower(password), session, hex.EncodeToString(rawToken), access, "a-wrong-password"}
	codes := []string{code, resetCode}

	// Nothing the service logged carries a password, a code or a token.
	logged := e.logs.String()
	if !strings.Contains(logged, "SignUp") && !strings.Contains(logged, "grpc") {
		t.Fatalf("the scan saw no log lines at all: %q", logged)
	}
	for _, s := range append(append([]string{}, secrets...), codes...) {
		if strings.Contains(logged, s) {
			t.Errorf("the logs hold a secret (%d chars)", len(s))
		}
	}

	rows, err := e.pool.Query(ctx, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = 'identity' AND table_type = 'BASE TABLE'`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) < 5 {
		t.Fatalf("tables %v, %v", tables, err)
	}
	for _, table := range tables {
		rows, err := e.pool.Query(ctx, `SELECT row_to_json(t)::text FROM `+pgx.Identifier{table}.Sanitize()+` t`)
		if err != nil {
			t.Fatal(err)
		}
		dump, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range dump {
			lower := strings.ToLower(row)
			for _, s := range secrets {
				if strings.Contains(row, s) || strings.Contains(lower, strings.ToLower(s)) {
					t.Errorf("table %s holds a secret: %s", table, row)
				}
			}
			if table == "outbox" {
				// E-mail requests carry their code sealed to the notifications service, never in
				// clear. The payload is bytea; check it decoded too, for passwords, tokens and
				// codes. (Its other columns hold ids and times, whose digits may match a code.)
				var r struct{ Payload string }
				_ = json.Unmarshal([]byte(row), &r)
				payload, _ := hex.DecodeString(strings.TrimPrefix(r.Payload, `\x`))
				if len(payload) == 0 {
					t.Fatalf("outbox row without a payload: %s", row)
				}
				for _, s := range append(append([]string{}, secrets...), codes...) {
					if bytes.Contains(payload, []byte(s)) {
						t.Errorf("an outbox payload holds a secret or a code")
					}
				}
				continue
			}
			for _, c := range codes {
				if containsOutsideTimestamps(row, c) {
					t.Errorf("table %s holds a code: %s", table, row)
				}
			}
		}
	}
}

// containsOutsideTimestamps reports whether the JSON row holds s in a value that is not a
// timestamp (whose microseconds are six digits too).
func containsOutsideTimestamps(row, s string) bool {
	var m map[string]any
	if err := json.Unmarshal([]byte(row), &m); err != nil {
		return strings.Contains(row, s)
	}
	for _, v := range m {
		switch v := v.(type) {
		case float64:
			if strings.Contains(strconv.FormatFloat(v, 'f', -1, 64), s) {
				return true
			}
		case string:
			if _, err := time.Parse(time.RFC3339Nano, v); err == nil {
				continue
			}
			if strings.Contains(v, s) {
				return true
			}
		}
	}
	return false
}

func TestChangePassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	id, current := e.signUpVerified("change@example.com")
	other, err := e.signIn("change@example.com", goodPassword)
	if err != nil {
		t.Fatal(err)
	}
	authed := auth.WithBearer(ctx, e.accessToken(current))

	_, err = e.client.ChangePassword(authed, &identityv1.ChangePasswordRequest{CurrentPassword: "not-my-password", NewPassword: "brand-new-passphrase", SessionToken: current})
	st := wantStatus(t, err, codes.InvalidArgument, grpcport.MsgWrongCurrentPwd)
	if v := badRequest(t, st); v[0].GetField() != "current_password" {
		t.Fatalf("violation on %q", v[0].GetField())
	}
	_, err = e.client.ChangePassword(authed, &identityv1.ChangePasswordRequest{CurrentPassword: goodPassword, NewPassword: "password1", SessionToken: current})
	st = wantStatus(t, err, codes.InvalidArgument, domain.MsgPasswordCommon)
	if v := badRequest(t, st); v[0].GetField() != "new_password" {
		t.Fatalf("violation on %q", v[0].GetField())
	}
	_, err = e.client.ChangePassword(authed, &identityv1.ChangePasswordRequest{CurrentPassword: goodPassword, NewPassword: goodPassword})
	wantStatus(t, err, codes.InvalidArgument, domain.MsgPasswordUnchanged)
	_, err = e.client.ChangePassword(ctx, &identityv1.ChangePasswordRequest{CurrentPassword: goodPassword, NewPassword: "brand-new-passphrase"})
	wantStatus(t, err, codes.Unauthenticated, "")

	// A pending reset code dies with the change.
	e.clock.Advance(61 * time.Second)
	if _, err := e.bff.RequestPasswordReset(ctx, &identityv1.RequestPasswordResetRequest{Email: "change@example.com"}); err != nil {
		t.Fatal(err)
	}
	resetCode := e.lastCode(id, "password_reset_code")

	if _, err := e.client.ChangePassword(authed, &identityv1.ChangePasswordRequest{
		CurrentPassword: goodPassword, NewPassword: "brand-new-passphrase", SessionToken: current,
	}); err != nil {
		t.Fatal(err)
	}
	e.accessToken(current) // the session that asked stays
	_, err = e.bff.Refresh(ctx, &identityv1.RefreshRequest{SessionToken: other.GetSession().GetToken()})
	wantStatus(t, err, codes.Unauthenticated, grpcport.MsgSessionInvalid)
	_, err = e.signIn("change@example.com", goodPassword)
	wantStatus(t, err, codes.Unauthenticated, grpcport.MsgInvalidCredentials)
	if _, err := e.signIn("change@example.com", "brand-new-passphrase"); err != nil {
		t.Fatal(err)
	}
	_, err = e.bff.ResetPassword(ctx, &identityv1.ResetPasswordRequest{Email: "change@example.com", Code: resetCode, NewPassword: "yet-another-passphrase"})
	wantStatus(t, err, codes.InvalidArgument, grpcport.MsgCodeInvalid)
}

func TestPasswordReset(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	id, session := e.signUpVerified("forgot@example.com")

	var before int
	_ = e.pool.QueryRow(ctx, `SELECT count(*) FROM outbox`).Scan(&before)
	unknown, err := e.bff.RequestPasswordReset(ctx, &identityv1.RequestPasswordResetRequest{Email: "nobody@example.com", Client: browser})
	if err != nil {
		t.Fatal(err)
	}
	var after int
	_ = e.pool.QueryRow(ctx, `SELECT count(*) FROM outbox`).Scan(&after)
	if after != before {
		t.Fatal("a reset for an unknown e-mail wrote a message")
	}
	known, err := e.bff.RequestPasswordReset(ctx, &identityv1.RequestPasswordResetRequest{Email: "Forgot@example.com", Client: browser})
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(unknown, known) {
		t.Fatalf("answers differ: %v / %v", unknown, known)
	}
	code := e.lastCode(id, "password_reset_code")
	// Asking again at once answers the same and sends nothing.
	again, err := e.bff.RequestPasswordReset(ctx, &identityv1.RequestPasswordResetRequest{Email: "forgot@example.com"})
	if err != nil || !proto.Equal(again, known) {
		t.Fatalf("second request = %v, %v", again, err)
	}
	if n := len(e.notifications(id)); n != 2 {
		t.Fatalf("%d e-mails", n)
	}

	_, err = e.bff.ResetPassword(ctx, &identityv1.ResetPasswordRequest{Email: "forgot@example.com", Code: code, NewPassword: "Zq7!x"})
	wantStatus(t, err, codes.InvalidArgument, domain.MsgPasswordTooShort)
	wrong := "000000"
	if code == wrong {
		wrong = "999999"
	}
	_, err = e.bff.ResetPassword(ctx, &identityv1.ResetPasswordRequest{Email: "forgot@example.com", Code: wrong, NewPassword: "a-fresh-passphrase"})
	wantStatus(t, err, codes.InvalidArgument, grpcport.MsgCodeInvalid)
	if _, err := e.bff.ResetPassword(ctx, &identityv1.ResetPasswordRequest{Email: "forgot@example.com", Code: code, NewPassword: "a-fresh-passphrase"}); err != nil {
		t.Fatal(err)
	}
	_, err = e.bff.Refresh(ctx, &identityv1.RefreshRequest{SessionToken: session})
	wantStatus(t, err, codes.Unauthenticated, grpcport.MsgSessionInvalid)
	if _, err := e.signIn("forgot@example.com", "a-fresh-passphrase"); err != nil {
		t.Fatal(err)
	}
	_, err = e.bff.ResetPassword(ctx, &identityv1.ResetPasswordRequest{Email: "forgot@example.com", Code: code, NewPassword: "another-passphrase"})
	wantStatus(t, err, codes.InvalidArgument, grpcport.MsgCodeInvalid)

	// A reset proves the address: an unverified account becomes verified.
	pid, _ := e.signUp("pending@example.com")
	e.clock.Advance(61 * time.Second)
	if _, err := e.bff.ResendCode(ctx, &identityv1.ResendCodeRequest{Email: "pending@example.com", Purpose: identityv1.CodePurpose_CODE_PURPOSE_PASSWORD_RESET}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.bff.ResetPassword(ctx, &identityv1.ResetPasswordRequest{Email: "pending@example.com",
		Code: e.lastCode(pid, "password_reset_code"), NewPassword: "a-fresh-passphrase"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.signIn("pending@example.com", "a-fresh-passphrase"); err != nil {
		t.Fatal(err)
	}
}

func TestIssueServiceToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	res, err := e.client.IssueServiceToken(ctx, &identityv1.IssueServiceTokenRequest{Service: "transfers", Secret: testServiceSecret})
	if err != nil {
		t.Fatal(err)
	}
	claims, err := auth.NewVerifier(e.keys, service.TokenIssuer).Verify(ctx, res.GetAccessToken())
	if err != nil {
		t.Fatal(err)
	}
	if !claims.IsService("transfers") || claims.Email != "" || claims.ExpiresAt.Sub(claims.IssuedAt) > 10*time.Minute {
		t.Fatalf("claims = %+v", claims)
	}
	for _, bad := range []*identityv1.IssueServiceTokenRequest{
		{Service: "transfers", Secret: "wrong"},
		{Service: "transfers", Secret: ""},
		{Service: "bff", Secret: testServiceSecret},
		{Service: "unknown", Secret: testServiceSecret},
		{},
	} {
		_, err := e.client.IssueServiceToken(ctx, bad)
		wantStatus(t, err, codes.Unauthenticated, grpcport.MsgServiceCredentials)
	}
	// A service token is not a user's: GetUser refuses it.
	_, err = e.client.GetUser(auth.WithBearer(ctx, res.GetAccessToken()), &identityv1.GetUserRequest{})
	wantStatus(t, err, codes.PermissionDenied, "")
}

// TestAStrangersPendingSignUpCannotBeVerifiedByTheOwner: a stranger who signs up with someone
// else's address first, with a password of their own, must not get the account that the
// address's owner then verifies (account pre-hijacking). The owner's own sign-up meets the
// stranger's unverified account; from then on neither password opens it: the owner verifies
// with a code from their inbox (or resets the password, which verifies too), and the stranger's
// password is worth nothing.
func TestAStrangersPendingSignUpCannotBeVerifiedByTheOwner(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	const strangers = "mallorys-own-password"
	if _, err := e.bff.SignUp(ctx, &identityv1.SignUpRequest{
		FirstName: "Mallory", LastName: "X", Email: "owner@example.com", Password: strangers, Client: browser,
	}); err != nil {
		t.Fatal(err)
	}
	// Long after the stranger's code expired, the owner signs up, gets no code, and asks for one.
	e.clock.Advance(time.Hour)
	id, _ := e.signUp("owner@example.com")
	// The owner is told of the contested sign-up without the stranger's words: the account's
	// name is the one the stranger typed, so the e-mail greets no one by name.
	var attempts int
	for _, n := range e.notifications(id) {
		if n.GetTemplate() != notificationsv1.Template_TEMPLATE_SIGN_UP_ATTEMPT {
			continue
		}
		attempts++
		if n.GetParams()["unverified"] != "true" || n.GetParams()["first_name"] != "" {
			t.Fatalf("sign-up-attempt e-mail to the owner = %v", n)
		}
		for k, v := range n.GetParams() {
			if strings.Contains(v, "Mallory") {
				t.Fatalf("the stranger's name reached the owner's e-mail in %q: %q", k, v)
			}
		}
	}
	if attempts != 1 {
		t.Fatalf("%d sign-up-attempt e-mails to the owner", attempts)
	}
	if _, err := e.bff.ResendCode(ctx, &identityv1.ResendCodeRequest{Email: "owner@example.com",
		Purpose: identityv1.CodePurpose_CODE_PURPOSE_EMAIL_VERIFICATION, Client: browser}); err != nil {
		t.Fatal(err)
	}
	code := e.lastCode(id, "sign_up_code")
	if _, err := e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{Email: "owner@example.com", Code: code, Client: browser}); err != nil {
		t.Fatalf("the owner verifying with the e-mailed code: %v", err)
	}
	if _, err := e.signIn("owner@example.com", strangers); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("the stranger's password opens the account its owner verified: %v", err)
	}

	// The other order: the owner signs up first, a stranger second; the stranger's password
	// opens nothing either, and the owner's code still works.
	ownerID, ownersCode := e.signUp("second@example.com")
	if _, err := e.bff.SignUp(ctx, &identityv1.SignUpRequest{
		FirstName: "Mallory", LastName: "X", Email: "second@example.com", Password: strangers, Client: browser,
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{Email: "second@example.com", Code: ownersCode, Client: browser}); err != nil {
		t.Fatalf("the owner's code after a stranger's sign-up: %v", err)
	}
	if _, err := e.signIn("second@example.com", strangers); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("the stranger's password opens the owner's account: %v", err)
	}
	if n := len(e.notifications(ownerID)); n < 2 {
		t.Fatalf("the owner was not told of the sign-up attempt (%d e-mails)", n)
	}
}

// TestCodeEmailsToAnUnverifiedAccountCarryNoName: an unverified account's first name is whatever
// the first sign-up typed, maybe a stranger pre-hijacking the address with words of their own.
// The verification code (re-sent to the address's owner when they ask) and the reset code (how
// the owner takes the account back) must not carry them, in any field: first_name goes empty and
// unverified "true" tells notifications to greet no one by name. A verified account's reset
// e-mail still greets its owner by their first name.
func TestCodeEmailsToAnUnverifiedAccountCarryNoName(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	const stranger = "Mallory Call-Support-Now"
	if _, err := e.bff.SignUp(ctx, &identityv1.SignUpRequest{
		FirstName: stranger, LastName: "X", Email: "owner@example.com", Password: "mallorys-own-password", Client: browser,
	}); err != nil {
		t.Fatal(err)
	}
	var id string
	if err := e.pool.QueryRow(ctx, `SELECT id FROM users WHERE email = 'owner@example.com'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	// The owner of the address asks for a verification code, then for a reset code.
	e.clock.Advance(time.Hour)
	if _, err := e.bff.ResendCode(ctx, &identityv1.ResendCodeRequest{Email: "owner@example.com",
		Purpose: identityv1.CodePurpose_CODE_PURPOSE_EMAIL_VERIFICATION, Client: browser}); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(61 * time.Second)
	if _, err := e.bff.RequestPasswordReset(ctx, &identityv1.RequestPasswordResetRequest{Email: "owner@example.com", Client: browser}); err != nil {
		t.Fatal(err)
	}
	counts := map[notificationsv1.Template]int{}
	for _, r := range e.outboxRequests(id) {
		n := r.req
		counts[n.GetTemplate()]++
		if n.GetParams()["first_name"] != "" || n.GetParams()["unverified"] != "true" ||
			n.GetParams()["ttl_minutes"] != "10" || len(n.GetParams()) != 3 {
			t.Fatalf("%s e-mail to an unverified account: params %v", n.GetTemplate(), n.GetParams())
		}
		for _, part := range []string{"Mallory", "Call-Support-Now"} {
			if bytes.Contains(r.payload, []byte(part)) {
				t.Fatalf("the stranger's name reached the %s e-mail request", n.GetTemplate())
			}
		}
	}
	if counts[notificationsv1.Template_TEMPLATE_SIGN_UP_CODE] != 2 || counts[notificationsv1.Template_TEMPLATE_PASSWORD_RESET_CODE] != 1 ||
		len(counts) != 2 {
		t.Fatalf("e-mails to the unverified account: %v", counts)
	}

	// A verified account's reset e-mail greets its owner by the account's first name, as before.
	vid, _ := e.signUpVerified("verified@example.com")
	e.clock.Advance(61 * time.Second)
	if _, err := e.bff.RequestPasswordReset(ctx, &identityv1.RequestPasswordResetRequest{Email: "verified@example.com", Client: browser}); err != nil {
		t.Fatal(err)
	}
	var reset *notificationsv1.NotificationRequest
	for _, n := range e.notifications(vid) {
		if n.GetTemplate() == notificationsv1.Template_TEMPLATE_PASSWORD_RESET_CODE {
			reset = n
		}
	}
	if reset == nil || reset.GetParams()["first_name"] != "Thandi" || reset.GetParams()["ttl_minutes"] != "10" ||
		len(reset.GetParams()) != 2 {
		t.Fatalf("reset e-mail to a verified account = %v", reset)
	}
}
