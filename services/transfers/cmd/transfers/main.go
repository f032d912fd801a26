// Command transfers serves thumela.transfers.v1: cash-send transfers, their vouchers and the
// sender's limits, and runs the worker that charges cards, issues vouchers, expires them and
// refunds.
package main

import (
	"context"
	"fmt"
	"os"
	"syscall"

	"google.golang.org/grpc"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
	"github.com/thumela/thumela/services/platform/service"
	"github.com/thumela/thumela/services/transfers/internal/adapters/cardcache"
	"github.com/thumela/thumela/services/transfers/internal/adapters/feeschedulekv"
	"github.com/thumela/thumela/services/transfers/internal/adapters/feesgrpc"
	"github.com/thumela/thumela/services/transfers/internal/adapters/paymentmethodsgrpc"
	"github.com/thumela/thumela/services/transfers/internal/adapters/postgres"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/ports/events"
	grpcport "github.com/thumela/thumela/services/transfers/internal/ports/grpc"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

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
			if err := cfg.validate(); err != nil {
				return fmt.Errorf("config: %w", err)
			}
			pins, err := cfg.pinHasher()
			if err != nil {
				return fmt.Errorf("config: %w", err)
			}
			rt.Logger.Info("voucher PINs keyed", "pin_key_id", pins.KeyID())
			sealTo, err := cfg.sealTo()
			if err != nil {
				return fmt.Errorf("config: %w", err)
			}
			rt.Logger.Info("notification secrets sealed", "notifications_key_id", sealTo.ID)
			identity, err := dial(rt, cfg.IdentityAddr)
			if err != nil {
				return err
			}
			tokens := auth.IdentityServiceTokens(identity, "transfers", cfg.ServiceSecret)
			pmConn, err := dial(rt, cfg.PaymentMethodsAddr, grpc.WithPerRPCCredentials(auth.PerRPCCredentials(tokens)))
			if err != nil {
				return err
			}
			feesConn, err := dial(rt, cfg.FeesAddr)
			if err != nil {
				return err
			}

			repo := postgres.NewTransfers(rt.Pool, sealTo)
			repo.SetReferralReward(domain.Cents(cfg.ReferralRewardCents))
			payments := paymentmethodsgrpc.New(pmConn)
			// A create asks neither paymentmethods nor fees in the common case: the sender's
			// cards are cached per process and dropped on paymentmethods' change events; the
			// fee schedule fees publishes is watched and priced locally (fees' Quote until one
			// has arrived).
			cards := cardcache.New(payments)
			rt.Go("transfers-card-cache", func(ctx context.Context) error { return events.FollowCardChanges(ctx, rt.JS, cards, rt.Logger) })
			fees := feeschedulekv.New(feesgrpc.New(feesConn), rt.Logger)
			rt.Go("transfers-fee-schedule", func(ctx context.Context) error { return fees.Watch(ctx, rt.JS) })
			svc, err := app.New(repo, cards, fees, app.Config{Limits: cfg.limits(), PINs: pins,
				ReferralWelcome: domain.Cents(cfg.ReferralWelcomeCents)}, rt.Logger)
			if err != nil {
				return err
			}
			worker, err := app.NewWorker(repo, payments, app.WorkerConfig{
				Concurrency: cfg.WorkerConcurrency,
				Lease:       cfg.ProcessingLease,
				Sweep:       cfg.WorkerSweep,
				VoucherTTL:  cfg.VoucherTTL,
				PINs:        pins,
				Checkpoint:  crashAt(os.Getenv(crashPointVar), rt),
			}, rt.Logger)
			if err != nil {
				return err
			}
			// The repository wakes the worker after each of this process's commits that
			// creates work; other replicas' work reaches it through its sweep.
			repo.OnWork(worker.Notify)
			rt.Go("transfers-worker", worker.Run)
			// The recurring sends: every replica runs one; they share the due schedules.
			rt.Go("transfers-scheduler", app.NewScheduler(svc, app.SchedulerConfig{Interval: cfg.SchedulerInterval}, rt.Logger).Run)
			// Identity's verifications: the welcome credit of friends who signed up with a code.
			rt.Go("transfers-referrals", func(ctx context.Context) error {
				return events.ConsumeUserVerified(ctx, rt.JS, svc, rt.Logger)
			})
			// Notifications' deliveries: the sender of a voucher SMS that failed for good is e-mailed.
			rt.Go("transfers-sms-failures", func(ctx context.Context) error {
				return events.ConsumeDeliveryChanged(ctx, rt.JS, svc, rt.Logger)
			})
			// Identity's renames: the scheduled sends name the sender as their profile now does.
			rt.Go("transfers-renames", func(ctx context.Context) error {
				return events.ConsumeUserRenamed(ctx, rt.JS, svc, rt.Logger)
			})
			// Reconciliation: every replica runs the job; an advisory lock lets one through.
			reconciler, err := app.NewReconciler(postgres.NewReconciliation(rt.Pool), payments,
				app.ReconcileConfig{Interval: cfg.ReconcileInterval}, rt.Logger)
			if err != nil {
				return err
			}
			rt.Go("transfers-reconciliation", reconciler.Run)
			return rt.Serve(grpcport.Policy, keys, func(s grpc.ServiceRegistrar) {
				transfersv1.RegisterTransfersServiceServer(s, grpcport.WithReconciler(grpcport.NewServer(svc, rt.Logger), reconciler))
			})
		},
	}
}

// dial connects to a peer's gRPC address, closing the connection when the process stops.
func dial(rt *service.Runtime, addr string, opts ...grpc.DialOption) (*grpc.ClientConn, error) {
	conn, err := grpcserver.Dial(addr, opts...)
	if err != nil {
		return nil, err
	}
	rt.OnClose(func() { _ = conn.Close() })
	return conn, nil
}

// crashAt is the worker's checkpoint for TRANSFERS_CRASHPOINT (test-only): nil when unset;
// otherwise the process kills itself with SIGKILL (no deferred code, no graceful stop) the
// first time the worker reaches point.
func crashAt(point string, rt *service.Runtime) func(string) {
	if point == "" {
		return nil
	}
	rt.Logger.Warn("TRANSFERS_CRASHPOINT is set: the process will kill itself (test-only)", "point", point)
	return func(p string) {
		if p == point {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way; go no further
		}
	}
}
