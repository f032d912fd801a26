package handlers

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/thumela/thumela/bff/internal/rpcerr"
	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
)

// stepUpCookiePath scopes the step-up challenge cookie to SecurityService's calls.
var stepUpCookiePath = "/" + bffv1connect.SecurityServiceName + "/"

// stepUpPurposes: what a step-up is for (identity binds the proof to it).
var stepUpPurposes = enumPairs[identityv1.StepUpPurpose, bffv1.StepUpPurpose]{
	{identityv1.StepUpPurpose_STEP_UP_PURPOSE_UNSPECIFIED, bffv1.StepUpPurpose_STEP_UP_PURPOSE_UNSPECIFIED},
	{identityv1.StepUpPurpose_STEP_UP_PURPOSE_SEND_MONEY, bffv1.StepUpPurpose_STEP_UP_PURPOSE_SEND_MONEY},
	{identityv1.StepUpPurpose_STEP_UP_PURPOSE_ADD_PASSKEY, bffv1.StepUpPurpose_STEP_UP_PURPOSE_ADD_PASSKEY},
}

func passkeyToBFF(p *identityv1.Passkey) *bffv1.Passkey {
	if p == nil {
		return nil
	}
	return &bffv1.Passkey{Id: p.GetId(), Name: p.GetName(), CreatedAt: p.GetCreatedAt(), LastUsedAt: p.GetLastUsedAt()}
}

func (s *Security) ListPasskeys(ctx context.Context, _ *bffv1.ListPasskeysRequest) (*bffv1.ListPasskeysResponse, error) {
	token := s.sessionToken(ctx)
	res, err := forward(ctx, s.Deps, s.Identity.ListPasskeys, &identityv1.ListPasskeysRequest{SessionToken: token})
	if err != nil {
		return nil, err
	}
	out := &bffv1.ListPasskeysResponse{Passkeys: make([]*bffv1.Passkey, 0, len(res.GetPasskeys()))}
	for _, p := range res.GetPasskeys() {
		out.Passkeys = append(out.Passkeys, passkeyToBFF(p))
	}
	return out, nil
}

func (s *Security) BeginPasskeyRegistration(ctx context.Context, _ *bffv1.BeginPasskeyRegistrationRequest) (*bffv1.BeginPasskeyRegistrationResponse, error) {
	token := s.sessionToken(ctx)
	res, err := forward(ctx, s.Deps, s.Identity.BeginPasskeyRegistration, &identityv1.BeginPasskeyRegistrationRequest{SessionToken: token})
	if err != nil {
		return nil, err
	}
	return &bffv1.BeginPasskeyRegistrationResponse{OptionsJson: string(res.GetOptionsJson())}, nil
}

func (s *Security) FinishPasskeyRegistration(ctx context.Context, req *bffv1.FinishPasskeyRegistrationRequest) (*bffv1.FinishPasskeyRegistrationResponse, error) {
	if req.GetCredentialJson() == "" || len(req.GetCredentialJson()) > maxCredentialJSON {
		return nil, rpcerr.InvalidArgument("We could not read your passkey. Please try again.")
	}
	token := s.sessionToken(ctx)
	client := s.client(ctx)
	res, err := forward(ctx, s.Deps, s.Identity.FinishPasskeyRegistration, &identityv1.FinishPasskeyRegistrationRequest{
		SessionToken: token, CredentialJson: []byte(req.GetCredentialJson()), Name: req.GetName(), Client: client,
	})
	if err != nil {
		return nil, err
	}
	return &bffv1.FinishPasskeyRegistrationResponse{Passkey: passkeyToBFF(res.GetPasskey())}, nil
}

