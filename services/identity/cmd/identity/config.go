package main

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/seal"
	"github.com/thumela/thumela/services/platform/service"

	"github.com/thumela/thumela/services/identity/internal/app"
	"github.com/thumela/thumela/services/identity/internal/domain"
)

// Config is identity's configuration; variables are prefixed IDENTITY_ (see service.Base for
// the shared ones).
type Config struct {
	service.Base

	// SigningKey is the base64 of the 32-byte Ed25519 seed that signs access tokens. Its key
	// id is the first 16 hex digits of the SHA-256 of its public key.
	SigningKey string `env:"SIGNING_KEY" required:"true" secret:"true"`
	// PreviousSigningKeys are former SIGNING_KEY values (comma separated). Only their public
	// halves are used: GetPublicKeys keeps publishing them so that tokens signed before a
	// rotation stay valid until they expire. Remove them after ACCESS_TOKEN_TTL.
	PreviousSigningKeys string `env:"PREVIOUS_SIGNING_KEYS" secret:"true"`
	// CodeKey keys the HMAC-SHA256 under which one-time codes are stored: base64, at least 32
	// bytes, kept apart from the database (a secret store), so that a dump without it reveals
	// no code. A code lives CODE_TTL, so rotating it needs no retired keys: only the codes
	// sent in the last CODE_TTL fail ("request a new code").
	CodeKey string `env:"CODE_KEY" required:"true" secret:"true"`
	// ServiceSecrets are "name=secret,name2=secret2": the internal callers of IssueServiceToken.
	ServiceSecrets string `env:"SERVICE_SECRETS" secret:"true"`
	// NotificationsSealPublicKey is the notifications service's public key ("<key id>:<base64>"),
	// to which the one-time codes in e-mail requests are sealed so that only that service can
	// read them. A public key: not a secret.
	NotificationsSealPublicKey string `env:"NOTIFICATIONS_SEAL_PUBLIC_KEY,noprefix" required:"true"`

	// Passkeys (WebAuthn). WebAuthnRPID is the site's registrable domain (the host the
	// browser shows, or a parent of it); WebAuthnOrigins lists every origin pages are served
	// from, exactly ("https://thumela.co.za"). An empty RP id turns passkeys off.
	WebAuthnRPID    string   `env:"WEBAUTHN_RP_ID"`
	WebAuthnRPName  string   `env:"WEBAUTHN_RP_NAME" default:"Thumela"`
	WebAuthnOrigins []string `env:"WEBAUTHN_ORIGINS"`

	AccessTokenTTL     time.Duration `env:"ACCESS_TOKEN_TTL" default:"10m"`
	SessionIdleTTL     time.Duration `env:"SESSION_IDLE_TTL" default:"720h"`
	SessionAbsoluteTTL time.Duration `env:"SESSION_ABSOLUTE_TTL" default:"2160h"`
	CodeTTL            time.Duration `env:"CODE_TTL" default:"10m"`
	CodeResendAfter    time.Duration `env:"CODE_RESEND_AFTER" default:"60s"`
	CodeMaxAttempts    int           `env:"CODE_MAX_ATTEMPTS" default:"5"`

	// Throttles (app.ThrottlePolicy, docs/security-ratelimits.md): failures counted per
	// ThrottleWindow; past a key's free failures each further one doubles the wait, from
	// ThrottleBaseDelay up to ThrottleMaxDelay. Per (account, address) is the tight key; per
	// account is a high ceiling, so a stranger cannot lock the owner out.
	ThrottleWindow         time.Duration `env:"THROTTLE_WINDOW" default:"1h"`
	ThrottleBaseDelay      time.Duration `env:"THROTTLE_BASE_DELAY" default:"2s"`
	ThrottleMaxDelay       time.Duration `env:"THROTTLE_MAX_DELAY" default:"15m"`
	SignInFailuresPair     int           `env:"SIGNIN_FAILURES_PER_PAIR" default:"5"`
	SignInFailuresAddress  int           `env:"SIGNIN_FAILURES_PER_ADDRESS" default:"50"`
	SignInFailuresAccount  int           `env:"SIGNIN_FAILURES_PER_ACCOUNT" default:"100"`
	CodeFailuresPerPair    int           `env:"CODE_FAILURES_PER_PAIR" default:"10"`
	CodeFailuresPerAddress int           `env:"CODE_FAILURES_PER_ADDRESS" default:"20"`
	CodeFailuresPerAccount int           `env:"CODE_FAILURES_PER_ACCOUNT" default:"50"`
}

