package natstest_test

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/natstest"
)

func TestRunServesJetStream(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	if nc, err := nats.Connect(srv.URL()); err == nil {
		nc.Close()
		t.Fatal("the server let a client without credentials in")
	}
	nc, err := nats.Connect(srv.URL(), srv.Options(bus.IdentityAdmin)...)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.AccountInfo(t.Context()); err != nil {
		t.Fatalf("JetStream not enabled: %v", err)
	}
}

func TestRestartKeepsPortAndStreams(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	url := srv.URL()
	nc, err := nats.Connect(url, append(srv.Options(bus.IdentityAdmin), nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond))...)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	if _, err := js.CreateStream(t.Context(), jetstream.StreamConfig{Name: "S", Subjects: []string{"s.>"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(t.Context(), "s.1", []byte("kept")); err != nil {
		t.Fatal(err)
	}

	srv.Restart()
	if srv.URL() != url {
		t.Fatalf("URL changed across Restart: %s → %s", url, srv.URL())
	}
	var msg *jetstream.RawStreamMsg
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, err := js.Stream(t.Context(), "S")
		if err == nil {
			if msg, err = s.GetMsg(t.Context(), 1); err == nil {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("stream message not back after restart: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if string(msg.Data) != "kept" {
		t.Fatalf("message = %q", msg.Data)
	}
	srv.Shutdown()
	srv.Shutdown() // idempotent
}
