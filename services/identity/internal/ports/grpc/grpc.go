// Package grpcport is identity's gRPC API: it maps requests to the app's use cases, results to
// responses, and is the only place where errors become gRPC codes and the messages users see.
package grpcport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"

	"github.com/thumela/thumela/services/identity/internal/app"
	"github.com/thumela/thumela/services/identity/internal/domain"
)

// Messages users see, verbatim.
const (
	MsgInvalidCredentials = "Invalid email or password."
	MsgVerifyEmail        = "Please verify your email address to continue."
	// MsgCodeInvalid is every refusal of a code form: wrong, expired, used, dead, or an address
	// with no account or one already verified. Telling them apart would tell which addresses
	// have accounts (and which have a reset pending).
	MsgCodeInvalid        = "The code is incorrect or has expired. Please check it or request a new one."
	MsgSessionInvalid     = "Your session has expired. Please log in again."
	MsgUserNotFound       = "User not found."
	MsgWrongCurrentPwd    = "Current password is incorrect"
	MsgServiceCredentials = "Invalid service credentials."
	MsgUnauthenticated    = "You must be logged in to perform this action."
)

// BFFService is the service name the BFF's service token carries.
const BFFService = "bff"

// Policy says who may call each method. Everything a signed-out browser needs is the BFF's
// alone, with its service token: those calls carry the browser's address, which the throttles
// count by, and a caller that could name any address would guess passwords and codes past them
// (a probe did, straight at identity's port). The public keys and service tokens are public;
// the account's own reads and writes need the user's token.
func Policy() auth.Policy {
	bff := auth.Services(BFFService)
	return auth.Policy{
		identityv1.IdentityService_SignUp_FullMethodName:               bff,
		identityv1.IdentityService_VerifyEmail_FullMethodName:          bff,
		identityv1.IdentityService_ResendCode_FullMethodName:           bff,
		identityv1.IdentityService_SignIn_FullMethodName:               bff,
		identityv1.IdentityService_Refresh_FullMethodName:              bff,
		identityv1.IdentityService_SignOut_FullMethodName:              bff,
		identityv1.IdentityService_RequestPasswordReset_FullMethodName: bff,
		identityv1.IdentityService_ResetPassword_FullMethodName:        bff,
		identityv1.IdentityService_GetPublicKeys_FullMethodName:        auth.Public,
		identityv1.IdentityService_IssueServiceToken_FullMethodName:    auth.Public,
		identityv1.IdentityService_GetUser_FullMethodName:              auth.User,
		identityv1.IdentityService_ChangePassword_FullMethodName:       auth.User,
		identityv1.IdentityService_ListSessions_FullMethodName:         auth.User,
		identityv1.IdentityService_RevokeSession_FullMethodName:        auth.User,
		identityv1.IdentityService_RevokeOtherSessions_FullMethodName:  auth.User,
		// Passkeys and step-up: the signed-out calls start and finish a passkey sign-in; the
		// rest need the user's token and the session token of the same user.
		identityv1.IdentityService_BeginPasskeySignIn_FullMethodName:        bff,
		identityv1.IdentityService_FinishPasskeySignIn_FullMethodName:       bff,
		identityv1.IdentityService_BeginPasskeyRegistration_FullMethodName:  auth.User,
		identityv1.IdentityService_FinishPasskeyRegistration_FullMethodName: auth.User,
		identityv1.IdentityService_ListPasskeys_FullMethodName:              auth.User,
		identityv1.IdentityService_DeletePasskey_FullMethodName:             auth.User,
		identityv1.IdentityService_BeginStepUp_FullMethodName:               auth.User,
		identityv1.IdentityService_FinishStepUp_FullMethodName:              auth.User,
	}
}

// Server implements identityv1.IdentityServiceServer.
type Server struct {
	identityv1.UnimplementedIdentityServiceServer
	app    *app.Service
	logger *slog.Logger
}

// New returns the gRPC server of svc.
func New(svc *app.Service, logger *slog.Logger) *Server {
	return &Server{app: svc, logger: logger}
}

// Register adds the service to r.
func (s *Server) Register(r grpc.ServiceRegistrar) {
	identityv1.RegisterIdentityServiceServer(r, s)
}

func client(c *identityv1.Client) domain.Client {
	return domain.NewClient(c.GetAddress(), c.GetUserAgent())
}

func (s *Server) SignUp(ctx context.Context, req *identityv1.SignUpRequest) (*identityv1.SignUpResponse, error) {
	res, err := s.app.SignUp(ctx, app.SignUpInput{
		FirstName: req.GetFirstName(), LastName: req.GetLastName(), Email: req.GetEmail(),
		Password: req.GetPassword(), Client: client(req.GetClient()), ReferralCode: req.GetReferralCode(),
	})
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &identityv1.SignUpResponse{
		Email:             res.Email.String(),
		CodeExpiresAt:     timestamppb.New(res.CodeExpiresAt),
		ResendAvailableAt: timestamppb.New(res.ResendAvailableAt),
	}, nil
}

