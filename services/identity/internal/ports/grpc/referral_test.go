package grpcport_test

import (
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"

	"github.com/thumela/thumela/services/identity/internal/domain"
)

// verifiedEvent returns the UserVerified event identity wrote for userID.
func (e *env) verifiedEvent(userID string) *identityv1.UserVerified {
	e.t.Helper()
	var payload []byte
	if err := e.pool.QueryRow(ctxT(e.t), `SELECT payload FROM outbox WHERE subject = $1`,
		"thumela.identity."+userID+".verified").Scan(&payload); err != nil {
		e.t.Fatal(err)
	}
	ev := &identityv1.UserVerified{}
	if err := proto.Unmarshal(payload, ev); err != nil {
		e.t.Fatal(err)
	}
	return ev
}

// TestSignUpReferralCode: a code typed in any case with spaces is stored normalised on the new
// account and carried by UserVerified; no code carries "".
func TestSignUpReferralCode(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	res, err := e.bff.SignUp(ctx, &identityv1.SignUpRequest{
		FirstName: "Lerato", LastName: "Dlamini", Email: "lerato@example.com", Password: goodPassword, Client: browser,
		ReferralCode: "  thu-fc2sanzq ",
	})
	if err != nil {
		t.Fatal(err)
	}
	var id, stored string
	if err := e.pool.QueryRow(ctx, `SELECT id, referral_code FROM users WHERE email = $1`, res.GetEmail()).Scan(&id, &stored); err != nil {
		t.Fatal(err)
	}
	if stored != "THU-FC2SANZQ" {
		t.Fatalf("stored referral code %q", stored)
	}
	if _, err := e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{Email: "lerato@example.com",
		Code: e.lastCode(id, "sign_up_code"), Client: browser}); err != nil {
		t.Fatal(err)
	}
	if ev := e.verifiedEvent(id); ev.GetReferralCode() != "THU-FC2SANZQ" || ev.GetUserId() != id {
		t.Fatalf("UserVerified = %v", ev)
	}

	plainID, _ := e.signUpVerified("plain@example.com")
	if ev := e.verifiedEvent(plainID); ev.GetReferralCode() != "" {
		t.Fatalf("UserVerified without a code carries %q", ev.GetReferralCode())
	}
}

// TestSignUpReferralCodeMalformed: a code of the wrong shape is a field violation on
// referral_code, and no account is made.
func TestSignUpReferralCodeMalformed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	for _, code := range []string{"THU-1234567", "THU-123456789", "ABC-12345678", "THU-ILOU1234", "THU 12345678", "THU-1234567!"} {
		_, err := e.bff.SignUp(ctx, &identityv1.SignUpRequest{
			FirstName: "Lerato", LastName: "Dlamini", Email: "lerato@example.com", Password: goodPassword, Client: browser,
			ReferralCode: code,
		})
		st := wantStatus(t, err, codes.InvalidArgument, domain.MsgReferralCodeInvalid)
		if v := badRequest(t, st); len(v) != 1 || v[0].GetField() != "referral_code" {
			t.Fatalf("%q: violations = %v", code, v)
		}
	}
	var users int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM users`).Scan(&users); err != nil || users != 0 {
		t.Fatalf("%d users after refused sign-ups (%v)", users, err)
	}
}

// TestSignUpReferralCodeIgnoredForExistingAccount: a second sign-up of an address that already
// has an account (verified or not) does not attach a code to it.
func TestSignUpReferralCodeIgnoredForExistingAccount(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	verifiedID, _ := e.signUpVerified("taken@example.com")
	pendingID, _ := e.signUp("pending@example.com")
	for _, email := range []string{"taken@example.com", "pending@example.com"} {
		if _, err := e.bff.SignUp(ctx, &identityv1.SignUpRequest{
			FirstName: "Thandi", LastName: "Nkosi", Email: email, Password: goodPassword, Client: browser,
			ReferralCode: "THU-FC2SANZQ",
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{verifiedID, pendingID} {
		var stored string
		if err := e.pool.QueryRow(ctx, `SELECT referral_code FROM users WHERE id = $1`, id).Scan(&stored); err != nil || stored != "" {
			t.Fatalf("referral code %q on an existing account (%v)", stored, err)
		}
	}
}
