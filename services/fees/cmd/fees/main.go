// Command fees serves thumela.fees.v1: the banks' fee schedules and transfer quotes.
package main

import (
	"context"
	"time"

	"google.golang.org/grpc"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/fees/internal/adapters/feeschedulekv"
	"github.com/thumela/thumela/services/fees/internal/adapters/postgres"
	"github.com/thumela/thumela/services/fees/internal/app"
	grpcport "github.com/thumela/thumela/services/fees/internal/ports/grpc"
	"github.com/thumela/thumela/services/platform/auth"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
	"github.com/thumela/thumela/services/platform/service"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// Config is the service's configuration: the shared settings (FEES_GRPC_ADDR, DATABASE_URL,
// NATS_URL, IDENTITY_ADDR, …) and its own.
type Config struct {
	service.Base
	// SchedulePoll is how often the fee schedule's version is read; a change of bank_fees
	// reaches the transfers service (through the KV bucket) within it.
	SchedulePoll time.Duration `env:"SCHEDULE_POLL" default:"5s"`
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
			fees := postgres.NewBankFees(rt.Pool)
			svc := app.New(fees, rt.Logger)
			// The schedule the transfers service prices with, published at start and on change.
			publisher := &app.SchedulePublisher{Source: fees, Writer: feeschedulekv.New(rt.JS, rt.Base.StreamReplicas, rt.Logger),
				Interval: cfg.SchedulePoll, Logger: rt.Logger}
			rt.Go("fee-schedule", publisher.Run)
			return rt.Serve(grpcport.Policy, keys, func(s grpc.ServiceRegistrar) {
				feesv1.RegisterFeesServiceServer(s, grpcport.NewServer(svc, rt.Logger))
			})
		},
	}
}
