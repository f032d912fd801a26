package handlers

import (
	"context"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"

	"github.com/thumela/thumela/bff/internal/rpcerr"
)

// Account -> Security: the signed-in sessions. Identity scopes everything to the session token
// of the cookie (another user's session id is NotFound) and publishes every revocation, which
// every replica hears (bff/internal/revocation); this replica also applies its own at once.

func (s *Security) ListSessions(ctx context.Context, _ *bffv1.ListSessionsRequest) (*bffv1.ListSessionsResponse, error) {
	token := s.sessionToken(ctx)
	res, err := forward(ctx, s.Deps, s.Identity.ListSessions, &identityv1.ListSessionsRequest{SessionToken: token})
	if err != nil {
		return nil, err
	}
	out := &bffv1.ListSessionsResponse{Sessions: make([]*bffv1.SessionInfo, 0, len(res.GetSessions()))}
	for _, si := range res.GetSessions() {
		out.Sessions = append(out.Sessions, &bffv1.SessionInfo{
			Id:         si.GetId(),
			Browser:    si.GetBrowser(),
			Os:         si.GetOs(),
			DeviceType: si.GetDeviceType(),
			CreatedAt:  si.GetCreatedAt(),
			LastSeenAt: si.GetLastSeenAt(),
			Current:    si.GetCurrent(),
			Method:     si.GetMethod(),
		})
	}
	return out, nil
}

func (s *Security) RevokeSession(ctx context.Context, req *bffv1.RevokeSessionRequest) (*bffv1.RevokeSessionResponse, error) {
	token := s.sessionToken(ctx)
	authed, g, err := s.authed(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := s.Identity.RevokeSession(authed, &identityv1.RevokeSessionRequest{
		SessionToken: token, SessionId: req.GetSessionId(),
	}); err != nil {
		return nil, rpcerr.FromService(ctx, s.Logger, err)
	}
	// Here at once; the other replicas when identity's event reaches them.
	s.Tokens.ForgetSessions(req.GetSessionId())
	if req.GetSessionId() == g.SessionID {
		// This browser signed itself out.
		s.Tokens.Forget(token)
		s.Cookies.Clear(callInfo(ctx).ResponseHeader())
	}
	return &bffv1.RevokeSessionResponse{}, nil
}

func (s *Security) RevokeOtherSessions(ctx context.Context, _ *bffv1.RevokeOtherSessionsRequest) (*bffv1.RevokeOtherSessionsResponse, error) {
	token := s.sessionToken(ctx)
	authed, _, err := s.authed(ctx)
	if err != nil {
		return nil, err
	}
	res, err := s.Identity.RevokeOtherSessions(authed, &identityv1.RevokeOtherSessionsRequest{SessionToken: token})
	if err != nil {
		return nil, rpcerr.FromService(ctx, s.Logger, err)
	}
	return &bffv1.RevokeOtherSessionsResponse{Revoked: res.GetRevoked()}, nil
}

// deviceID is the browser's device cookie (thumela_device), set on first sight and renewed at
// each sign-in: identity tells a sign-in from a device it has not seen by it, and e-mails the
// owner. Call it where a session opens (SignIn, VerifyEmail, FinishPasskeySignIn).
func (d *Deps) deviceID(ctx context.Context) string {
	info := callInfo(ctx)
	id, setCookie := d.Cookies.Device(info.RequestHeader())
	info.ResponseHeader().Add("Set-Cookie", setCookie)
	return id
}
