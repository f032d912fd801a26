package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/thumela/thumela/services/platform/seal"
	"github.com/thumela/thumela/services/platform/service"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// Config is the service's configuration: the shared settings (TRANSFERS_GRPC_ADDR,
// DATABASE_URL, NATS_URL, IDENTITY_ADDR, …) and its own, TRANSFERS_-prefixed unless noted.
type Config struct {
	service.Base
	PaymentMethodsAddr string `env:"PAYMENTMETHODS_ADDR,noprefix" required:"true"`
	FeesAddr           string `env:"FEES_ADDR,noprefix" required:"true"`
	// ServiceSecret authenticates this service to identity's IssueServiceToken (the token
	// paymentmethods requires for Charge and Refund).
	ServiceSecret string `env:"SERVICE_SECRET" required:"true" secret:"true"`
	// PINKey keys the HMAC under which the vouchers' PINs are stored: base64, at least 32
	// bytes, kept apart from the database (a secret store), so that a dump without it reveals
	// no PIN. To rotate it, move the old value to RetiredPINKeys.
	PINKey string `env:"PIN_KEY" required:"true" secret:"true"`
	// RetiredPINKeys are earlier PIN keys (comma-separated base64), still used to verify the
	// PINs of vouchers issued under them; drop one once its vouchers have all been collected,
	// cancelled or expired (at most VoucherTTL after the rotation).
	RetiredPINKeys []string `env:"RETIRED_PIN_KEYS" secret:"true"`
	// NotificationsSealPublicKey is the notifications service's public key ("<key id>:<base64>"):
	// the voucher number and PIN of the recipient's SMS request are sealed to it, so that only
	// that service can read them. A public key: not a secret.
	NotificationsSealPublicKey string `env:"NOTIFICATIONS_SEAL_PUBLIC_KEY,noprefix" required:"true"`

	// Limits in cents, on the amount sent (DECISIONS.md).
	LimitMinimumCents     int64 `env:"LIMIT_MINIMUM_CENTS" default:"1000"`
	LimitPerTransferCents int64 `env:"LIMIT_PER_TRANSFER_CENTS" default:"300000"`
	LimitDailyCents       int64 `env:"LIMIT_DAILY_CENTS" default:"500000"`
	LimitMonthlyCents     int64 `env:"LIMIT_MONTHLY_CENTS" default:"2400000"`
	LimitYearlyCents      int64 `env:"LIMIT_YEARLY_CENTS" default:"10000000"`

	VoucherTTL        time.Duration `env:"VOUCHER_TTL" default:"168h"`
	WorkerConcurrency int           `env:"WORKER_CONCURRENCY" default:"32"`
	ProcessingLease   time.Duration `env:"PROCESSING_LEASE" default:"1m"`
	WorkerSweep       time.Duration `env:"WORKER_SWEEP" default:"5s"`
	// SchedulerInterval is how often the scheduler makes the recurring sends that have fallen
	// due (browser tests set 1s). A date is made on the first tick of its day in Johannesburg.
	SchedulerInterval time.Duration `env:"SCHEDULER_INTERVAL" default:"1m"`

	// The referral programme, in cents of credit: a referred friend's welcome once verified,
	// and the referrer's reward when that friend's first transfer completes.
	ReferralWelcomeCents int64 `env:"REFERRAL_WELCOME_CENTS" default:"5000"`
	ReferralRewardCents  int64 `env:"REFERRAL_REWARD_CENTS" default:"10000"`

	// ReconcileInterval is how often the money is reconciled (every replica tries; one at a
	// time runs, docs/operations.md "reconciliation found a mismatch").
	ReconcileInterval time.Duration `env:"RECONCILE_INTERVAL" default:"5m"`
}

// crashPointVar is a test-only hook, deliberately kept out of Config (and so out of every
// deployment): when set (before_charge, after_charge, before_publish), the worker SIGKILLs its
// own process at that point of a charge job, so crash tests can run the real binary. Read once
// at start; unset does nothing.
const crashPointVar = "TRANSFERS_CRASHPOINT"

