package stack

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/thumela/thumela/services/cashout/atmnet"
	"github.com/thumela/thumela/services/platform/seal"
)

func TestDevSecretsAreMadeOnceAndKept(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "dev-secrets.json")
	first, err := loadDevSecrets(path)
	if err != nil {
		t.Fatal(err)
	}
	for name := range devSecrets {
		if first[name] == "" {
			t.Errorf("%s was not made", name)
		}
	}
	again, err := loadDevSecrets(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range first {
		if again[name] != v {
			t.Errorf("%s changed between two starts", name)
		}
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("dev-secrets.json: %v, %v", info, err)
	}

	// Producers seal to the public half of the key notifications opens with.
	keys, err := seal.ParseKeyring([]string{first["NOTIFICATIONS_SEAL_KEYS"]})
	if err != nil {
		t.Fatal(err)
	}
	pub, err := seal.ParsePublicKey(first["NOTIFICATIONS_SEAL_PUBLIC_KEY"])
	if err != nil {
		t.Fatal(err)
	}
	box, err := seal.Seal(pub, []byte("PIN 1234"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := keys.Open(box); err != nil || string(got) != "PIN 1234" {
		t.Errorf("a box sealed to NOTIFICATIONS_SEAL_PUBLIC_KEY does not open with NOTIFICATIONS_SEAL_KEYS: %q, %v", got, err)
	}
	// The webhook token sits in a URL path as it is.
	if tok := first["NOTIFICATIONS_WEBHOOK_TOKEN"]; url.PathEscape(tok) != tok || len(tok) < 32 {
		t.Errorf("webhook token %q is not a long URL-safe token", tok)
	}
	// The private key and the providers' credentials go to notifications alone; its public key
	// to everyone. The zone PIN key and the atm-gateway secret go to cashout alone.
	if secretOwner["NOTIFICATIONS_SEAL_KEYS"] != "notifications" || secretOwner["NOTIFICATIONS_SEAL_PUBLIC_KEY"] != "" {
		t.Error("secretOwner is wrong about the seal keys")
	}
	if secretOwner["CASHOUT_ZONE_PIN_KEYS"] != "cashout" || secretOwner["CASHOUT_SERVICE_SECRET"] != "cashout" {
		t.Error("secretOwner is wrong about the gateway's secrets")
	}
	for name, owner := range secretOwner {
		if _, ok := devSecrets[name]; !ok {
			t.Errorf("%s is %s's alone but no dev secret", name, owner)
		}
		if !slices.Contains(Services, owner) && owner != onCallTools {
			t.Errorf("%s belongs to %q, not a service of the stack", name, owner)
		}
	}

	// The gateway and the dev ATM read the zone PIN key as CASHOUT_ZONE_PIN_KEYS says: one
	// AES-256 key, whose id DE 53 can carry.
	zone, err := atmnet.ParseZoneKeys(strings.Split(first["CASHOUT_ZONE_PIN_KEYS"], ","))
	if err != nil {
		t.Fatalf("CASHOUT_ZONE_PIN_KEYS: %v", err)
	}
	if ids := zone.IDs(); len(ids) != 1 || !strings.HasPrefix(ids[0], "dev-") {
		t.Errorf("zone PIN key ids %v", ids)
	}
	if _, hexKey, _ := strings.Cut(first["CASHOUT_ZONE_PIN_KEYS"], ":"); len(hexKey) != 64 {
		t.Errorf("the zone PIN key is %d hex digits, want 64 (AES-256)", len(hexKey))
	}
	// Identity lets the gateway in as atm-gateway with its secret.
	want := "atm-gateway=" + first["CASHOUT_SERVICE_SECRET"]
	if !slices.Contains(strings.Split(first["IDENTITY_SERVICE_SECRETS"], ","), want) {
		t.Errorf("IDENTITY_SERVICE_SECRETS has no %s entry", "atm-gateway")
	}
}

// A data folder from before notifications existed keeps its secrets and gains the new ones.
func TestDevSecretsAddsTheMissingOnes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "dev-secrets.json")
	old := map[string]string{"IDENTITY_SIGNING_KEY": "a2VlcA==", "BFF_SERVICE_SECRET": "b2xk"}
	b, _ := json.Marshal(old)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := loadDevSecrets(path)
	if err != nil {
		t.Fatal(err)
	}
	if got["IDENTITY_SIGNING_KEY"] != "a2VlcA==" || got["BFF_SERVICE_SECRET"] != "b2xk" {
		t.Error("existing secrets were replaced")
	}
	if got["NOTIFICATIONS_SEAL_KEYS"] == "" || got["NOTIFICATIONS_BULKSMS_TOKEN_SECRET"] == "" || got["CASHOUT_ZONE_PIN_KEYS"] == "" || got["CASHOUT_SERVICE_SECRET"] == "" {
		t.Error("the new secrets were not added")
	}
	if got["IDENTITY_SERVICE_SECRETS"] != "transfers="+got["TRANSFERS_SERVICE_SECRET"]+",bff=b2xk,atm-gateway="+got["CASHOUT_SERVICE_SECRET"]+",oncall="+got["ONCALL_SERVICE_SECRET"] || got["ONCALL_SERVICE_SECRET"] == "" {
		t.Errorf("IDENTITY_SERVICE_SECRETS = %q", got["IDENTITY_SERVICE_SECRETS"])
	}
	var onDisk map[string]string
	b, _ = os.ReadFile(path)
	_ = json.Unmarshal(b, &onDisk)
	if onDisk["NOTIFICATIONS_SEAL_KEYS"] != got["NOTIFICATIONS_SEAL_KEYS"] {
		t.Error("the new secrets were not kept")
	}
}
