package main

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/platform/config"
	"github.com/thumela/thumela/services/platform/seal/sealtest"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

func newPINKey(t *testing.T) string {
	t.Helper()
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// TestPINKeyRotation: after a rotation (the old key moved to TRANSFERS_RETIRED_PIN_KEYS), the
// PINs of vouchers issued under the old key still verify, new ones use the new key, and a bad
// retired key is refused at start, named by its variable and position, never its value.
func TestPINKeyRotation(t *testing.T) {
	t.Parallel()
	oldKey, newKey := newPINKey(t), newPINKey(t)
	before, err := (&Config{PINKey: oldKey}).pinHasher()
	if err != nil {
		t.Fatal(err)
	}
	transfer := uuid.New()
	issued := before.Hash(transfer, "4821")

	withoutRetired, err := (&Config{PINKey: newKey}).pinHasher()
	if err != nil {
		t.Fatal(err)
	}
	if withoutRetired.Verify(issued, transfer, "4821") {
		t.Fatal("a PIN issued under a key the config no longer has verified")
	}

	after, err := (&Config{PINKey: newKey, RetiredPINKeys: []string{oldKey}}).pinHasher()
	if err != nil {
		t.Fatal(err)
	}
	if !after.Verify(issued, transfer, "4821") || after.Verify(issued, transfer, "4822") {
		t.Fatal("after the rotation the outstanding voucher's PIN does not verify as it should")
	}
	if after.KeyID() == before.KeyID() {
		t.Fatal("new vouchers still use the retired key")
	}

	_, err = (&Config{PINKey: newKey, RetiredPINKeys: []string{oldKey, "not-base64!"}}).pinHasher()
	if err == nil || !strings.Contains(err.Error(), "TRANSFERS_RETIRED_PIN_KEYS[1]") || strings.Contains(err.Error(), "not-base64") {
		t.Fatalf("a bad retired key: %v", err)
	}
}

// TestNotificationsSealKey: NOTIFICATIONS_SEAL_PUBLIC_KEY (no prefix) is required, a
// malformed one is refused at start, named by its variable, and a good one is what the
// repository seals to.
func TestNotificationsSealKey(t *testing.T) {
	t.Parallel()
	key := sealtest.NewKey(t)
	env := map[string]string{
		"DATABASE_URL":                  "postgres://x@localhost/db",
		"IDENTITY_ADDR":                 "127.0.0.1:1",
		"PAYMENTMETHODS_ADDR":           "127.0.0.1:2",
		"FEES_ADDR":                     "127.0.0.1:3",
		"TRANSFERS_SERVICE_SECRET":      testkit.ServiceSecret,
		"TRANSFERS_PIN_KEY":             testkit.PINKey,
		"NOTIFICATIONS_SEAL_PUBLIC_KEY": key.Public().String(),
	}
	var cfg Config
	if err := config.LoadWith(config.MapLookup(env), "TRANSFERS", &cfg); err != nil {
		t.Fatal(err)
	}
	if err := cfg.validate(); err != nil {
		t.Fatal(err)
	}
	if got, err := cfg.sealTo(); err != nil || got != key.Public() {
		t.Fatalf("sealing to %q (%v), want the configured key", got.ID, err)
	}

	without := maps.Clone(env)
	delete(without, "NOTIFICATIONS_SEAL_PUBLIC_KEY")
	var missing Config
	if err := config.LoadWith(config.MapLookup(without), "TRANSFERS", &missing); !errors.Is(err, config.ErrMissing) {
		t.Fatalf("no key: %v", err)
	}

	for _, bad := range []string{"no-key-id", "k1:c2hvcnQ=", ":" + strings.SplitN(key.Public().String(), ":", 2)[1]} {
		c := cfg
		c.NotificationsSealPublicKey = bad
		if err := c.validate(); err == nil || !strings.Contains(err.Error(), "NOTIFICATIONS_SEAL_PUBLIC_KEY") {
			t.Errorf("key %q: %v", bad, err)
		}
	}
}
