// Command notifications delivers Thumela's e-mail (SMTP) and SMS (BulkSMS): it is the only
// consumer of the notification requests, records each delivery, applies the SMS provider's
// delivery reports received on its webhook, and serves thumela.notifications.v1
// (ListDeliveries, SubmitSupportMessage).
package main

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"

	"google.golang.org/grpc"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/notifications/internal/adapters/bulksms"
	"github.com/thumela/thumela/services/notifications/internal/adapters/postgres"
	"github.com/thumela/thumela/services/notifications/internal/adapters/smtp"
	"github.com/thumela/thumela/services/notifications/internal/app"
	"github.com/thumela/thumela/services/notifications/internal/ports/events"
	grpcport "github.com/thumela/thumela/services/notifications/internal/ports/grpc"
	"github.com/thumela/thumela/services/notifications/internal/ports/webhook"
	"github.com/thumela/thumela/services/platform/auth"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
	"github.com/thumela/thumela/services/platform/seal"
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
		Name:       "notifications",
		Version:    version,
		Config:     &cfg,
		Migrations: []platformpg.MigrationSet{postgres.Migrations},
		Setup: func(_ context.Context, rt *service.Runtime) error {
			if err := cfg.validate(); err != nil {
				return fmt.Errorf("config: %w", err)
			}
			keyring, err := seal.ParseKeyring(cfg.SealKeys)
			if err != nil {
				return fmt.Errorf("config: NOTIFICATIONS_SEAL_KEYS: %w", err)
			}
			mailer, err := smtp.New(smtp.Config{
				Addr: cfg.SMTPAddr, TLS: cfg.SMTPTLS, Username: cfg.SMTPUsername, Password: cfg.SMTPPassword,
				CAFile: cfg.SMTPCAFile, From: cfg.MailFrom, Timeout: cfg.SendTimeout,
			})
			if err != nil {
				return fmt.Errorf("config: %w", err)
			}
			rt.OnClose(func() { _ = mailer.Close() })
			sms, err := bulksms.New(bulksms.Config{
				URL: cfg.BulkSMSURL, TokenID: cfg.BulkSMSTokenID, TokenSecret: cfg.BulkSMSTokenSecret,
				From: cfg.SMSSender, Timeout: cfg.SendTimeout,
			})
			if err != nil {
				return fmt.Errorf("config: %w", err)
			}

			store := postgres.New(rt.Pool)
			tel, err := app.NewTelemetry(nil, nil)
			if err != nil {
				return err
			}
			if err := tel.ObserveOldestQueued(store.OldestQueued, time.Now); err != nil {
				return err
			}
			deliverer, err := app.NewDeliverer(store, mailer, sms, keyring, app.DeliverConfig{
				RetryWindow:           cfg.RetryWindow,
				SendTimeout:           cfg.SendTimeout,
				SMSPerRecipientPerDay: cfg.SMSPerRecipientPerDay,
				Checkpoint:            crashAt(os.Getenv(crashPointVar), rt),
			}, tel, rt.Logger)
			if err != nil {
				return err
			}
			consumer := events.New(rt.JS, deliverer, events.Config{
				AckWait:  3 * cfg.SendTimeout,
				Replicas: cfg.StreamReplicas,
			}, rt.Logger)
			rt.Go("notifications-consumer", consumer.Run)
			rt.Go("notifications-expiry", func(ctx context.Context) error { return deliverer.RunExpiry(ctx, time.Minute) })
			rt.Add(webhook.Component(cfg.WebhookAddr, webhook.New(deliverer, cfg.WebhookToken, rt.Logger).ServeMux(), rt.Logger))

			svc := app.NewService(store, store, deliverer, cfg.SupportEmail, nil, rt.Logger)
			return rt.Serve(grpcport.Policy, keys, func(s grpc.ServiceRegistrar) {
				notificationsv1.RegisterNotificationsServiceServer(s, grpcport.NewServer(svc, rt.Logger))
			})
		},
	}
}

// crashPointVar is a test-only hook, deliberately kept out of Config (and so out of every
// deployment): when set to after_send, the process SIGKILLs itself the first time a provider
// has accepted a message and before the result is recorded, so the crash test can run the
// real binary. Read once at start; unset does nothing.
const crashPointVar = "NOTIFICATIONS_CRASHPOINT"

// crashAt is the deliverer's checkpoint for NOTIFICATIONS_CRASHPOINT (test-only): nil when
// unset; otherwise the process kills itself with SIGKILL (no deferred code, no graceful stop)
// the first time it reaches point.
func crashAt(point string, rt *service.Runtime) func(string) {
	if point == "" {
		return nil
	}
	rt.Logger.Warn("NOTIFICATIONS_CRASHPOINT is set: the process will kill itself (test-only)", "point", point)
	return func(p string) {
		if p == point {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way; go no further
		}
	}
}