// appConfig checks c and turns it into the use cases' configuration.
func (c *Config) appConfig(logger *slog.Logger) (app.Config, error) {
	var errs []error
	signer, err := parseSigningKey(c.SigningKey)
	if err != nil {
		errs = append(errs, fmt.Errorf("IDENTITY_SIGNING_KEY: %w", err))
	}
	var previous []auth.PublicKey
	for i, raw := range splitList(c.PreviousSigningKeys) {
		s, err := parseSigningKey(raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("IDENTITY_PREVIOUS_SIGNING_KEYS item %d: %w", i+1, err))
			continue
		}
		if s.KeyID != signer.KeyID {
			previous = append(previous, s.PublicKey())
		}
	}
	codeKey, err := parseCodeKey(c.CodeKey)
	if err != nil {
		errs = append(errs, fmt.Errorf("IDENTITY_CODE_KEY: %w", err))
	}
	secrets, err := parseServiceSecrets(c.ServiceSecrets)
	if err != nil {
		errs = append(errs, fmt.Errorf("IDENTITY_SERVICE_SECRETS: %w", err))
	}
	sealTo, err := seal.ParsePublicKey(strings.TrimSpace(c.NotificationsSealPublicKey))
	if err != nil {
		errs = append(errs, fmt.Errorf("NOTIFICATIONS_SEAL_PUBLIC_KEY: %w", err))
	}
	passkeys := app.PasskeyConfig{RPID: strings.TrimSpace(c.WebAuthnRPID), RPName: c.WebAuthnRPName, Origins: c.WebAuthnOrigins}
	if err := checkPasskeys(passkeys, c.Development()); err != nil {
		errs = append(errs, err)
	}
	if c.AccessTokenTTL <= 0 || c.AccessTokenTTL > app.MaxAccessTokenTTL {
		errs = append(errs, fmt.Errorf("IDENTITY_ACCESS_TOKEN_TTL must be between 1s and %s", app.MaxAccessTokenTTL))
	}
	if err := errors.Join(errs...); err != nil {
		return app.Config{}, err
	}
	return app.Config{
		Codes: domain.CodePolicy{
			TTL: c.CodeTTL, ResendAfter: c.CodeResendAfter, MaxAttempts: c.CodeMaxAttempts, Key: codeKey,
		},
		Sessions:       domain.SessionPolicy{IdleTTL: c.SessionIdleTTL, AbsoluteTTL: c.SessionAbsoluteTTL},
		AccessTokenTTL: c.AccessTokenTTL,
		Throttle: app.ThrottlePolicy{
			Window: c.ThrottleWindow, BaseDelay: c.ThrottleBaseDelay, MaxDelay: c.ThrottleMaxDelay,
			PairFailures: c.SignInFailuresPair, AddressFailures: c.SignInFailuresAddress,
			AccountFailures: c.SignInFailuresAccount, CodePairFailures: c.CodeFailuresPerPair,
			CodeAddressFailures: c.CodeFailuresPerAddress, CodeAccountFailures: c.CodeFailuresPerAccount,
		},
		Issuer:         service.TokenIssuer,
		Signer:         signer,
		Previous:       previous,
		ServiceSecrets: secrets,
		SealTo:         sealTo,
		Passkeys:       passkeys,
		Logger:         logger,
	}, nil
}

