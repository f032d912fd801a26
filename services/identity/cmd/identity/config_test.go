package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"maps"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/thumela/thumela/services/platform/config"
	"github.com/thumela/thumela/services/platform/seal/sealtest"

	"github.com/thumela/thumela/services/identity/internal/app"
	"github.com/thumela/thumela/services/identity/internal/domain"
)

func seed(t *testing.T) string {
	t.Helper()
	b := make([]byte, ed25519.SeedSize)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// codeKey is a fresh IDENTITY_CODE_KEY: base64 of 32 random bytes.
func codeKey(t *testing.T) string {
	t.Helper()
	b := make([]byte, domain.MinCodeKeySize)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func TestConfigDefaultsAndValidation(t *testing.T) {
	t.Parallel()
	key := seed(t)
	codes := codeKey(t)
	sealKey := sealtest.NewKey(t)
	env := map[string]string{
		"DATABASE_URL":                  "postgres://x@localhost/db",
		"IDENTITY_SIGNING_KEY":          key,
		"IDENTITY_CODE_KEY":             codes,
		"IDENTITY_SERVICE_SECRETS":      "transfers=c2VjcmV0LXNlY3JldC1zZWNyZXQ=, bff=another-long-secret",
		"NOTIFICATIONS_SEAL_PUBLIC_KEY": sealKey.Public().String(),
	}
	var cfg Config
	if err := config.LoadWith(config.MapLookup(env), "IDENTITY", &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.AccessTokenTTL != 10*time.Minute || cfg.SessionIdleTTL != 720*time.Hour || cfg.SessionAbsoluteTTL != 2160*time.Hour ||
		cfg.CodeTTL != 10*time.Minute || cfg.CodeResendAfter != time.Minute || cfg.CodeMaxAttempts != 5 {
		t.Fatalf("defaults = %+v", cfg)
	}
	appCfg, err := cfg.appConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	if appCfg.ServiceSecrets["transfers"] != "c2VjcmV0LXNlY3JldC1zZWNyZXQ=" || len(appCfg.ServiceSecrets) != 2 {
		t.Fatalf("secrets parsed as %v", appCfg.ServiceSecrets)
	}
	if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(appCfg.Signer.KeyID) {
		t.Fatalf("key id %q", appCfg.Signer.KeyID)
	}
	if want, _ := base64.StdEncoding.DecodeString(codes); !bytes.Equal(appCfg.Codes.Key, want) {
		t.Fatal("codes are not keyed with IDENTITY_CODE_KEY")
	}
	if _, err := app.New(nil, appCfg); err != nil {
		t.Fatalf("the use cases refuse the configuration: %v", err)
	}
	// The use cases refuse a short code key themselves, whoever configures them.
	short := appCfg
	short.Codes.Key = appCfg.Codes.Key[:domain.MinCodeKeySize-1]
	if _, err := app.New(nil, short); !errors.Is(err, domain.ErrCodeKeySize) {
		t.Fatalf("a %d-byte code key: %v", len(short.Codes.Key), err)
	}
	if appCfg.SealTo != sealKey.Public() {
		t.Fatalf("codes sealed to %q, want the configured notifications key", appCfg.SealTo.ID)
	}
	// Secrets never show in the logged configuration.
	for _, a := range config.Describe(&cfg) {
		if strings.Contains(a.Value.String(), key) || strings.Contains(a.Value.String(), codes) ||
			strings.Contains(a.Value.String(), "another-long-secret") {
			t.Fatalf("%s logged in clear", a.Key)
		}
	}

	// No signing key, no code key, or no notifications key: refused at load.
	for _, name := range []string{"IDENTITY_SIGNING_KEY", "IDENTITY_CODE_KEY", "NOTIFICATIONS_SEAL_PUBLIC_KEY"} {
		without := maps.Clone(env)
		delete(without, name)
		var missing Config
		if err := config.LoadWith(config.MapLookup(without), "IDENTITY", &missing); !errors.Is(err, config.ErrMissing) {
			t.Fatalf("no %s: %v", name, err)
		}
	}

	for name, mutate := range map[string]func(*Config){
		"TTL over 10m": func(c *Config) { c.AccessTokenTTL = 11 * time.Minute },
		"short key":    func(c *Config) { c.SigningKey = base64.StdEncoding.EncodeToString([]byte("short")) },
		"not base64":   func(c *Config) { c.SigningKey = "%%%" },
		"bad previous": func(c *Config) { c.PreviousSigningKeys = key + ",nope" },
		"short code key": func(c *Config) {
			c.CodeKey = base64.StdEncoding.EncodeToString(make([]byte, domain.MinCodeKeySize-1))
		},
		"code key not base64": func(c *Config) { c.CodeKey = "%%%" },
		"empty code key":      func(c *Config) { c.CodeKey = " " },
		"bad secrets":         func(c *Config) { c.ServiceSecrets = "transfers" },
		"short secret":        func(c *Config) { c.ServiceSecrets = "transfers=short" },
		"duplicate name":      func(c *Config) { c.ServiceSecrets = "a=0123456789abcdef,a=0123456789abcdefg" },
		"seal key no id": func(c *Config) {
			c.NotificationsSealPublicKey = strings.SplitN(c.NotificationsSealPublicKey, ":", 2)[1]
		},
		"seal key short": func(c *Config) { c.NotificationsSealPublicKey = "k1:c2hvcnQ=" },
	} {
		c := cfg
		mutate(&c)
		_, err := c.appConfig(nil)
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
		// The error names the variable, never the value.
		if err != nil && c.CodeKey != cfg.CodeKey && (!strings.Contains(err.Error(), "IDENTITY_CODE_KEY") ||
			strings.TrimSpace(c.CodeKey) != "" && strings.Contains(err.Error(), c.CodeKey)) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestParseSigningKeyEncodings(t *testing.T) {
	t.Parallel()
	raw := make([]byte, ed25519.SeedSize)
	_, _ = rand.Read(raw)
	want, err := parseSigningKey(base64.StdEncoding.EncodeToString(raw))
	if err != nil {
		t.Fatal(err)
	}
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		got, err := parseSigningKey(enc.EncodeToString(raw))
		if err != nil || got.KeyID != want.KeyID || !got.Key.Equal(want.Key) {
			t.Fatalf("encoding %v: %v", enc, err)
		}
	}
	if want.KeyID != keyID(want.PublicKey().Key) {
		t.Fatal("key id is not derived from the public key")
	}
}

func TestCheckPasskeys(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		p       app.PasskeyConfig
		dev     bool
		wantErr string
	}{
		{name: "off", p: app.PasskeyConfig{}},
		{name: "production", p: app.PasskeyConfig{RPID: "thumela.co.za", Origins: []string{"https://app.thumela.co.za", "https://thumela.co.za"}}},
		{name: "development on localhost", dev: true, p: app.PasskeyConfig{RPID: "localhost", Origins: []string{"http://localhost:8080", "http://127.0.0.1:8080"}}},
		{name: "origins without an RP id", p: app.PasskeyConfig{Origins: []string{"https://thumela.co.za"}}, wantErr: "without IDENTITY_WEBAUTHN_RP_ID"},
		{name: "an RP id without origins", p: app.PasskeyConfig{RPID: "thumela.co.za"}, wantErr: "at least one origin"},
		{name: "plain http in production", p: app.PasskeyConfig{RPID: "localhost", Origins: []string{"http://localhost:8080"}}, wantErr: "must be https"},
		{name: "another site", p: app.PasskeyConfig{RPID: "thumela.co.za", Origins: []string{"https://thumela.co.za.evil.example"}}, wantErr: "is not on"},
		{name: "a suffix that is not a subdomain", p: app.PasskeyConfig{RPID: "thumela.co.za", Origins: []string{"https://notthumela.co.za"}}, wantErr: "is not on"},
		{name: "a path is not an origin", p: app.PasskeyConfig{RPID: "thumela.co.za", Origins: []string{"https://thumela.co.za/login"}}, wantErr: "not an origin"},
		{name: "127.0.0.1 only in development", p: app.PasskeyConfig{RPID: "localhost", Origins: []string{"https://127.0.0.1:8443"}}, wantErr: "is not on"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := checkPasskeys(tt.p, tt.dev)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("checkPasskeys = %v, want %q", err, tt.wantErr)
			}
			if err == nil {
				if _, err := app.NewRelyingParty(tt.p); err != nil {
					t.Fatalf("the library refuses what the check let through: %v", err)
				}
			}
		})
	}
}