func (s *Server) VerifyEmail(ctx context.Context, req *identityv1.VerifyEmailRequest) (*identityv1.VerifyEmailResponse, error) {
	res, err := s.app.VerifyEmail(ctx, req.GetEmail(), req.GetCode(), client(req.GetClient()).WithDevice(req.GetDeviceId()))
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &identityv1.VerifyEmailResponse{User: userToProto(res.User), Session: sessionToProto(res)}, nil
}

func (s *Server) ResendCode(ctx context.Context, req *identityv1.ResendCodeRequest) (*identityv1.ResendCodeResponse, error) {
	var purpose domain.CodePurpose
	switch req.GetPurpose() {
	case identityv1.CodePurpose_CODE_PURPOSE_EMAIL_VERIFICATION:
		purpose = domain.PurposeEmailVerification
	case identityv1.CodePurpose_CODE_PURPOSE_PASSWORD_RESET:
		purpose = domain.PurposePasswordReset
	}
	res, err := s.app.ResendCode(ctx, req.GetEmail(), purpose, client(req.GetClient()))
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &identityv1.ResendCodeResponse{
		CodeExpiresAt:     timestamppb.New(res.CodeExpiresAt),
		ResendAvailableAt: timestamppb.New(res.ResendAvailableAt),
	}, nil
}

func (s *Server) SignIn(ctx context.Context, req *identityv1.SignInRequest) (*identityv1.SignInResponse, error) {
	res, err := s.app.SignIn(ctx, req.GetEmail(), req.GetPassword(), client(req.GetClient()).WithDevice(req.GetDeviceId()))
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &identityv1.SignInResponse{User: userToProto(res.User), Session: sessionToProto(res)}, nil
}

func (s *Server) Refresh(ctx context.Context, req *identityv1.RefreshRequest) (*identityv1.RefreshResponse, error) {
	g, err := s.app.Refresh(ctx, req.GetSessionToken())
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &identityv1.RefreshResponse{
		User:                 userToProto(g.User),
		AccessToken:          g.AccessToken,
		AccessTokenExpiresAt: timestamppb.New(g.ExpiresAt),
		SessionExpiresAt:     timestamppb.New(g.SessionExpiresAt),
		SessionId:            g.SessionID,
	}, nil
}

func (s *Server) SignOut(ctx context.Context, req *identityv1.SignOutRequest) (*identityv1.SignOutResponse, error) {
	if err := s.app.SignOut(ctx, req.GetSessionToken()); err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &identityv1.SignOutResponse{}, nil
}

func (s *Server) ChangePassword(ctx context.Context, req *identityv1.ChangePasswordRequest) (*identityv1.ChangePasswordResponse, error) {
	caller, ok := auth.FromContext(ctx)
	if !ok {
		return nil, s.toStatus(ctx, domain.ErrUnauthenticated)
	}
	if err := s.app.ChangePassword(ctx, caller, req.GetCurrentPassword(), req.GetNewPassword(), req.GetSessionToken()); err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &identityv1.ChangePasswordResponse{}, nil
}

func (s *Server) RequestPasswordReset(ctx context.Context, req *identityv1.RequestPasswordResetRequest) (*identityv1.RequestPasswordResetResponse, error) {
	res, err := s.app.RequestPasswordReset(ctx, req.GetEmail(), client(req.GetClient()))
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &identityv1.RequestPasswordResetResponse{ResendAvailableAt: timestamppb.New(res.ResendAvailableAt)}, nil
}

func (s *Server) ResetPassword(ctx context.Context, req *identityv1.ResetPasswordRequest) (*identityv1.ResetPasswordResponse, error) {
	if err := s.app.ResetPassword(ctx, req.GetEmail(), req.GetCode(), req.GetNewPassword(), client(req.GetClient())); err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &identityv1.ResetPasswordResponse{}, nil
}

func (s *Server) GetUser(ctx context.Context, _ *identityv1.GetUserRequest) (*identityv1.GetUserResponse, error) {
	caller, ok := auth.FromContext(ctx)
	if !ok {
		return nil, s.toStatus(ctx, domain.ErrUnauthenticated)
	}
	u, err := s.app.GetUser(ctx, caller)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &identityv1.GetUserResponse{User: userToProto(u)}, nil
}

func (s *Server) GetPublicKeys(context.Context, *identityv1.GetPublicKeysRequest) (*identityv1.GetPublicKeysResponse, error) {
	keys := s.app.PublicKeys()
	out := &identityv1.GetPublicKeysResponse{Keys: make([]*identityv1.PublicKey, 0, len(keys))}
	for _, k := range keys {
		out.Keys = append(out.Keys, &identityv1.PublicKey{KeyId: k.ID, Ed25519PublicKey: k.Key})
	}
	return out, nil
}

