package main

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/thumela/thumela/services/cashout/internal/domain"
	"github.com/thumela/thumela/services/platform/config"
)

const secretKey = "c2VjcmV0LWtleS0xNi1ieQ==" // base64 of 16 bytes

func TestConfig(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"TRANSFERS_ADDR":         "127.0.0.1:1",
		"IDENTITY_ADDR":          "127.0.0.1:2",
		"CASHOUT_SERVICE_SECRET": "s3cret",
		"CASHOUT_ZONE_PIN_KEYS":  "zpk2:" + secretKey + ",zpk1:00112233445566778899aabbccddeeff",
	}
	var cfg Config
	if err := config.LoadWith(config.MapLookup(env), "CASHOUT", &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.ISOAddr != "127.0.0.1:8583" || cfg.GRPCAddr != "127.0.0.1:9090" || cfg.RequestTimeout.String() != "10s" ||
		cfg.ISOMaxConnections != 128 || cfg.ISOIdleTimeout != 5*time.Minute || cfg.TransmissionSkew != 5*time.Minute {
		t.Errorf("defaults %+v", cfg)
	}
	p, err := cfg.validate()
	if err != nil {
		t.Fatal(err)
	}
	if p.keys.Current().ID() != "zpk2" {
		t.Errorf("current key %s", p.keys.Current().ID())
	}
	// The default bank codes are the five banks.
	for code, bank := range map[string]domain.Bank{
		"051001": domain.BankStandardBank, "632005": domain.BankABSA, "250655": domain.BankFNB,
		"198765": domain.BankNedbank, "470010": domain.BankCapitec,
	} {
		if got, err := p.banks.Bank(code); err != nil || got != bank {
			t.Errorf("default bank code %s = %v, %v; want %v", code, got, err, bank)
		}
	}

	// The listener's limits and the skew from their variables.
	env["CASHOUT_ISO_MAX_CONNECTIONS"], env["CASHOUT_ISO_IDLE_TIMEOUT"], env["CASHOUT_TRANSMISSION_SKEW"] = "16", "90s", "2m"
	var limited Config
	if err := config.LoadWith(config.MapLookup(env), "CASHOUT", &limited); err != nil {
		t.Fatal(err)
	}
	if limited.ISOMaxConnections != 16 || limited.ISOIdleTimeout != 90*time.Second || limited.TransmissionSkew != 2*time.Minute {
		t.Errorf("limits %d, %v, %v", limited.ISOMaxConnections, limited.ISOIdleTimeout, limited.TransmissionSkew)
	}

	// Missing variables are named together.
	err = config.LoadWith(config.MapLookup(map[string]string{}), "CASHOUT", &Config{})
	for _, v := range []string{"TRANSFERS_ADDR", "IDENTITY_ADDR", "CASHOUT_SERVICE_SECRET", "CASHOUT_ZONE_PIN_KEYS"} {
		if err == nil || !strings.Contains(err.Error(), v) {
			t.Errorf("missing %s not reported: %v", v, err)
		}
	}
	if !errors.Is(err, config.ErrMissing) {
		t.Errorf("missing configuration: %v, want config.ErrMissing", err)
	}

	// Bad values are named, never shown.
	bad := cfg
	bad.ZonePINKeys = []string{"zpk1:" + base64.StdEncoding.EncodeToString([]byte("short-secret"))}
	bad.BankCodes = []string{"250655=bank of nowhere"}
	bad.RequestTimeout = 0
	bad.ISOMaxConnections = 0
	bad.ISOIdleTimeout = -time.Second
	bad.TransmissionSkew = 48 * time.Hour
	_, err = bad.validate()
	for _, want := range []string{"CASHOUT_ZONE_PIN_KEYS", "CASHOUT_BANK_CODES", "CASHOUT_REQUEST_TIMEOUT",
		"CASHOUT_ISO_MAX_CONNECTIONS", "CASHOUT_ISO_IDLE_TIMEOUT", "CASHOUT_TRANSMISSION_SKEW"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s not reported: %v", want, err)
		}
	}
	if err != nil && (strings.Contains(err.Error(), "short-secret") || strings.Contains(err.Error(), base64.StdEncoding.EncodeToString([]byte("short-secret")))) {
		t.Errorf("the error shows the key: %v", err)
	}
	// The logged configuration masks the secrets.
	described := ""
	for _, a := range config.Describe(&cfg) {
		described += a.String() + " "
	}
	if strings.Contains(described, "s3cret") || strings.Contains(described, secretKey) || strings.Contains(described, "00112233") {
		t.Errorf("described configuration shows a secret: %s", described)
	}
}
