package handlers

import (
	"context"
	"strings"

	"github.com/thumela/thumela/bff/internal/rpcerr"
	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"
)

// The spec's sign-up messages; the form shows them as they are.
const (
	msgMissingFields    = "Please fill in all required fields."
	msgPasswordMismatch = "Passwords don't match. Please make sure your passwords match."
)

// Auth implements thumela.bff.v1.AuthService.
type Auth struct {
	// Unimplemented answers CodeUnimplemented for the passkey sign-in RPCs until they exist.
	bffv1connect.UnimplementedAuthServiceHandler
	*Deps
}

var _ bffv1connect.AuthServiceHandler = (*Auth)(nil)

func (a *Auth) SignUp(ctx context.Context, req *bffv1.SignUpRequest) (*bffv1.SignUpResponse, error) {
	if strings.TrimSpace(req.GetFirstName()) == "" || strings.TrimSpace(req.GetLastName()) == "" ||
		strings.TrimSpace(req.GetEmail()) == "" || req.GetPassword() == "" {
		return nil, rpcerr.InvalidArgument(msgMissingFields)
	}
	if req.GetPassword() != req.GetConfirmPassword() {
		return nil, rpcerr.InvalidArgument(msgPasswordMismatch)
	}
	res, err := a.Identity.SignUp(ctx, &identityv1.SignUpRequest{
		FirstName: req.GetFirstName(),
		LastName:  req.GetLastName(),
		Email:     req.GetEmail(),
		Password:  req.GetPassword(),
		// The friend's code from /signup?ref=<code>, as typed: identity normalises and checks
		// it (InvalidArgument on referral_code), so the rule lives in one place.
		ReferralCode: req.GetReferralCode(),
		Client:       a.client(ctx),
	})
	if err != nil {
		return nil, rpcerr.FromService(ctx, a.Logger, err)
	}
	return &bffv1.SignUpResponse{Email: res.GetEmail(), ResendAvailableAt: res.GetResendAvailableAt()}, nil
}

func (a *Auth) VerifyEmail(ctx context.Context, req *bffv1.VerifyEmailRequest) (*bffv1.VerifyEmailResponse, error) {
	res, err := a.Identity.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{
		Email:    req.GetEmail(),
		Code:     req.GetCode(),
		Client:   a.client(ctx),
		DeviceId: a.deviceID(ctx),
	})
	if err != nil {
		return nil, rpcerr.FromService(ctx, a.Logger, err)
	}
	user, profile := a.startSession(ctx, res.GetUser(), res.GetSession())
	return &bffv1.VerifyEmailResponse{User: user, Profile: profile}, nil
}

func (a *Auth) ResendCode(ctx context.Context, req *bffv1.ResendCodeRequest) (*bffv1.ResendCodeResponse, error) {
	res, err := a.Identity.ResendCode(ctx, &identityv1.ResendCodeRequest{
		Email:   req.GetEmail(),
		Purpose: codePurposes.toService(req.GetPurpose()),
		Client:  a.client(ctx),
	})
	if err != nil {
		return nil, rpcerr.FromService(ctx, a.Logger, err)
	}
	return &bffv1.ResendCodeResponse{ResendAvailableAt: res.GetResendAvailableAt()}, nil
}

func (a *Auth) SignIn(ctx context.Context, req *bffv1.SignInRequest) (*bffv1.SignInResponse, error) {
	if strings.TrimSpace(req.GetEmail()) == "" || req.GetPassword() == "" {
		return nil, rpcerr.InvalidArgument("Please enter both email and password.")
	}
	res, err := a.Identity.SignIn(ctx, &identityv1.SignInRequest{
		Email:    req.GetEmail(),
		Password: req.GetPassword(),
		Client:   a.client(ctx),
		DeviceId: a.deviceID(ctx),
	})
	if err != nil {
		return nil, rpcerr.FromService(ctx, a.Logger, err)
	}
	user, profile := a.startSession(ctx, res.GetUser(), res.GetSession())
	return &bffv1.SignInResponse{User: user, Profile: profile}, nil
}

// startSession sets the session cookie and its hint (replacing any earlier ones) and reads the
// profile, which GetProfile creates from the sign-up names on first read.
func (a *Auth) startSession(ctx context.Context, u *identityv1.User, s *identityv1.Session) (*bffv1.User, *bffv1.Profile) {
	info := callInfo(ctx)
	if old := a.Cookies.Token(info.RequestHeader()); old != "" {
		a.Tokens.Forget(old)
	}
	a.Cookies.Set(info.ResponseHeader(), s.GetToken(), s.GetExpiresAt().AsTime())
	user := &bffv1.User{Id: u.GetId(), Email: u.GetEmail()}
	g, err := a.Tokens.Grant(ctx, s.GetToken())
	if err != nil {
		// The session exists; the profile will be read on the next page load.
		a.Logger.WarnContext(ctx, "could not exchange a new session", "err", err)
		return user, nil
	}
	return user, a.profile(withBearer(ctx, g.AccessToken))
}