func (s *Server) IssueServiceToken(ctx context.Context, req *identityv1.IssueServiceTokenRequest) (*identityv1.IssueServiceTokenResponse, error) {
	token, exp, err := s.app.IssueServiceToken(req.GetService(), req.GetSecret())
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &identityv1.IssueServiceTokenResponse{AccessToken: token, ExpiresAt: timestamppb.New(exp)}, nil
}

func userToProto(u domain.User) *identityv1.User {
	return &identityv1.User{
		Id:            u.ID,
		Email:         u.Email.String(),
		FirstName:     u.Name.First(),
		LastName:      u.Name.Last(),
		EmailVerified: u.Verified(),
		CreatedAt:     timestamppb.New(u.CreatedAt),
	}
}

func sessionToProto(a app.Authenticated) *identityv1.Session {
	return &identityv1.Session{Token: a.SessionToken, ExpiresAt: timestamppb.New(a.SessionExpiresAt), Id: a.SessionID}
}

// toStatus maps an error of the app or domain to the gRPC status the caller sees. Anything
// it does not know is Internal: logged with its cause, answered with a generic message.
func (s *Server) toStatus(ctx context.Context, err error) error {
	var (
		validation *domain.ValidationError
		incorrect  *domain.CodeIncorrectError
		throttled  *domain.ThrottledError
	)
	switch {
	case errors.As(err, &validation):
		violations := make([]grpcserver.FieldViolation, 0, len(validation.Violations))
		for _, v := range validation.Violations {
			violations = append(violations, grpcserver.FieldViolation{Field: v.Field, Description: v.Description})
		}
		return grpcserver.BadRequestOrdered(validation.Message(), violations...)
	case errors.Is(err, domain.ErrCodeInvalid), errors.As(err, &incorrect), errors.Is(err, domain.ErrCodeExpired),
		errors.Is(err, domain.ErrTooManyCodeAttempts):
		return grpcserver.BadRequestOrdered(MsgCodeInvalid, grpcserver.FieldViolation{Field: "code", Description: MsgCodeInvalid})
	case errors.As(err, &throttled):
		// Whole seconds, rounded up: a client that waits as told is never early.
		wait := time.Duration(math.Ceil(throttled.RetryAfter.Seconds())) * time.Second
		return grpcserver.WithRetryInfo(codes.ResourceExhausted, throttleMessage(throttled), wait)
	case errors.Is(err, domain.ErrInvalidCredentials):
		return status.Error(codes.Unauthenticated, MsgInvalidCredentials)
	case errors.Is(err, domain.ErrEmailNotVerified):
		return status.Error(codes.FailedPrecondition, MsgVerifyEmail)
	case errors.Is(err, domain.ErrSessionInvalid):
		return status.Error(codes.Unauthenticated, MsgSessionInvalid)
	case errors.Is(err, domain.ErrUserNotFound):
		return status.Error(codes.NotFound, MsgUserNotFound)
	case errors.Is(err, domain.ErrWrongCurrentPassword):
		return grpcserver.BadRequestOrdered(MsgWrongCurrentPwd,
			grpcserver.FieldViolation{Field: "current_password", Description: MsgWrongCurrentPwd})
	case errors.Is(err, domain.ErrInvalidServiceCredentials):
		return status.Error(codes.Unauthenticated, MsgServiceCredentials)
	case errors.Is(err, domain.ErrUnauthenticated):
		return status.Error(codes.Unauthenticated, MsgUnauthenticated)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		if ctxErr := ctx.Err(); ctxErr != nil {
			return status.FromContextError(ctxErr).Err()
		}
	}
	return grpcserver.Unexpected(ctx, s.logger, err)
}

func throttleMessage(t *domain.ThrottledError) string {
	switch t.What {
	case domain.ThrottleResend:
		secs := int(math.Ceil(t.RetryAfter.Seconds()))
		if secs == 1 {
			return "Please wait 1 second before requesting a new code."
		}
		return fmt.Sprintf("Please wait %d seconds before requesting a new code.", secs)
	case domain.ThrottleCodes:
		return "Too many incorrect codes. Please try again in " + humanWait(t.RetryAfter) + "."
	default:
		return "Too many sign-in attempts. Please try again in " + humanWait(t.RetryAfter) + "."
	}
}

func humanWait(d time.Duration) string {
	if d < time.Minute {
		secs := int(math.Ceil(d.Seconds()))
		if secs <= 1 {
			return "1 second"
		}
		return fmt.Sprintf("%d seconds", secs)
	}
	mins := int(math.Ceil(d.Minutes()))
	if mins == 1 {
		return "1 minute"
	}
	return fmt.Sprintf("%d minutes", mins)
}
