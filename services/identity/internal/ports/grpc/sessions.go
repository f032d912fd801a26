package grpcport

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	"github.com/thumela/thumela/services/platform/auth"

	"github.com/thumela/thumela/services/identity/internal/domain"
	"github.com/thumela/thumela/services/platform/intconv"
)

// MsgSessionNotFound answers RevokeSession for an id that is not one of the caller's live
// sessions (another user's included: the answer does not say whether it exists).
const MsgSessionNotFound = "That session is not signed in any more."

func (s *Server) ListSessions(ctx context.Context, req *identityv1.ListSessionsRequest) (*identityv1.ListSessionsResponse, error) {
	caller, _ := auth.FromContext(ctx)
	views, err := s.app.ListSessions(ctx, caller, req.GetSessionToken())
	if err != nil {
		return nil, s.sessionStatus(ctx, err)
	}
	out := &identityv1.ListSessionsResponse{Sessions: make([]*identityv1.SessionInfo, 0, len(views))}
	for _, v := range views {
		out.Sessions = append(out.Sessions, &identityv1.SessionInfo{
			Id:         v.ID,
			Browser:    v.Device.Browser,
			Os:         v.Device.OS,
			DeviceType: v.Device.Type,
			CreatedAt:  timestamppb.New(v.CreatedAt),
			LastSeenAt: timestamppb.New(v.LastSeenAt),
			Current:    v.Current,
			Method:     string(v.Method),
		})
	}
	return out, nil
}

func (s *Server) RevokeSession(ctx context.Context, req *identityv1.RevokeSessionRequest) (*identityv1.RevokeSessionResponse, error) {
	caller, _ := auth.FromContext(ctx)
	if err := s.app.RevokeSession(ctx, caller, req.GetSessionToken(), req.GetSessionId()); err != nil {
		return nil, s.sessionStatus(ctx, err)
	}
	return &identityv1.RevokeSessionResponse{}, nil
}

func (s *Server) RevokeOtherSessions(ctx context.Context, req *identityv1.RevokeOtherSessionsRequest) (*identityv1.RevokeOtherSessionsResponse, error) {
	caller, _ := auth.FromContext(ctx)
	n, err := s.app.RevokeOtherSessions(ctx, caller, req.GetSessionToken())
	if err != nil {
		return nil, s.sessionStatus(ctx, err)
	}
	return &identityv1.RevokeOtherSessionsResponse{Revoked: intconv.Int32(n)}, nil
}

// sessionStatus maps the sessions family's own error, then everything else as toStatus does.
func (s *Server) sessionStatus(ctx context.Context, err error) error {
	if errors.Is(err, domain.ErrSessionNotFound) {
		return status.Error(codes.NotFound, MsgSessionNotFound)
	}
	return s.toStatus(ctx, err)
}
