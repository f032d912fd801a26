package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/thumela/thumela/services/paymentmethods/internal/adapters/sandbox"
	"github.com/thumela/thumela/services/paymentmethods/internal/adapters/vault"
	"github.com/thumela/thumela/services/paymentmethods/internal/app"
	"github.com/thumela/thumela/services/platform/service"
)

// Config is the service's configuration: the shared settings (PAYMENTMETHODS_GRPC_ADDR,
// DATABASE_URL, NATS_URL, IDENTITY_ADDR, …) and the vault's and processor's.
type Config struct {
	service.Base
	// KeyEncryptionKey wraps every card's data key: base64 of 32 random bytes. It is kept
	// apart from the database (a secret store); a dump without it decrypts nothing.
	KeyEncryptionKey string `env:"KEY_ENCRYPTION_KEY" required:"true" secret:"true"`
	// RetiredKeyEncryptionKeys are earlier KEKs (comma-separated base64), still accepted to
	// unwrap; at start every record under one of them is re-wrapped with KeyEncryptionKey.
	RetiredKeyEncryptionKeys []string `env:"RETIRED_KEY_ENCRYPTION_KEYS" secret:"true"`
	// FingerprintKey keys the HMAC that recognises a card saved twice: base64, at least 32
	// bytes. Changing it makes earlier cards unrecognisable as duplicates, nothing else.
	FingerprintKey string `env:"FINGERPRINT_KEY" required:"true" secret:"true"`
	// Processor is the card processor: only "sandbox" is built in.
	Processor string `env:"PROCESSOR" default:"sandbox"`
	// ProcessorTimeout bounds one processor call.
	ProcessorTimeout time.Duration `env:"PROCESSOR_TIMEOUT" default:"30s"`
	// SandboxDelay is the sandbox processor's delay per call (about a second, like a real one).
	SandboxDelay time.Duration `env:"SANDBOX_DELAY" default:"1s"`
	// SandboxSlowDelay is the delay of the sandbox's slow test card (4000 0000 0000 0259).
	SandboxSlowDelay time.Duration `env:"SANDBOX_SLOW_DELAY" default:"10s"`
}

// vaultKeys builds the keyring and the fingerprinter from the configuration. Errors name the
// variable, never the value.
func (c *Config) vaultKeys() (*vault.Keyring, *vault.Fingerprinter, error) {
	current, err := vault.ParseKEK(c.KeyEncryptionKey)
	if err != nil {
		return nil, nil, fmt.Errorf("PAYMENTMETHODS_KEY_ENCRYPTION_KEY: %w", err)
	}
	var retired []vault.KEK
	for i, s := range c.RetiredKeyEncryptionKeys {
		k, err := vault.ParseKEK(s)
		if err != nil {
			return nil, nil, fmt.Errorf("PAYMENTMETHODS_RETIRED_KEY_ENCRYPTION_KEYS[%d]: %w", i, err)
		}
		retired = append(retired, k)
	}
	fpKey, err := vault.DecodeKey(c.FingerprintKey)
	if err != nil {
		return nil, nil, fmt.Errorf("PAYMENTMETHODS_FINGERPRINT_KEY: %w", err)
	}
	fp, err := vault.NewFingerprinter(fpKey)
	clear(fpKey)
	if err != nil {
		return nil, nil, fmt.Errorf("PAYMENTMETHODS_FINGERPRINT_KEY: %w", err)
	}
	return vault.NewKeyring(current, retired...), fp, nil
}

// processor builds the card processor; the sandbox keeps its records in its own table of
// pool's database (sandbox_processor_records).
func (c *Config) processor(pool *pgxpool.Pool) (app.Processor, error) {
	switch strings.ToLower(strings.TrimSpace(c.Processor)) {
	case "sandbox":
		if c.SandboxDelay < 0 || c.SandboxSlowDelay < 0 {
			return nil, errors.New("PAYMENTMETHODS_SANDBOX_DELAY and PAYMENTMETHODS_SANDBOX_SLOW_DELAY must not be negative")
		}
		return sandbox.New(sandbox.Options{Delay: c.SandboxDelay, SlowDelay: c.SandboxSlowDelay, Store: sandbox.NewPostgresStore(pool)}), nil
	default:
		return nil, fmt.Errorf("PAYMENTMETHODS_PROCESSOR: unknown processor %q (built in: sandbox)", c.Processor)
	}
}
