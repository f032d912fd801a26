package grpcport

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"

	"github.com/thumela/thumela/services/identity/internal/app"
)

// Messages of the passkey and step-up calls, as users see them.
const (
	MsgPasskeysUnavailable = "Passkeys are not available right now. Please use your password."
	MsgPasskeyNotFound     = "That passkey was not found."
	MsgPasskeyExists       = "This passkey is already registered."
	MsgChallengeInvalid    = "This passkey request has expired. Please try again."
	MsgPasskeyRejected     = "We could not verify your passkey. Please try again." //nolint:gosec // G101: a message to the user, not a credential
	MsgStepUpPassword      = "Incorrect password. Please try again."
	MsgStepUpNoProof       = "Please confirm with your passkey or password."
	MsgStepUpPurpose       = "Please confirm it's you again."
	// MsgPasskeyStepUpRequired: adding a passkey needs "Confirm it's you" first, or again.
	MsgPasskeyStepUpRequired = "Please confirm it's you before adding a passkey."
)

// The ErrorInfo that marks a refusal for want of a step-up, so that a client can ask for it
// and try again (transfers uses the same reason in its own domain).
const (
	ReasonStepUpRequired = "STEP_UP_REQUIRED"
	ErrorDomain          = "identity.thumela.co.za"
)

// MsgTooManyPasskeys says how many passkeys an account may have.
var MsgTooManyPasskeys = fmt.Sprintf("You can have up to %d passkeys. Remove one to add another.", app.MaxPasskeys)

func passkeyToProto(p app.Passkey) *identityv1.Passkey {
	out := &identityv1.Passkey{Id: p.ID, Name: p.Name, CreatedAt: timestamppb.New(p.CreatedAt)}
	if !p.LastUsedAt.IsZero() {
		out.LastUsedAt = timestamppb.New(p.LastUsedAt)
	}
	return out
}

func (s *Server) BeginPasskeyRegistration(ctx context.Context, req *identityv1.BeginPasskeyRegistrationRequest) (*identityv1.BeginPasskeyRegistrationResponse, error) {
	caller, _ := auth.FromContext(ctx)
	options, err := s.app.BeginPasskeyRegistration(ctx, caller, req.GetSessionToken())
	if err != nil {
		return nil, s.passkeyStatus(ctx, err)
	}
	return &identityv1.BeginPasskeyRegistrationResponse{OptionsJson: options}, nil
}

func (s *Server) FinishPasskeyRegistration(ctx context.Context, req *identityv1.FinishPasskeyRegistrationRequest) (*identityv1.FinishPasskeyRegistrationResponse, error) {
	caller, _ := auth.FromContext(ctx)
	p, err := s.app.FinishPasskeyRegistration(ctx, caller, req.GetSessionToken(), req.GetCredentialJson(), req.GetName(), client(req.GetClient()))
	if err != nil {
		return nil, s.passkeyStatus(ctx, err)
	}
	return &identityv1.FinishPasskeyRegistrationResponse{Passkey: passkeyToProto(p)}, nil
}

func (s *Server) ListPasskeys(ctx context.Context, req *identityv1.ListPasskeysRequest) (*identityv1.ListPasskeysResponse, error) {
	caller, _ := auth.FromContext(ctx)
	keys, err := s.app.ListPasskeys(ctx, caller, req.GetSessionToken())
	if err != nil {
		return nil, s.passkeyStatus(ctx, err)
	}
	out := &identityv1.ListPasskeysResponse{Passkeys: make([]*identityv1.Passkey, 0, len(keys))}
	for _, k := range keys {
		out.Passkeys = append(out.Passkeys, passkeyToProto(k))
	}
	return out, nil
}

func (s *Server) DeletePasskey(ctx context.Context, req *identityv1.DeletePasskeyRequest) (*identityv1.DeletePasskeyResponse, error) {
	caller, _ := auth.FromContext(ctx)
	if err := s.app.DeletePasskey(ctx, caller, req.GetSessionToken(), req.GetPasskeyId()); err != nil {
		return nil, s.passkeyStatus(ctx, err)
	}
	return &identityv1.DeletePasskeyResponse{}, nil
}

func (s *Server) BeginPasskeySignIn(ctx context.Context, _ *identityv1.BeginPasskeySignInRequest) (*identityv1.BeginPasskeySignInResponse, error) {
	start, err := s.app.BeginPasskeySignIn(ctx)
	if err != nil {
		return nil, s.passkeyStatus(ctx, err)
	}
	return &identityv1.BeginPasskeySignInResponse{OptionsJson: start.OptionsJSON, ChallengeId: start.ChallengeID}, nil
}

