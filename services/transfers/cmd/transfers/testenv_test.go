package main

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/natstest"
	"github.com/thumela/thumela/services/platform/service/servicetest"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// testEnv is what both the in-process test and the crash test run the binary against: fake
// identity, paymentmethods and fees servers that trust signer's tokens, and an embedded NATS
// the test can stop and restart.
type testEnv struct {
	signer auth.Signer
	peers  *testkit.Peers
	nats   *natstest.Server
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	signer := servicetest.NewSigner(t)
	return &testEnv{signer: signer, peers: testkit.StartPeers(t, signer), nats: natstest.Start(t)}
}

// vars are the variables naming the peers and NATS, and the secrets the binary needs; each
// test adds its own database, address and tuning.
func (e *testEnv) vars() map[string]string {
	return map[string]string{
		"NATS_URL":                 e.nats.URL(),
		"IDENTITY_ADDR":            e.peers.IdentityAddr,
		"PAYMENTMETHODS_ADDR":      e.peers.PaymentMethodsAddr,
		"FEES_ADDR":                e.peers.FeesAddr,
		"TRANSFERS_SERVICE_SECRET": testkit.ServiceSecret,
		"TRANSFERS_PIN_KEY":        testkit.PINKey,
	}
}

// userContext returns the test's context carrying a user token for user, signed with the key
// identity (the fake) serves.
func (e *testEnv) userContext(t *testing.T, user string) context.Context {
	t.Helper()
	return servicetest.BearerContext(t, e.signer, servicetest.UserClaims(user))
}

// jetStream connects to the embedded NATS, reconnecting across its restarts.
func (e *testEnv) jetStream(t *testing.T) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(e.nats.URL(), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}
