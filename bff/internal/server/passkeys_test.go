package server_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"

	"github.com/thumela/thumela/bff/internal/handlers"
	"github.com/thumela/thumela/bff/internal/session"
	"github.com/thumela/thumela/bff/internal/upstream"
)

// passkeyIdentity adds the passkey and step-up calls to the fake identity, recording what the
// BFF forwarded.
type passkeyIdentity struct {
	*fakeIdentity
	mu         sync.Mutex
	finished   []*identityv1.FinishPasskeySignInRequest
	stepUps    []*identityv1.FinishStepUpRequest
	listBearer []string
	// addPasskeyProof: a step-up for adding a passkey was made (as identity keeps it).
	addPasskeyProof bool
}

// BeginPasskeyRegistration refuses as identity does until a step-up for adding a passkey.
func (p *passkeyIdentity) BeginPasskeyRegistration(context.Context, *identityv1.BeginPasskeyRegistrationRequest) (*identityv1.BeginPasskeyRegistrationResponse, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.addPasskeyProof {
		st, _ := status.New(codes.FailedPrecondition, "Please confirm it's you before adding a passkey.").
			WithDetails(&errdetails.ErrorInfo{Reason: "STEP_UP_REQUIRED", Domain: "identity.thumela.co.za"})
		return nil, st.Err()
	}
	return &identityv1.BeginPasskeyRegistrationResponse{OptionsJson: []byte(`{"challenge":"ghi"}`)}, nil
}

func (p *passkeyIdentity) BeginPasskeySignIn(context.Context, *identityv1.BeginPasskeySignInRequest) (*identityv1.BeginPasskeySignInResponse, error) {
	return &identityv1.BeginPasskeySignInResponse{OptionsJson: []byte(`{"challenge":"abc","rpId":"localhost"}`), ChallengeId: "challenge-1"}, nil
}

func (p *passkeyIdentity) FinishPasskeySignIn(_ context.Context, req *identityv1.FinishPasskeySignInRequest) (*identityv1.FinishPasskeySignInResponse, error) {
	p.mu.Lock()
	p.finished = append(p.finished, req)
	p.mu.Unlock()
	p.fakeIdentity.mu.Lock()
	defer p.fakeIdentity.mu.Unlock()
	p.sessions["session-passkey"] = true
	return &identityv1.FinishPasskeySignInResponse{
		User:    &identityv1.User{Id: "u1", Email: "thandi@example.co.za"},
		Session: &identityv1.Session{Token: "session-passkey", ExpiresAt: timestamppb.New(time.Now().Add(time.Hour))},
	}, nil
}

func (p *passkeyIdentity) BeginStepUp(context.Context, *identityv1.BeginStepUpRequest) (*identityv1.BeginStepUpResponse, error) {
	return &identityv1.BeginStepUpResponse{Passkey: true, OptionsJson: []byte(`{"challenge":"def"}`), ChallengeId: "challenge-2"}, nil
}

func (p *passkeyIdentity) FinishStepUp(_ context.Context, req *identityv1.FinishStepUpRequest) (*identityv1.FinishStepUpResponse, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stepUps = append(p.stepUps, req)
	if req.GetPassword() == "wrong" {
		return nil, status.Error(codes.InvalidArgument, "Incorrect password. Please try again.")
	}
	if req.GetPurpose() == identityv1.StepUpPurpose_STEP_UP_PURPOSE_ADD_PASSKEY {
		p.addPasskeyProof = true
		return &identityv1.FinishStepUpResponse{SteppedUpUntil: timestamppb.New(time.Now().Add(5 * time.Minute))}, nil
	}
	return &identityv1.FinishStepUpResponse{
		AccessToken: "access-for-stepped-up", AccessTokenExpiresAt: timestamppb.New(time.Now().Add(10 * time.Minute)),
		SteppedUpUntil: timestamppb.New(time.Now().Add(5 * time.Minute)),
	}, nil
}

func (p *passkeyIdentity) ListPasskeys(ctx context.Context, _ *identityv1.ListPasskeysRequest) (*identityv1.ListPasskeysResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	p.mu.Lock()
	p.listBearer = append(p.listBearer, strings.Join(md.Get("authorization"), ","))
	p.mu.Unlock()
	return &identityv1.ListPasskeysResponse{}, nil
}

func newPasskeyBFF(t *testing.T) (string, *passkeyIdentity, *http.Client) {
	t.Helper()
	identity := &passkeyIdentity{fakeIdentity: &fakeIdentity{sessions: map[string]bool{}}}
	conn := serveUpstream(t, func(s *grpc.Server) {
		identityv1.RegisterIdentityServiceServer(s, identity)
		profilesv1.RegisterProfilesServiceServer(s, fakeProfiles{})
	})
	idClient := identityv1.NewIdentityServiceClient(conn)
	srv := serveBFF(t, &handlers.Deps{
		Logger:   quietLogger(),
		Identity: idClient,
		Profiles: profilesv1.NewProfilesServiceClient(conn),
		Tokens:   session.NewTokens(upstream.SessionRefresher{Identity: idClient}),
		Cookies:  session.Cookies{Secure: true},
	})
	jar, _ := cookiejar.New(nil)
	hc := srv.Client()
	hc.Jar = jar
	return srv.URL, identity, hc
}

