package main

import (
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/google/uuid"
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
