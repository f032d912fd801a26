// Package sealtest is the notifications service's side of seal for tests: a fresh key pair
// (the services that write notification requests seal their secrets to its public half, the
// notifications service opens them with the private one) and the opening of a request's
// secrets, so that identity's and transfers' tests read the codes and PINs they wrote as the
// notifications service would.
package sealtest

import (
	"testing"

	"google.golang.org/protobuf/proto"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/platform/seal"
)

// NewKey returns a fresh notifications key pair: give its Public() to what seals (or its
// Public().String() to a binary as NOTIFICATIONS_SEAL_PUBLIC_KEY), and the key itself to
// OpenSecrets.
func NewKey(t testing.TB) seal.PrivateKey {
	t.Helper()
	k, err := seal.GenerateKey("test-notifications")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// OpenSecrets opens req's sealed secrets with key, as the notifications service does, and
// fails the test if they do not open.
func OpenSecrets(t testing.TB, key seal.PrivateKey, req *notificationsv1.NotificationRequest) map[string]string {
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
