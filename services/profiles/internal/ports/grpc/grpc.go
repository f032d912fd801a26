// Package grpcport is the profiles service's gRPC API: proto ↔ domain mapping, the access
// policy, and the one place where errors become status codes.
package grpcport

import (
	"context"
	"errors"
	"log/slog"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/profiles/internal/app"
	"github.com/thumela/thumela/services/profiles/internal/domain"
	"github.com/thumela/thumela/services/profiles/internal/events"
)

// Policy: every method acts on the calling user's own profile, so every one needs a user
// token.
var Policy = auth.Policy{
	profilesv1.ProfilesService_GetProfile_FullMethodName:    auth.User,
	profilesv1.ProfilesService_UpdateProfile_FullMethodName: auth.User,
	profilesv1.ProfilesService_DeleteProfile_FullMethodName: auth.User,
}

// Server implements profilesv1.ProfilesServiceServer.
type Server struct {
	profilesv1.UnimplementedProfilesServiceServer
	app    *app.Service
	logger *slog.Logger
}

// NewServer returns the gRPC API over svc.
func NewServer(svc *app.Service, logger *slog.Logger) *Server {
	return &Server{app: svc, logger: logger}
}

// caller is the user the call is made for (Unauthenticated without a user token).
func caller(ctx context.Context) (app.Caller, error) {
	c, err := auth.RequireUser(ctx)
	if err != nil {
		return app.Caller{}, err
	}
	return app.Caller{UserID: c.Subject, GivenName: c.GivenName, FamilyName: c.FamilyName}, nil
}

// GetProfile returns the caller's profile, creating it on first read.
func (s *Server) GetProfile(ctx context.Context, _ *profilesv1.GetProfileRequest) (*profilesv1.GetProfileResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.app.GetProfile(ctx, c)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &profilesv1.GetProfileResponse{Profile: events.Profile(p)}, nil
}

// UpdateProfile saves the caller's names and phone number.
func (s *Server) UpdateProfile(ctx context.Context, req *profilesv1.UpdateProfileRequest) (*profilesv1.UpdateProfileResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.app.UpdateProfile(ctx, c, req.GetFirstName(), req.GetLastName(), req.GetPhoneNumber())
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &profilesv1.UpdateProfileResponse{Profile: events.Profile(p)}, nil
}

// DeleteProfile removes the caller's profile.
func (s *Server) DeleteProfile(ctx context.Context, _ *profilesv1.DeleteProfileRequest) (*profilesv1.DeleteProfileResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.app.DeleteProfile(ctx, c); err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &profilesv1.DeleteProfileResponse{}, nil
}

func (s *Server) toStatus(ctx context.Context, err error) error {
	var verr *domain.ValidationError
	switch {
	case errors.Is(err, domain.ErrNotFound):
		return status.Error(codes.NotFound, "profile not found")
	case errors.As(err, &verr) && len(verr.Violations) > 0:
		violations := make([]grpcserver.FieldViolation, len(verr.Violations))
		for i, v := range verr.Violations {
			violations[i] = grpcserver.FieldViolation{Field: v.Field, Description: v.Message}
		}
		// The first problem is the message; the BadRequest detail lists them all per field.
		return grpcserver.BadRequestOrdered(verr.Violations[0].Message, violations...)
	default:
		return grpcserver.Unexpected(ctx, s.logger, err)
	}
}