func setCookie(h http.Header, name string) string {
	for _, v := range h.Values("Set-Cookie") {
		if strings.HasPrefix(v, name+"=") {
			return v
		}
	}
	return ""
}

func TestPasskeySignInCarriesTheChallengeInAScopedCookie(t *testing.T) {
	t.Parallel()
	base, identity, hc := newPasskeyBFF(t)
	auth := bffv1connect.NewAuthServiceClient(hc, base)
	ctx := context.Background()

	// No Begin, no challenge: refused before identity hears of it.
	_, err := auth.FinishPasskeySignIn(ctx, &bffv1.FinishPasskeySignInRequest{CredentialJson: `{"id":"x"}`})
	if connect.CodeOf(err) != connect.CodeFailedPrecondition {
		t.Fatalf("Finish without Begin: %v, want FailedPrecondition", err)
	}

	beginCtx, beginCall := connect.NewClientContext(ctx)
	begin, err := auth.BeginPasskeySignIn(beginCtx, &bffv1.BeginPasskeySignInRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if begin.GetOptionsJson() != `{"challenge":"abc","rpId":"localhost"}` {
		t.Fatalf("options = %q", begin.GetOptionsJson())
	}
	ck := setCookie(beginCall.ResponseHeader(), "thumela_passkey_challenge")
	for _, want := range []string{"=challenge-1", "Path=/thumela.bff.v1.AuthService/", "Max-Age=300", "HttpOnly", "Secure", "SameSite=Strict"} {
		if !strings.Contains(ck, want) {
			t.Errorf("Set-Cookie %q lacks %s", ck, want)
		}
	}

	finishCtx, finishCall := connect.NewClientContext(ctx)
	finish, err := auth.FinishPasskeySignIn(finishCtx, &bffv1.FinishPasskeySignInRequest{CredentialJson: `{"id":"cred"}`})
	if err != nil {
		t.Fatal(err)
	}
	if finish.GetUser().GetId() != "u1" || !strings.HasPrefix(setCookie(finishCall.ResponseHeader(), "thumela_session"), "thumela_session=session-passkey") {
		t.Fatalf("Finish = %v, Set-Cookie %v", finish, finishCall.ResponseHeader().Values("Set-Cookie"))
	}
	if cleared := setCookie(finishCall.ResponseHeader(), "thumela_passkey_challenge"); !strings.Contains(cleared, "Max-Age=0") {
		t.Errorf("the challenge cookie is not cleared: %q", cleared)
	}
	if len(identity.finished) != 1 || identity.finished[0].GetChallengeId() != "challenge-1" ||
		string(identity.finished[0].GetCredentialJson()) != `{"id":"cred"}` || identity.finished[0].GetClient().GetAddress() == "" {
		t.Fatalf("identity got %v", identity.finished)
	}
	// Signed in, and the challenge answered once.
	if _, err := auth.GetSession(ctx, &bffv1.GetSessionRequest{}); err != nil {
		t.Fatalf("GetSession after a passkey sign-in: %v", err)
	}
	_, err = auth.FinishPasskeySignIn(ctx, &bffv1.FinishPasskeySignInRequest{CredentialJson: `{"id":"cred"}`})
	if connect.CodeOf(err) != connect.CodeFailedPrecondition || len(identity.finished) != 1 {
		t.Fatalf("a second Finish: %v (identity called %d times)", err, len(identity.finished))
	}
}

func TestFinishStepUpReplacesTheCachedGrant(t *testing.T) {
	t.Parallel()
	base, identity, hc := newPasskeyBFF(t)
	auth := bffv1connect.NewAuthServiceClient(hc, base)
	security := bffv1connect.NewSecurityServiceClient(hc, base)
	ctx := context.Background()
	if _, err := auth.SignIn(ctx, &bffv1.SignInRequest{Email: "thandi@example.co.za", Password: "right-password"}); err != nil {
		t.Fatal(err)
	}
	if _, err := security.ListPasskeys(ctx, &bffv1.ListPasskeysRequest{}); err != nil {
		t.Fatal(err)
	}

	// A wrong password keeps identity's answer, and the session.
	_, err := security.FinishStepUp(ctx, &bffv1.FinishStepUpRequest{Proof: &bffv1.FinishStepUpRequest_Password{Password: "wrong"}})
	if connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("wrong password: %v", err)
	}
	// A passkey proof without BeginStepUp has no challenge.
	_, err = security.FinishStepUp(ctx, &bffv1.FinishStepUpRequest{Proof: &bffv1.FinishStepUpRequest_PasskeyCredentialJson{PasskeyCredentialJson: "{}"}})
	if connect.CodeOf(err) != connect.CodeFailedPrecondition {
		t.Fatalf("passkey proof without Begin: %v", err)
	}

	stepCtx, stepCall := connect.NewClientContext(ctx)
	begin, err := security.BeginStepUp(stepCtx, &bffv1.BeginStepUpRequest{})
	if err != nil || !begin.GetPasskey() {
		t.Fatalf("BeginStepUp = %v, %v", begin, err)
	}
	if ck := setCookie(stepCall.ResponseHeader(), "thumela_stepup_challenge"); !strings.Contains(ck, "Path=/thumela.bff.v1.SecurityService/") {
		t.Fatalf("step-up challenge cookie = %q", ck)
	}
	res, err := security.FinishStepUp(ctx, &bffv1.FinishStepUpRequest{Proof: &bffv1.FinishStepUpRequest_PasskeyCredentialJson{PasskeyCredentialJson: `{"id":"cred"}`}})
	if err != nil || res.GetSteppedUpUntil() == nil {
		t.Fatalf("FinishStepUp = %v, %v", res, err)
	}
	last := identity.stepUps[len(identity.stepUps)-1]
	if last.GetPasskey().GetChallengeId() != "challenge-2" || last.GetSessionToken() == "" {
		t.Fatalf("identity got %v", last)
	}
	// The next call forwards the step-up token, not the grant cached before it.
	if _, err := security.ListPasskeys(ctx, &bffv1.ListPasskeysRequest{}); err != nil {
		t.Fatal(err)
	}
	if got := identity.listBearer; len(got) != 2 || got[0] == got[1] || got[1] != "Bearer access-for-stepped-up" {
		t.Fatalf("bearers forwarded = %q", got)
	}
}