func (c *Config) limits() domain.Limits {
	return domain.Limits{
		Minimum:     domain.Cents(c.LimitMinimumCents),
		PerTransfer: domain.Cents(c.LimitPerTransferCents),
		Daily:       domain.Cents(c.LimitDailyCents),
		Monthly:     domain.Cents(c.LimitMonthlyCents),
		Yearly:      domain.Cents(c.LimitYearlyCents),
	}
}

// pinHasher builds the PIN hasher from TRANSFERS_PIN_KEY and TRANSFERS_RETIRED_PIN_KEYS.
// Errors name the variable, never the value.
func (c *Config) pinHasher() (*domain.PINHasher, error) {
	key, err := domain.ParsePINKey(c.PINKey)
	if err != nil {
		return nil, fmt.Errorf("TRANSFERS_PIN_KEY: %w", err)
	}
	retired := make([]domain.PINKey, 0, len(c.RetiredPINKeys))
	for i, s := range c.RetiredPINKeys {
		k, err := domain.ParsePINKey(s)
		if err != nil {
			return nil, fmt.Errorf("TRANSFERS_RETIRED_PIN_KEYS[%d]: %w", i, err)
		}
		retired = append(retired, k)
	}
	return domain.NewPINHasher(key, retired...), nil
}

// sealTo parses NOTIFICATIONS_SEAL_PUBLIC_KEY.
func (c *Config) sealTo() (seal.PublicKey, error) {
	k, err := seal.ParsePublicKey(strings.TrimSpace(c.NotificationsSealPublicKey))
	if err != nil {
		return seal.PublicKey{}, fmt.Errorf("NOTIFICATIONS_SEAL_PUBLIC_KEY: %w", err)
	}
	return k, nil
}

// validate checks what the tags cannot.
func (c *Config) validate() error {
	var errs []error
	if _, err := c.pinHasher(); err != nil {
		errs = append(errs, err)
	}
	if _, err := c.sealTo(); err != nil {
		errs = append(errs, err)
	}
	if c.IdentityAddr == "" {
		errs = append(errs, errors.New("IDENTITY_ADDR is required (service tokens for Charge and Refund)"))
	}
	if err := c.limits().Validate(); err != nil {
		errs = append(errs, fmt.Errorf("TRANSFERS_LIMIT_*: %w", err))
	}
	if c.VoucherTTL <= 0 {
		errs = append(errs, errors.New("TRANSFERS_VOUCHER_TTL must be positive"))
	}
	if c.WorkerConcurrency <= 0 {
		errs = append(errs, errors.New("TRANSFERS_WORKER_CONCURRENCY must be positive"))
	}
	if c.ProcessingLease < 2*time.Second {
		errs = append(errs, errors.New("TRANSFERS_PROCESSING_LEASE must be at least 2s"))
	}
	if c.WorkerSweep <= 0 {
		errs = append(errs, errors.New("TRANSFERS_WORKER_SWEEP must be positive"))
	}
	if c.ReconcileInterval <= 0 {
		errs = append(errs, errors.New("TRANSFERS_RECONCILE_INTERVAL must be positive"))
	}
	if c.SchedulerInterval <= 0 {
		errs = append(errs, errors.New("TRANSFERS_SCHEDULER_INTERVAL must be positive"))
	}
	if c.ReferralWelcomeCents <= 0 || c.ReferralRewardCents <= 0 {
		errs = append(errs, errors.New("TRANSFERS_REFERRAL_WELCOME_CENTS and TRANSFERS_REFERRAL_REWARD_CENTS must be positive"))
	}
	if p := os.Getenv(crashPointVar); p != "" && !slices.Contains(app.Checkpoints, p) {
		errs = append(errs, fmt.Errorf("%s must be empty or one of %v", crashPointVar, app.Checkpoints))
	}
	return errors.Join(errs...)
}
