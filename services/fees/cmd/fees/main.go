// Command fees serves thumela.fees.v1: the banks' fee schedules and transfer quotes.
package main

import (
	"context"

	"google.golang.org/grpc"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/fees/internal/adapters/postgres"
	"github.com/thumela/thumela/services/fees/internal/app"
	"github.com/thumela/thumela/services/fees/internal/ports"
	"github.com/thumela/thumela/services/platform/auth"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
	"github.com/thumela/thumela/services/platform/service"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// Config is the service's configuration: the shared settings only (FEES_GRPC_ADDR,
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
		Name:       "fees",
		Version:    version,
		Config:     &cfg,
		Migrations: []platformpg.MigrationSet{postgres.Migrations},
		Setup: func(_ context.Context, rt *service.Runtime) error {
			// The first-transfer waiver reads a projection of the transfers service's status
			// events, fed by a durable consumer.
			svc := app.New(postgres.NewBankFees(rt.Pool), postgres.NewTransferHistory(rt.Pool), rt.Logger)
			rt.Go("transfer-history", func(ctx context.Context) error {
				return ports.ConsumeTransferEvents(ctx, rt.JS, svc, rt.Logger)
			})
			return rt.Serve(ports.Policy, keys, func(s grpc.ServiceRegistrar) {
				feesv1.RegisterFeesServiceServer(s, ports.NewServer(svc, rt.Logger))
			})
		},
	}
}
