// Command paymentmethods serves thumela.paymentmethods.v1: the user's cards, the card vault,
// and charges and refunds for the transfers service.
package main

import (
	"context"
	"errors"

	"google.golang.org/grpc"

	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	"github.com/thumela/thumela/services/paymentmethods/internal/adapters/postgres"
	"github.com/thumela/thumela/services/paymentmethods/internal/app"
	"github.com/thumela/thumela/services/paymentmethods/internal/ports/events"
	grpcport "github.com/thumela/thumela/services/paymentmethods/internal/ports/grpc"
	"github.com/thumela/thumela/services/platform/auth"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
	"github.com/thumela/thumela/services/platform/service"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() { service.Main(spec(nil)) }

// spec describes the binary. keys verify access tokens: nil means identity's public keys at
// IDENTITY_ADDR; tests pass static keys.
func spec(keys auth.KeySource) service.Spec {
	var cfg Config
	return service.Spec{
		Name:       "paymentmethods",
		Version:    version,
		Config:     &cfg,
		Migrations: []platformpg.MigrationSet{postgres.Migrations},
		Setup: func(_ context.Context, rt *service.Runtime) error {
			keyring, fingerprints, err := cfg.vaultKeys()
			if err != nil {
				return err
			}
			processor, err := cfg.processor(rt.Pool)
			if err != nil {
				return err
			}
			if cfg.ProcessorTimeout <= 0 {
				return errors.New("PAYMENTMETHODS_PROCESSOR_TIMEOUT must be positive")
			}
			rt.Logger.Info("card vault ready", "kek_id", keyring.CurrentID(), "retired_keks", len(cfg.RetiredKeyEncryptionKeys),
				"processor", cfg.Processor)

			svc := app.New(postgres.New(rt.Pool), keyring, fingerprints, processor, app.Options{
				ProcessorTimeout: cfg.ProcessorTimeout, Logger: rt.Logger,
			})
			rt.Go("vault-rewrap", func(ctx context.Context) error {
				n, err := svc.RewrapKeys(ctx)
				switch {
				case err != nil && ctx.Err() == nil:
					rt.Logger.Warn("re-wrapping vault records under the current key-encryption key failed; retried at next start", "rewrapped", n, "error", err)
				case n > 0:
					rt.Logger.Info("vault records re-wrapped under the current key-encryption key", "rewrapped", n)
				}
				return nil
			})
			rt.Go("transfer-usage-consumer", events.New(rt.JS, svc, rt.Logger, rt.Base.StreamReplicas).Run)
			return rt.Serve(grpcport.Policy, keys, func(s grpc.ServiceRegistrar) {
				paymentmethodsv1.RegisterPaymentMethodsServiceServer(s, grpcport.NewServer(svc, rt.Logger))
			})
		},
	}
}
