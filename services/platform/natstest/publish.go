package natstest

import (
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/outbox"
)

// StartWithStreams starts a server whose streams exist, made as a release makes them (with the
// administrator's credentials): what a test of a service's consumer starts from.
func StartWithStreams(t testing.TB) *Server {
	t.Helper()
	s := Start(t)
	_, admin := s.Connect(t, bus.IdentityAdmin)
	if err := bus.EnsureStreams(t.Context(), admin); err != nil {
		t.Fatal(err)
	}
	return s
}

// Publish publishes ev on subject through js as a service's outbox relay does: marshalled, with
// its type in the event-type header.
func Publish(t testing.TB, js jetstream.JetStream, subject string, ev proto.Message) {
	t.Helper()
	data, err := proto.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	PublishData(t, js, subject, string(ev.ProtoReflect().Descriptor().FullName()), data)
}

// PublishData publishes data as it is, under the event type eventType (none when empty): for a
// message a consumer must survive (one that does not decode).
func PublishData(t testing.TB, js jetstream.JetStream, subject, eventType string, data []byte) {
	t.Helper()
	msg := nats.NewMsg(subject)
	msg.Data = data
	if eventType != "" {
		msg.Header.Set(outbox.HeaderEventType, eventType)
	}
	if _, err := js.PublishMsg(t.Context(), msg); err != nil {
		t.Fatal(err)
	}
}
