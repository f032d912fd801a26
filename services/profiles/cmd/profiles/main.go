// Command profiles serves thumela.profiles.v1: the user's names and mobile number.
package main

import (
	"context"

	"google.golang.org/grpc"

	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"
	"github.com/thumela/thumela/services/platform/auth"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
	"github.com/thumela/thumela/services/platform/service"
	"github.com/thumela/thumela/services/profiles/internal/adapters/postgres"
	"github.com/thumela/thumela/services/profiles/internal/app"
	grpcport "github.com/thumela/thumela/services/profiles/internal/ports/grpc"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// Config is the service's configuration: the shared settings only (PROFILES_GRPC_ADDR,
// DATABASE_URL, NATS_URL, IDENTITY_ADDR, …).
type Config struct {
	service.Base
}

func main() { service.Main(spec(nil)) }

// spec describes the binary. keys verify access tokens: nil means identity's public keys at
// IDENTITY_ADDR; tests pass static keys.
func spec(keys auth.KeySource) service.Spec {
	var cfg Config
	return service.Spec{
		Name:       "profiles",
		Version:    version,
		Config:     &cfg,
		Migrations: []platformpg.MigrationSet{postgres.Migrations},
		Setup: func(_ context.Context, rt *service.Runtime) error {
			svc := app.New(postgres.NewProfiles(rt.Pool))
			return rt.Serve(grpcport.Policy, keys, func(s grpc.ServiceRegistrar) {
				profilesv1.RegisterProfilesServiceServer(s, grpcport.NewServer(svc, rt.Logger))
			})
		},
	}
}
