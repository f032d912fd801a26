package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/natstest"
	"github.com/thumela/thumela/services/platform/seal"
	"github.com/thumela/thumela/services/platform/seal/sealtest"
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
	// sealKey stands for the notifications service's key pair: the binary seals to its public
	// half, the test opens with the private one.
	sealKey seal.PrivateKey
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	signer := servicetest.NewSigner(t)
	return &testEnv{signer: signer, peers: testkit.StartPeers(t, signer), nats: natstest.Start(t), sealKey: sealtest.NewKey(t)}
}

// vars are the variables naming the peers and NATS, and the secrets the binary needs; each
// test adds its own database, address and tuning.
func (e *testEnv) vars() map[string]string {
	return map[string]string{
		"NATS_URL":                      e.nats.URL(),
		"NATS_NKEY_SEED_FILE":           e.nats.SeedFile("transfers"),
		"IDENTITY_ADDR":                 e.peers.IdentityAddr,
		"PAYMENTMETHODS_ADDR":           e.peers.PaymentMethodsAddr,
		"FEES_ADDR":                     e.peers.FeesAddr,
		"TRANSFERS_SERVICE_SECRET":      testkit.ServiceSecret,
		"TRANSFERS_PIN_KEY":             testkit.PINKey,
		"NOTIFICATIONS_SEAL_PUBLIC_KEY": e.sealKey.Public().String(),
	}
}

// userContext returns the test's context carrying a user token for user, with an e-mail
// address (testkit.SenderEmail) and a step-up made now (so it may create any transfer), signed
// with the key identity (the fake) serves.
func (e *testEnv) userContext(t *testing.T, user string) context.Context {
	t.Helper()
	claims := servicetest.SteppedUp(servicetest.UserClaims(user))
	claims.Email = testkit.SenderEmail
	return servicetest.BearerContext(t, e.signer, claims)
}

// streamRequest is one notification request on the THUMELA_NOTIFICATIONS stream.
type streamRequest struct {
	subject string
	data    []byte
	req     *notificationsv1.NotificationRequest
}

// notificationRequests reads every request on the notifications stream without consuming it
// (a work queue: nothing else consumes it in these tests, so they all stay).
func (e *testEnv) notificationRequests(t *testing.T, js jetstream.JetStream) []streamRequest {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	stream, err := js.Stream(ctx, bus.StreamNotifications)
	if err != nil {
		return nil // not created yet
	}
	info, err := stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []streamRequest
	for seq := info.State.FirstSeq; info.State.Msgs > 0 && seq <= info.State.LastSeq; seq++ {
		msg, err := stream.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		r := streamRequest{subject: msg.Subject, data: msg.Data, req: &notificationsv1.NotificationRequest{}}
		if err := proto.Unmarshal(msg.Data, r.req); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// requestsOf counts the requests of each template about transferID.
func requestsOf(rs []streamRequest, transferID string) map[notificationsv1.Template]int {
	out := map[notificationsv1.Template]int{}
	for _, r := range rs {
		if r.req.GetReference() == transferID {
			out[r.req.GetTemplate()]++
		}
	}
	return out
}

// jetStream connects to the embedded NATS, reconnecting across its restarts.
func (e *testEnv) jetStream(t *testing.T) jetstream.JetStream {
	t.Helper()
	// The test only reads the streams: as the dev tools' read-only identity.
	nc, err := nats.Connect(e.nats.URL(), append(e.nats.Options(bus.IdentityObserver), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))...)
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
