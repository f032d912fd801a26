// Package app is identity's use cases: sign-up, verification, sign-in, sessions, passwords and
// tokens. It composes the domain's rules with a Store (PostgreSQL in production), writes the
// messages internal/events builds to the outbox, and signs access tokens; the gRPC port turns
// requests and errors into gRPC.
package app

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/thumela/thumela/services/identity/internal/domain"
)

// Service implements identity's use cases.
type Service struct {
	store    Store
	cfg      Config
	now      func() time.Time
	logger   *slog.Logger
	services map[string][sha256.Size]byte
	// rp verifies passkeys; nil when they are off.
	rp *webauthn.WebAuthn
}

// New checks cfg and returns the service.
func New(store Store, cfg Config) (*Service, error) {
	switch {
	case cfg.AccessTokenTTL <= 0 || cfg.AccessTokenTTL > MaxAccessTokenTTL:
		return nil, fmt.Errorf("access token TTL %s must be positive and at most %s", cfg.AccessTokenTTL, MaxAccessTokenTTL)
	case cfg.Codes.TTL <= 0 || cfg.Codes.ResendAfter < 0 || cfg.Codes.MaxAttempts < 1:
		return nil, errors.New("code TTL, resend interval and attempts must be positive")
	case len(cfg.Codes.Key) < domain.MinCodeKeySize:
		// An HMAC under a short key is little better than the unkeyed hash it replaces.
		return nil, domain.ErrCodeKeySize
	case cfg.Sessions.IdleTTL <= 0 || cfg.Sessions.AbsoluteTTL < cfg.Sessions.IdleTTL:
		return nil, errors.New("session idle TTL must be positive and at most the absolute TTL")
	case cfg.Throttle.validate() != nil:
		return nil, cfg.Throttle.validate()
	case cfg.Signer.KeyID == "" || len(cfg.Signer.Key) == 0:
		return nil, errors.New("no signing key")
	case cfg.Issuer == "":
		return nil, errors.New("no token issuer")
	case cfg.SealTo.ID == "":
		return nil, errors.New("no notifications public key to seal codes to")
	}
	rp, err := NewRelyingParty(cfg.Passkeys)
	if err != nil {
		return nil, err
	}
	s := &Service{store: store, cfg: cfg, logger: cfg.Logger, services: map[string][sha256.Size]byte{}, rp: rp}
	clock := cfg.Now
	if clock == nil {
		clock = time.Now
	}
	// PostgreSQL keeps microseconds: times compared after a round trip must not have more.
	s.now = func() time.Time { return clock().Truncate(time.Microsecond) }
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	for name, secret := range cfg.ServiceSecrets {
		s.services[name] = sha256.Sum256([]byte(secret))
	}
	domain.WarmUp()
	return s, nil
}