// profile reads the profile of the user whose access token ctx carries; failures are only logged (the spec's rule) and the page
// falls back to the e-mail for the badge.
func (a *Auth) profile(ctx context.Context) *bffv1.Profile {
	res, err := a.Profiles.GetProfile(ctx, &profilesv1.GetProfileRequest{})
	if err != nil {
		a.Logger.WarnContext(ctx, "could not read the profile", "err", err)
		return nil
	}
	return profileToBFF(res.GetProfile())
}

func (a *Auth) SignOut(ctx context.Context, _ *bffv1.SignOutRequest) (*bffv1.SignOutResponse, error) {
	info := callInfo(ctx)
	token := a.sessionToken(ctx)
	// The cookies go whatever happens next: a browser that asked to sign out is signed out.
	a.Cookies.Clear(info.ResponseHeader())
	if token == "" {
		return &bffv1.SignOutResponse{}, nil
	}
	a.Tokens.Forget(token)
	if _, err := a.Identity.SignOut(ctx, &identityv1.SignOutRequest{SessionToken: token}); err != nil {
		return nil, rpcerr.FromService(ctx, a.Logger, err)
	}
	return &bffv1.SignOutResponse{}, nil
}

func (a *Auth) GetSession(ctx context.Context, _ *bffv1.GetSessionRequest) (*bffv1.GetSessionResponse, error) {
	ctx, g, err := a.authed(ctx)
	if err != nil {
		return nil, err
	}
	return &bffv1.GetSessionResponse{
		User:    &bffv1.User{Id: g.UserID, Email: g.Email},
		Profile: a.profile(ctx),
	}, nil
}

func (a *Auth) ChangePassword(ctx context.Context, req *bffv1.ChangePasswordRequest) (*bffv1.ChangePasswordResponse, error) {
	if req.GetNewPassword() != req.GetConfirmPassword() {
		return nil, rpcerr.InvalidArgument("Passwords do not match")
	}
	token := a.sessionToken(ctx)
	ctx, _, err := a.authed(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := a.Identity.ChangePassword(ctx, &identityv1.ChangePasswordRequest{
		CurrentPassword: req.GetCurrentPassword(),
		NewPassword:     req.GetNewPassword(),
		SessionToken:    token,
	}); err != nil {
		return nil, rpcerr.FromService(ctx, a.Logger, err)
	}
	return &bffv1.ChangePasswordResponse{}, nil
}

func (a *Auth) RequestPasswordReset(ctx context.Context, req *bffv1.RequestPasswordResetRequest) (*bffv1.RequestPasswordResetResponse, error) {
	res, err := a.Identity.RequestPasswordReset(ctx, &identityv1.RequestPasswordResetRequest{
		Email:  req.GetEmail(),
		Client: a.client(ctx),
	})
	if err != nil {
		return nil, rpcerr.FromService(ctx, a.Logger, err)
	}
	return &bffv1.RequestPasswordResetResponse{ResendAvailableAt: res.GetResendAvailableAt()}, nil
}

func (a *Auth) ResetPassword(ctx context.Context, req *bffv1.ResetPasswordRequest) (*bffv1.ResetPasswordResponse, error) {
	if req.GetNewPassword() != req.GetConfirmPassword() {
		return nil, rpcerr.InvalidArgument("Passwords do not match")
	}
	if _, err := a.Identity.ResetPassword(ctx, &identityv1.ResetPasswordRequest{
		Email:       req.GetEmail(),
		Code:        req.GetCode(),
		NewPassword: req.GetNewPassword(),
		Client:      a.client(ctx),
	}); err != nil {
		return nil, rpcerr.FromService(ctx, a.Logger, err)
	}
	return &bffv1.ResetPasswordResponse{}, nil
}

func profileToBFF(p *profilesv1.Profile) *bffv1.Profile {
	if p == nil {
		return nil
	}
	return &bffv1.Profile{
		FirstName:   p.GetFirstName(),
		LastName:    p.GetLastName(),
		PhoneNumber: p.GetPhoneNumber(),
		CreatedAt:   p.GetCreatedAt(),
		UpdatedAt:   p.GetUpdatedAt(),
	}
}
