// Command transfers serves thumela.transfers.v1: cash-send transfers, their vouchers and the
// sender's limits. Not implemented yet: every RPC answers Unimplemented.
package main

import (
	"context"

	"google.golang.org/grpc"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/auth"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
	"github.com/thumela/thumela/services/platform/service"
	"github.com/thumela/thumela/services/transfers/internal/adapters/postgres"
	"github.com/thumela/thumela/services/transfers/internal/ports"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// Config is the service's configuration: the shared settings only for now
// (TRANSFERS_GRPC_ADDR, DATABASE_URL, NATS_URL, IDENTITY_ADDR, …).
type Config struct {
	service.Base
}

func main() { service.Main(spec(nil)) }

// spec describes the binary. keys verify access tokens: nil means identity's public keys at
// IDENTITY_ADDR; tests pass static keys.
func spec(keys auth.KeySource) service.Spec {
	var cfg Config
	return service.Spec{
		Name:       "transfers",
		Version:    version,
		Config:     &cfg,
		Migrations: []platformpg.MigrationSet{postgres.Migrations},
		Setup: func(_ context.Context, rt *service.Runtime) error {
			return rt.Serve(ports.Policy, keys, func(s grpc.ServiceRegistrar) {
				transfersv1.RegisterTransfersServiceServer(s, ports.NewServer())
			})
		},
	}
}