// Adding a passkey: the BFF passes identity's STEP_UP_REQUIRED to the browser with its
// ErrorInfo, forwards the step-up's purpose, and keeps its cached grant (a step-up for a
// passkey carries no "sua" and answers no token).
func TestAddPasskeyStepUpThroughTheBFF(t *testing.T) {
	t.Parallel()
	base, identity, hc := newPasskeyBFF(t)
	auth := bffv1connect.NewAuthServiceClient(hc, base)
	security := bffv1connect.NewSecurityServiceClient(hc, base)
	ctx := context.Background()
	if _, err := auth.SignIn(ctx, &bffv1.SignInRequest{Email: "thandi@example.co.za", Password: "right-password"}); err != nil {
		t.Fatal(err)
	}

	_, err := security.BeginPasskeyRegistration(ctx, &bffv1.BeginPasskeyRegistrationRequest{})
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeFailedPrecondition || ce.Message() != "Please confirm it's you before adding a passkey." {
		t.Fatalf("BeginPasskeyRegistration without a step-up: %v", err)
	}
	found := false
	for _, d := range ce.Details() {
		if v, derr := d.Value(); derr == nil {
			if info, ok := v.(*errdetails.ErrorInfo); ok && info.GetReason() == "STEP_UP_REQUIRED" && info.GetDomain() == "identity.thumela.co.za" {
				found = true
			}
		}
	}
	if !found {
		t.Fatalf("details = %v, want ErrorInfo STEP_UP_REQUIRED", ce.Details())
	}

	// An unknown purpose is refused before identity.
	_, err = security.FinishStepUp(ctx, &bffv1.FinishStepUpRequest{Purpose: bffv1.StepUpPurpose(42),
		Proof: &bffv1.FinishStepUpRequest_Password{Password: "right-password"}})
	if connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("unknown purpose: %v", err)
	}

	if _, err := security.ListPasskeys(ctx, &bffv1.ListPasskeysRequest{}); err != nil {
		t.Fatal(err)
	}
	res, err := security.FinishStepUp(ctx, &bffv1.FinishStepUpRequest{Purpose: bffv1.StepUpPurpose_STEP_UP_PURPOSE_ADD_PASSKEY,
		Proof: &bffv1.FinishStepUpRequest_Password{Password: "right-password"}})
	if err != nil || res.GetSteppedUpUntil() == nil {
		t.Fatalf("FinishStepUp for a passkey = %v, %v", res, err)
	}
	identity.mu.Lock()
	last := identity.stepUps[len(identity.stepUps)-1]
	identity.mu.Unlock()
	if last.GetPurpose() != identityv1.StepUpPurpose_STEP_UP_PURPOSE_ADD_PASSKEY || last.GetPassword() != "right-password" {
		t.Fatalf("identity got %v", last)
	}
	begin, err := security.BeginPasskeyRegistration(ctx, &bffv1.BeginPasskeyRegistrationRequest{})
	if err != nil || begin.GetOptionsJson() == "" {
		t.Fatalf("BeginPasskeyRegistration after the step-up = %v, %v", begin, err)
	}
	// The cached grant stays: no empty token replaced it.
	if _, err := security.ListPasskeys(ctx, &bffv1.ListPasskeysRequest{}); err != nil {
		t.Fatal(err)
	}
	identity.mu.Lock()
	got := identity.listBearer
	identity.mu.Unlock()
	if len(got) != 2 || got[0] != got[1] || got[1] == "Bearer " {
		t.Fatalf("bearers forwarded = %q", got)
	}
}
