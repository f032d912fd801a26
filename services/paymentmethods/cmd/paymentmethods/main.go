// Command paymentmethods serves thumela.paymentmethods.v1: the user's cards, the card vault,
// and charges and refunds for the transfers service. Not implemented yet: every RPC answers Unimplemented.
package main

import (
	"context"

	"google.golang.org/grpc"

	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	"github.com/thumela/thumela/services/paymentmethods/internal/adapters/postgres"
	"github.com/thumela/thumela/services/paymentmethods/internal/ports"
	"github.com/thumela/thumela/services/platform/auth"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
	"github.com/thumela/thumela/services/platform/service"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// Config is the service's configuration: the shared settings only for now
// (PAYMENTMETHODS_GRPC_ADDR, DATABASE_URL, NATS_URL, IDENTITY_ADDR, …).
type Config struct {
	service.Base
}

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
			return rt.Serve(ports.Policy, keys, func(s grpc.ServiceRegistrar) {
				paymentmethodsv1.RegisterPaymentMethodsServiceServer(s, ports.NewServer())
			})
		},
	}
}
