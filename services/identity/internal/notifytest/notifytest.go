// Package notifytest lets identity's tests read the one-time codes of the e-mail requests
// identity writes, as the notifications service does: by opening their sealed secrets with
// the private half of the key pair the test configured.
package notifytest

import (
	"testing"

	"google.golang.org/protobuf/proto"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/platform/seal"
)

// NewKey returns a fresh notifications key pair; give its Public().String() to identity as
// NOTIFICATIONS_SEAL_PUBLIC_KEY.
func NewKey(t testing.TB) seal.PrivateKey {
	t.Helper()
	k, err := seal.GenerateKey("test-notifications")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// Secrets opens req's sealed secrets with key and fails the test if they do not open.
func Secrets(t testing.TB, key seal.PrivateKey, req *notificationsv1.NotificationRequest) map[string]string {
	t.Helper()
	kr, err := seal.NewKeyring(key)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := kr.Open(seal.Sealed{KeyID: req.GetSecrets().GetKeyId(), Box: req.GetSecrets().GetBox()})
	if err != nil {
		t.Fatalf("request %s: secrets: %v", req.GetId(), err)
	}
	var s notificationsv1.Secrets
	if err := proto.Unmarshal(plain, &s); err != nil {
		t.Fatalf("request %s: secrets: %v", req.GetId(), err)
	}
	return s.GetValues()
}
