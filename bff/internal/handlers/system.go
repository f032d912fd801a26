package handlers

import (
	"context"
	"errors"
	"time"

	"connectrpc.com/connect"
	"golang.org/x/sync/errgroup"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
)

// System implements thumela.bff.v1.SystemService: the login page's connection check.
type System struct {
	*Deps
	// Health are the gRPC health clients of the services a signed-out visitor needs.
	Health map[string]healthpb.HealthClient
}

var _ bffv1connect.SystemServiceHandler = (*System)(nil)

// CheckConnection answers ok when every service the sign-in journey needs is serving.
func (s *System) CheckConnection(ctx context.Context, _ *bffv1.CheckConnectionRequest) (*bffv1.CheckConnectionResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	g, ctx := errgroup.WithContext(ctx)
	for name, client := range s.Health {
		g.Go(func() error {
			res, err := client.Check(ctx, &healthpb.HealthCheckRequest{})
			if err != nil || res.GetStatus() != healthpb.HealthCheckResponse_SERVING {
				s.Logger.WarnContext(ctx, "connection check: a service is not serving", "service", name, "err", err)
				return errors.New(name)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, connect.NewError(connect.CodeUnavailable, errors.New("Thumela is temporarily unreachable. Please check your connection and try again.")) //nolint:revive,staticcheck // ST1005: a sentence shown to the user as it is
	}
	return &bffv1.CheckConnectionResponse{Ok: true}, nil
}
