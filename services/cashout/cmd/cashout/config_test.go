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

const (
	secretKey = "c2VjcmV0LWtleS0xNi1ieQ==" // base64 of 16 bytes
	macKey1   = "f0e1d2c3b4a5968778695a4b3c2d1e0ff0e1d2c3b4a5968778695a4b3c2d1e0f"
	macKey2   = "bWFjLWtleS0xNi1ieXRlcw==" // base64 of 16 bytes
)

func TestConfig(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"TRANSFERS_ADDR":         "127.0.0.1:1",
		"IDENTITY_ADDR":          "127.0.0.1:2",
		"CASHOUT_SERVICE_SECRET": "s3cret",
		"CASHOUT_ZONE_PIN_KEYS":  "zpk2:" + secretKey + ":250655,zpk1:00112233445566778899aabbccddeeff:250655+051001",
		"CASHOUT_ZONE_MAC_KEYS":  "zpk1:" + macKey1 + ",zpk2:" + macKey2,
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
	if p.zones.Current().ID() != "zpk2" || strings.Join(p.zones.IDs(), ",") != "zpk2,zpk1" {
		t.Errorf("zone keys %v, current %s", p.zones.IDs(), p.zones.Current().ID())
	}
	if z, _ := p.zones.Zone("zpk1"); z.CheckAcquirer("051001") != nil || z.MAC.ID() != "zpk1" {
		t.Errorf("zpk1: acquirers %v, MAC key %s", z.Acquirers(), z.MAC.ID())
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
	for _, v := range []string{"TRANSFERS_ADDR", "IDENTITY_ADDR", "CASHOUT_SERVICE_SECRET", "CASHOUT_ZONE_PIN_KEYS", "CASHOUT_ZONE_MAC_KEYS"} {
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
	if strings.Contains(described, "s3cret") || strings.Contains(described, secretKey) || strings.Contains(described, "00112233") ||
		strings.Contains(described, macKey1[:16]) || strings.Contains(described, macKey2) {
		t.Errorf("described configuration shows a secret: %s", described)
	}
}

// The zone keys of a deployment from before the binding ("<id>:<key>", no MAC keys) fail the
// start, closed, in every environment: each error names the variable and the key's id, never a
// key. So does a key bound to an acquirer id no bank has, a MAC key missing, or one key in both
// roles.
func TestZoneKeysFailClosed(t *testing.T) {
	t.Parallel()
	const pinHex = "00112233445566778899aabbccddeeff"
	for _, tc := range []struct {
		name     string
		pin, mac []string
		want     []string
	}{
		{"a key of before the binding", []string{"zpk1:" + pinHex}, []string{"zpk1:" + macKey1},
			[]string{"CASHOUT_ZONE_PIN_KEYS", "zpk1", "bound to no acquirer id"}},
		{"no MAC key for a zone PIN key", []string{"zpk1:" + pinHex + ":250655", "zpk2:" + secretKey + ":250655"}, []string{"zpk1:" + macKey1},
			[]string{"CASHOUT_ZONE_MAC_KEYS", "no MAC key for zone keys zpk2"}},
		{"a MAC key unusable", []string{"zpk1:" + pinHex + ":250655"}, []string{"zpk1:" + macKey1[:20]},
			[]string{"CASHOUT_ZONE_MAC_KEYS", "entry 0"}},
		{"one key to encipher PINs and MAC", []string{"zpk1:" + pinHex + ":250655"}, []string{"zpk1:" + pinHex},
			[]string{"CASHOUT_ZONE_MAC_KEYS", "zpk1", "one key"}},
		{"an acquirer id no bank has (a dropped leading zero)", []string{"zpk1:" + pinHex + ":51001"}, []string{"zpk1:" + macKey1},
			[]string{"CASHOUT_ZONE_PIN_KEYS", "zpk1", "51001", "CASHOUT_BANK_CODES"}},
	} {
		for _, env := range []string{"production", "development"} {
			cfg := Config{ZonePINKeys: tc.pin, ZoneMACKeys: tc.mac, Environment: env, RequestTimeout: time.Second,
				StandInWindow: time.Minute, ISOMaxConnections: 1, ISOIdleTimeout: time.Minute, TransmissionSkew: time.Minute,
				ShutdownTimeout: time.Second}
			_, err := cfg.validate()
			if err == nil {
				t.Errorf("%s (%s): the configuration was accepted", tc.name, env)
				continue
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%s (%s): %q not in %v", tc.name, env, want, err)
				}
			}
			for _, secret := range []string{pinHex, macKey1[:16], secretKey} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("%s (%s): the error shows a key: %v", tc.name, env, err)
				}
			}
		}
	}
}