func (s *Security) DeletePasskey(ctx context.Context, req *bffv1.DeletePasskeyRequest) (*bffv1.DeletePasskeyResponse, error) {
	token := s.sessionToken(ctx)
	ctx, _, err := s.authed(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := s.Identity.DeletePasskey(ctx, &identityv1.DeletePasskeyRequest{SessionToken: token, PasskeyId: req.GetPasskeyId()}); err != nil {
		return nil, rpcerr.FromService(ctx, s.Logger, err)
	}
	return &bffv1.DeletePasskeyResponse{}, nil
}

func (s *Security) BeginStepUp(ctx context.Context, _ *bffv1.BeginStepUpRequest) (*bffv1.BeginStepUpResponse, error) {
	token := s.sessionToken(ctx)
	info := callInfo(ctx)
	res, err := forward(ctx, s.Deps, s.Identity.BeginStepUp, &identityv1.BeginStepUpRequest{SessionToken: token})
	if err != nil {
		return nil, err
	}
	if res.GetPasskey() {
		info.ResponseHeader().Add("Set-Cookie", s.challengeCookie(stepUpChallengeCookie, stepUpCookiePath, res.GetChallengeId()))
	}
	return &bffv1.BeginStepUpResponse{Passkey: res.GetPasskey(), OptionsJson: string(res.GetOptionsJson())}, nil
}

// FinishStepUp forwards the proof and its purpose and, when identity accepts a step-up for
// money, replaces this replica's cached grant for the session with the fresh one carrying the
// step-up, so that the next call (the CreateTransfer waiting for it) forwards a token with
// "sua". Other replicas get it on their next exchange with identity, which puts "sua" in every
// token of a freshly stepped-up session. A step-up for adding a passkey answers no token:
// identity keeps that proof for BeginPasskeyRegistration.
func (s *Security) FinishStepUp(ctx context.Context, req *bffv1.FinishStepUpRequest) (*bffv1.FinishStepUpResponse, error) {
	purpose := stepUpPurposes.toService(req.GetPurpose())
	if purpose == identityv1.StepUpPurpose_STEP_UP_PURPOSE_UNSPECIFIED && req.GetPurpose() != bffv1.StepUpPurpose_STEP_UP_PURPOSE_UNSPECIFIED {
		return nil, rpcerr.InvalidArgument("Please confirm it's you again.")
	}
	token := s.sessionToken(ctx)
	client := s.client(ctx)
	in := &identityv1.FinishStepUpRequest{SessionToken: token, Client: client, Purpose: purpose}
	switch p := req.GetProof().(type) {
	case *bffv1.FinishStepUpRequest_Password:
		in.Proof = &identityv1.FinishStepUpRequest_Password{Password: p.Password}
	case *bffv1.FinishStepUpRequest_PasskeyCredentialJson:
		if len(p.PasskeyCredentialJson) > maxCredentialJSON {
			return nil, rpcerr.InvalidArgument("We could not read your passkey. Please try again.")
		}
		challenge := s.takeChallengeCookie(ctx, stepUpChallengeCookie, stepUpCookiePath)
		if challenge == "" {
			return nil, errNoChallenge
		}
		in.Proof = &identityv1.FinishStepUpRequest_Passkey{Passkey: &identityv1.PasskeyAssertion{
			ChallengeId: challenge, CredentialJson: []byte(p.PasskeyCredentialJson),
		}}
	}
	ctx, g, err := s.authed(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.Identity.FinishStepUp(ctx, in)
	if err != nil {
		return nil, rpcerr.FromService(ctx, s.Logger, err)
	}
	if res.GetAccessToken() != "" {
		g.AccessToken, g.ExpiresAt = res.GetAccessToken(), res.GetAccessTokenExpiresAt().AsTime()
		s.Tokens.Remember(token, g)
	}
	return &bffv1.FinishStepUpResponse{SteppedUpUntil: timestampOrNil(res.GetSteppedUpUntil())}, nil
}

func timestampOrNil(t *timestamppb.Timestamp) *timestamppb.Timestamp {
	if t == nil || !t.IsValid() {
		return nil
	}
	return t
}