func (s *Server) FinishPasskeySignIn(ctx context.Context, req *identityv1.FinishPasskeySignInRequest) (*identityv1.FinishPasskeySignInResponse, error) {
	res, err := s.app.FinishPasskeySignIn(ctx, req.GetChallengeId(), req.GetCredentialJson(),
		client(req.GetClient()).WithDevice(req.GetDeviceId()))
	if err != nil {
		return nil, s.passkeyStatus(ctx, err)
	}
	return &identityv1.FinishPasskeySignInResponse{User: userToProto(res.User), Session: sessionToProto(res)}, nil
}

func (s *Server) BeginStepUp(ctx context.Context, req *identityv1.BeginStepUpRequest) (*identityv1.BeginStepUpResponse, error) {
	caller, _ := auth.FromContext(ctx)
	start, err := s.app.BeginStepUp(ctx, caller, req.GetSessionToken())
	if err != nil {
		return nil, s.passkeyStatus(ctx, err)
	}
	return &identityv1.BeginStepUpResponse{Passkey: start.Passkey, OptionsJson: start.OptionsJSON, ChallengeId: start.ChallengeID}, nil
}

func (s *Server) FinishStepUp(ctx context.Context, req *identityv1.FinishStepUpRequest) (*identityv1.FinishStepUpResponse, error) {
	caller, _ := auth.FromContext(ctx)
	proof := app.StepUpProof{Password: req.GetPassword()}
	if pk := req.GetPasskey(); pk != nil {
		proof = app.StepUpProof{ChallengeID: pk.GetChallengeId(), CredentialJSON: pk.GetCredentialJson()}
	}
	proof.Purpose = stepUpPurpose(req.GetPurpose())
	res, err := s.app.FinishStepUp(ctx, caller, req.GetSessionToken(), proof, client(req.GetClient()))
	if err != nil {
		return nil, s.passkeyStatus(ctx, err)
	}
	out := &identityv1.FinishStepUpResponse{SteppedUpUntil: timestamppb.New(res.Until)}
	if res.AccessToken != "" {
		out.AccessToken, out.AccessTokenExpiresAt = res.AccessToken, timestamppb.New(res.ExpiresAt)
	}
	return out, nil
}

// stepUpPurpose maps the contract's purpose; one it does not know stays unknown (refused).
func stepUpPurpose(p identityv1.StepUpPurpose) app.StepUpPurpose {
	switch p {
	case identityv1.StepUpPurpose_STEP_UP_PURPOSE_UNSPECIFIED, identityv1.StepUpPurpose_STEP_UP_PURPOSE_SEND_MONEY:
		return app.StepUpSendMoney
	case identityv1.StepUpPurpose_STEP_UP_PURPOSE_ADD_PASSKEY:
		return app.StepUpAddPasskey
	}
	return app.StepUpPurpose(p.String())
}

func stepUpRequiredStatus() error {
	st := status.New(codes.FailedPrecondition, MsgPasskeyStepUpRequired)
	if d, err := st.WithDetails(&errdetails.ErrorInfo{Reason: ReasonStepUpRequired, Domain: ErrorDomain}); err == nil {
		st = d
	}
	return st.Err()
}

// passkeyStatus maps the passkey and step-up errors, then everything else as toStatus does.
// A refused passkey is PermissionDenied, not Unauthenticated: the session (when there is one)
// is fine, and the web client signs out on Unauthenticated.
func (s *Server) passkeyStatus(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, app.ErrPasskeysUnavailable):
		return status.Error(codes.FailedPrecondition, MsgPasskeysUnavailable)
	case errors.Is(err, app.ErrPasskeyNotFound):
		return status.Error(codes.NotFound, MsgPasskeyNotFound)
	case errors.Is(err, app.ErrPasskeyExists):
		return status.Error(codes.AlreadyExists, MsgPasskeyExists)
	case errors.Is(err, app.ErrTooManyPasskeys):
		return status.Error(codes.FailedPrecondition, MsgTooManyPasskeys)
	case errors.Is(err, app.ErrChallengeInvalid):
		return status.Error(codes.FailedPrecondition, MsgChallengeInvalid)
	case errors.Is(err, app.ErrPasskeyRejected):
		return status.Error(codes.PermissionDenied, MsgPasskeyRejected)
	case errors.Is(err, app.ErrStepUpPassword):
		return grpcserver.BadRequestOrdered(MsgStepUpPassword,
			grpcserver.FieldViolation{Field: "password", Description: MsgStepUpPassword})
	case errors.Is(err, app.ErrStepUpNoProof):
		return grpcserver.BadRequestOrdered(MsgStepUpNoProof,
			grpcserver.FieldViolation{Field: "password", Description: MsgStepUpNoProof})
	case errors.Is(err, app.ErrStepUpPurpose):
		return grpcserver.BadRequestOrdered(MsgStepUpPurpose,
			grpcserver.FieldViolation{Field: "purpose", Description: MsgStepUpPurpose})
	case errors.Is(err, app.ErrStepUpRequired):
		return stepUpRequiredStatus()
	}
	return s.toStatus(ctx, err)
}
