// Package upstream adapts the services' gRPC APIs to what the BFF's parts need.
package upstream

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/thumela/thumela/bff/internal/session"
	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
)

// SessionRefresher exchanges session tokens with identity.
type SessionRefresher struct {
	Identity identityv1.IdentityServiceClient
}

// Refresh implements session.Refresher.
func (r SessionRefresher) Refresh(ctx context.Context, sessionToken string) (session.Grant, error) {
	res, err := r.Identity.Refresh(ctx, &identityv1.RefreshRequest{SessionToken: sessionToken})
	if err != nil {
		if status.Code(err) == codes.Unauthenticated {
			return session.Grant{}, session.ErrNoSession
		}
		return session.Grant{}, err
	}
	return session.Grant{
		SessionID:        res.GetSessionId(),
		UserID:           res.GetUser().GetId(),
		Email:            res.GetUser().GetEmail(),
		AccessToken:      res.GetAccessToken(),
		ExpiresAt:        res.GetAccessTokenExpiresAt().AsTime(),
		SessionExpiresAt: res.GetSessionExpiresAt().AsTime(),
	}, nil
}
