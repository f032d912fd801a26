package server

import (
	"context"
	"time"

	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/postgres"
	"github.com/thumela/thumela/services/platform/service"

	pgstore "github.com/thumela/thumela/services/identity/internal/adapters/postgres"
	"github.com/thumela/thumela/services/identity/internal/app"
	"github.com/thumela/thumela/services/identity/internal/ports"
)

// Migrations are identity's tables (the outbox's are added by the service runtime).
var Migrations = []postgres.MigrationSet{pgstore.Migrations}

// cleanupInterval is how often expired sessions, codes and throttle records are deleted.
const cleanupInterval = time.Hour

// Setup returns the service.Spec Setup of identity with configuration cfg.
func Setup(cfg *Config) func(ctx context.Context, rt *service.Runtime) error {
	return func(_ context.Context, rt *service.Runtime) error {
		appCfg, err := cfg.AppConfig(rt.Logger)
		if err != nil {
			return err
		}
		svc, err := app.New(pgstore.New(rt.Pool), appCfg)
		if err != nil {
			return err
		}
		rt.Go("identity-cleanup", func(ctx context.Context) error {
			ticker := time.NewTicker(cleanupInterval)
			defer ticker.Stop()
			for {
				if n, err := svc.Cleanup(ctx); err != nil && ctx.Err() == nil {
					rt.Logger.WarnContext(ctx, "identity clean-up failed", "error", err)
				} else if n > 0 {
					rt.Logger.InfoContext(ctx, "identity clean-up", "rows", n)
				}
				select {
				case <-ctx.Done():
					return nil
				case <-ticker.C:
				}
			}
		})
		// Identity verifies the tokens it signed with the keys it holds.
		keys := auth.StaticKeys(svc.PublicKeys())
		return rt.Serve(ports.Policy(), keys, ports.New(svc, rt.Logger).Register)
	}
}
