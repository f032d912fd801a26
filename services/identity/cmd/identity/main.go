// Command identity runs Thumela's identity service: users, passwords, sessions, one-time codes
// and the keys that sign access tokens.
package main

import (
	"context"
	"time"

	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/postgres"
	"github.com/thumela/thumela/services/platform/service"

	pgstore "github.com/thumela/thumela/services/identity/internal/adapters/postgres"
	"github.com/thumela/thumela/services/identity/internal/app"
	"github.com/thumela/thumela/services/identity/internal/ports/events"
	grpcport "github.com/thumela/thumela/services/identity/internal/ports/grpc"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// cleanupInterval is how often expired sessions, codes and throttle records are deleted.
const cleanupInterval = time.Hour

func main() { service.Main(spec()) }

// spec describes the binary: identity's tables (the outbox's are added by the service runtime),
// its use cases over PostgreSQL, the background clean-up, the consumer through which users'
// names follow their profiles, and the gRPC API behind its access policy.
func spec() service.Spec {
	var cfg Config
	return service.Spec{
		Name:       "identity",
		Version:    version,
		Config:     &cfg,
		Migrations: []postgres.MigrationSet{pgstore.Migrations},
		Setup: func(_ context.Context, rt *service.Runtime) error {
			appCfg, err := cfg.appConfig(rt.Logger)
			if err != nil {
				return err
			}
			svc, err := app.New(pgstore.New(rt.Pool), appCfg)
			if err != nil {
				return err
			}
			rt.Go("identity-cleanup", func(ctx context.Context) error { return svc.CleanupEvery(ctx, cleanupInterval) })
			rt.Go("identity-profile-names", func(ctx context.Context) error {
				return events.ConsumeProfileUpdates(ctx, rt.JS, svc, rt.Logger)
			})
			// Identity verifies the tokens it signed with the keys it holds.
			keys := auth.StaticKeys(svc.PublicKeys())
			return rt.Serve(grpcport.Policy(), keys, grpcport.New(svc, rt.Logger).Register)
		},
	}
}
