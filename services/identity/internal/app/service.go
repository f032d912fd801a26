package app

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/seal"

	"github.com/thumela/thumela/services/identity/internal/domain"
)

// MaxAccessTokenTTL is the longest an access token may live: it cannot be revoked, so it must
// be short.
const MaxAccessTokenTTL = 10 * time.Minute

// Config is everything the use cases need to know.
type Config struct {
	Codes          domain.CodePolicy
	Sessions       domain.SessionPolicy
	AccessTokenTTL time.Duration
	Throttle       ThrottlePolicy
	// Issuer is the iss of every token signed (service.TokenIssuer).
	Issuer string
	// Signer signs new tokens; Previous keys still verify tokens signed before a rotation.
	Signer   auth.Signer
	Previous []auth.PublicKey
	// ServiceSecrets maps internal service names to their IssueServiceToken secrets.
	ServiceSecrets map[string]string
	// SealTo is the notifications service's public key: the codes e-mailed travel sealed to it.
	SealTo seal.PublicKey
	// Passkeys is the WebAuthn relying party; an empty RPID turns passkeys off.
	Passkeys PasskeyConfig
	// Now is the clock; nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

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

// Cleanup deletes throttle records, sessions and codes that no rule reads any more.
func (s *Service) Cleanup(ctx context.Context) (int64, error) {
	now := s.now()
	return s.store.Cleanup(ctx, now.Add(-s.cfg.Throttle.Window), now.Add(-24*time.Hour), now.Add(-24*time.Hour))
}

// ---- helpers ----

func collect(v *domain.ValidationError, err error) {
	var ve *domain.ValidationError
	if errors.As(err, &ve) {
		v.Violations = append(v.Violations, ve.Violations...)
	}
}