// checkPasskeys refuses a relying party a browser would refuse: origins must be https (plain
// http only in development, where browsers allow it on localhost), and each origin's host must
// be the RP id or under it.
func checkPasskeys(p app.PasskeyConfig, development bool) error {
	if p.RPID == "" {
		if len(p.Origins) > 0 {
			return errors.New("IDENTITY_WEBAUTHN_ORIGINS is set without IDENTITY_WEBAUTHN_RP_ID")
		}
		return nil
	}
	if len(p.Origins) == 0 {
		return errors.New("IDENTITY_WEBAUTHN_ORIGINS: at least one origin is needed with IDENTITY_WEBAUTHN_RP_ID")
	}
	for _, raw := range p.Origins {
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
			return fmt.Errorf("IDENTITY_WEBAUTHN_ORIGINS: %q is not an origin (scheme://host[:port])", raw)
		}
		if u.Scheme != "https" && !(development && u.Scheme == "http") {
			return fmt.Errorf("IDENTITY_WEBAUTHN_ORIGINS: %q must be https", raw)
		}
		host := strings.ToLower(u.Hostname())
		rp := strings.ToLower(p.RPID)
		if host != rp && !strings.HasSuffix(host, "."+rp) && !(development && host == "127.0.0.1") {
			return fmt.Errorf("IDENTITY_WEBAUTHN_ORIGINS: %q is not on IDENTITY_WEBAUTHN_RP_ID %q", raw, p.RPID)
		}
	}
	return nil
}

// decodeKey reads a key's base64: standard or URL alphabet, padded or not. Errors never quote
// the value.
func decodeKey(raw string) ([]byte, error) {
	raw = strings.TrimSpace(raw)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(raw); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("is not base64")
}

// parseCodeKey reads the base64 of the one-time codes' HMAC key, at least
// domain.MinCodeKeySize bytes.
func parseCodeKey(raw string) ([]byte, error) {
	key, err := decodeKey(raw)
	if err != nil {
		return nil, err
	}
	if len(key) < domain.MinCodeKeySize {
		return nil, fmt.Errorf("must be at least %d bytes, got %d", domain.MinCodeKeySize, len(key))
	}
	return key, nil
}

// parseSigningKey reads the base64 (standard or URL alphabet, padded or not) of a 32-byte
// Ed25519 seed and names the key by the first 16 hex digits of its public key's SHA-256.
func parseSigningKey(raw string) (auth.Signer, error) {
	seed, err := decodeKey(raw)
	if err != nil {
		return auth.Signer{}, err
	}
	if len(seed) != ed25519.SeedSize {
		return auth.Signer{}, fmt.Errorf("must be %d bytes, got %d", ed25519.SeedSize, len(seed))
	}
	key := ed25519.NewKeyFromSeed(seed)
	return auth.Signer{KeyID: keyID(key.Public().(ed25519.PublicKey)), Key: key}, nil
}

// keyID names a public key: the first 16 hex digits of its SHA-256.
func keyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return hex.EncodeToString(sum[:])[:16]
}

// parseServiceSecrets reads "name=secret,name2=secret2". A secret may itself contain "="
// (base64 padding): only the first one separates.
func parseServiceSecrets(raw string) (map[string]string, error) {
	out := map[string]string{}
	for _, item := range splitList(raw) {
		name, secret, ok := strings.Cut(item, "=")
		name, secret = strings.TrimSpace(name), strings.TrimSpace(secret)
		if !ok || name == "" || secret == "" {
			return nil, errors.New(`want "name=secret" items separated by commas`)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("service %q given twice", name)
		}
		if len(secret) < 16 {
			return nil, fmt.Errorf("the secret of %q is shorter than 16 characters", name)
		}
		out[name] = secret
	}
	return out, nil
}

func splitList(raw string) []string {
	var out []string
	for item := range strings.SplitSeq(raw, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
