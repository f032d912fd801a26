package stack

import (
	"encoding/base64"
	"encoding/json"
	"maps"
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
	for _, name := range append(slices.Collect(maps.Keys(devSecrets)), derivedOwnSecrets...) {
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
	if secretOwner["CASHOUT_ZONE_PIN_KEYS"] != "cashout" || secretOwner["CASHOUT_ZONE_MAC_KEYS"] != "cashout" || secretOwner["CASHOUT_SERVICE_SECRET"] != "cashout" {
		t.Error("secretOwner is wrong about the gateway's secrets")
	}
	// The one-time codes' key goes to identity alone, and is long enough for it.
	if secretOwner["IDENTITY_CODE_KEY"] != "identity" {
		t.Error("secretOwner is wrong about identity's code key")
	}
	if k, err := base64.StdEncoding.DecodeString(first["IDENTITY_CODE_KEY"]); err != nil || len(k) < 32 {
		t.Errorf("IDENTITY_CODE_KEY is not the base64 of at least 32 bytes (%d bytes, %v)", len(k), err)
	}
	for name, owner := range secretOwner {
		if _, ok := devSecrets[name]; !ok && !slices.Contains(derivedOwnSecrets, name) {
			t.Errorf("%s is %s's alone but no dev secret", name, owner)
		}
		if !slices.Contains(Services, owner) && owner != onCallTools {
			t.Errorf("%s belongs to %q, not a service of the stack", name, owner)
		}
	}

	// The gateway and the dev ATM read the zone keys as CASHOUT_ZONE_PIN_KEYS and
	// CASHOUT_ZONE_MAC_KEYS say: one AES-256 PIN key, whose id DE 53 can carry, issued to the
	// five banks the dev ATM plays, and an AES-256 MAC key of the same id.
	zones, err := devZones(first)
	if err != nil {
		t.Fatal(err)
	}
	if ids := zones.IDs(); len(ids) != 1 || !strings.HasPrefix(ids[0], "dev-") {
		t.Errorf("zone key ids %v", ids)
	}
	for _, a := range []string{atmnet.AcquirerStandardBank, atmnet.AcquirerABSA, atmnet.AcquirerFNB, atmnet.AcquirerNedbank, atmnet.AcquirerCapitec} {
		if err := zones.Current().CheckAcquirer(a); err != nil {
			t.Errorf("the dev zone keys do not speak for %s: %v", a, err)
		}
	}
	if parts := strings.Split(first["CASHOUT_ZONE_PIN_KEYS"], ":"); len(parts) != 3 || len(parts[1]) != 64 {
		t.Errorf("the zone PIN key is not <id>:<64 hex digits (AES-256)>:<acquirers>")
	}
	if parts := strings.Split(first["CASHOUT_ZONE_MAC_KEYS"], ":"); len(parts) != 2 || len(parts[1]) != 64 {
		t.Errorf("the zone MAC key is not <id>:<64 hex digits (AES-256)>")
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
	if got["NOTIFICATIONS_SEAL_KEYS"] == "" || got["NOTIFICATIONS_BULKSMS_TOKEN_SECRET"] == "" || got["CASHOUT_ZONE_PIN_KEYS"] == "" ||
		got["CASHOUT_SERVICE_SECRET"] == "" || got["IDENTITY_CODE_KEY"] == "" {
		t.Error("the new secrets were not added")
	}
	if got["IDENTITY_SERVICE_SECRETS"] != "transfers="+got["TRANSFERS_SERVICE_SECRET"]+",bff=b2xk,atm-gateway="+got["CASHOUT_SERVICE_SECRET"]+",oncall="+got["ONCALL_SERVICE_SECRET"] || got["ONCALL_SERVICE_SECRET"] == "" {
		t.Errorf("IDENTITY_SERVICE_SECRETS = %q", got["IDENTITY_SERVICE_SECRETS"])
	}
	var onDisk map[string]string
	b, _ = os.ReadFile(path)
	_ = json.Unmarshal(b, &onDisk)
	if onDisk["NOTIFICATIONS_SEAL_KEYS"] != got["NOTIFICATIONS_SEAL_KEYS"] || onDisk["IDENTITY_CODE_KEY"] != got["IDENTITY_CODE_KEY"] {
		t.Error("the new secrets were not kept")
	}
}

// A data folder from before the zone keys were bound and MAC'd ("<id>:<key>" alone) keeps its
// PIN key, gets it bound to the dev ATM's five banks and gains a MAC key of its id, so that
// `make run` goes on working with the data it has.
func TestDevSecretsBindAndMACAnOldZoneKey(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "dev-secrets.json")
	const oldKey = "dev-20251101:" + "7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e"
	b, _ := json.Marshal(map[string]string{"CASHOUT_ZONE_PIN_KEYS": oldKey})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := loadDevSecrets(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got["CASHOUT_ZONE_PIN_KEYS"], oldKey+":") {
		t.Errorf("the old zone PIN key was not kept and bound: %d characters", len(got["CASHOUT_ZONE_PIN_KEYS"]))
	}
	zones, err := devZones(got)
	if err != nil {
		t.Fatal(err)
	}
	if zones.Current().ID() != "dev-20251101" || zones.Current().MAC.ID() != "dev-20251101" || zones.Current().CheckAcquirer(atmnet.AcquirerCapitec) != nil {
		t.Errorf("zone keys %v, acquirers %v", zones.IDs(), zones.Current().Acquirers())
	}
	again, err := loadDevSecrets(path)
	if err != nil {
		t.Fatal(err)
	}
	if again["CASHOUT_ZONE_MAC_KEYS"] != got["CASHOUT_ZONE_MAC_KEYS"] || again["CASHOUT_ZONE_PIN_KEYS"] != got["CASHOUT_ZONE_PIN_KEYS"] {
		t.Error("the zone keys changed between two starts")
	}
}
