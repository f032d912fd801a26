package server_test

import (
	"context"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	"github.com/thumela/thumela/services/platform/bus"
)

func TestAnalyticsValidatesAndPublishes(t *testing.T) {
	t.Parallel()
	js := jetStream(t)
	srv, _, _ := newBFFWithBus(t, js)
	_, hc := client(t, srv)
	analytics := bffv1connect.NewAnalyticsServiceClient(hc, srv.URL)
	ctx := context.Background()

	// A signed-out visitor naming a user's id in the properties (or as its anonymous id) files
	// nothing under that user: the subject is anon-<anonymous id>, and user_id is dropped.
	props, _ := structpb.NewStruct(map[string]any{"referrer": "direct", "landing_page_version": "1.0",
		"user_id": "0193a6f0-0000-7000-8000-000000000001"})
	res, err := analytics.Track(ctx, &bffv1.TrackRequest{
		AnonymousId: "anon_1234567890",
		Events:      []*bffv1.AnalyticsEvent{{Name: "landing_page_viewed", Properties: props, Url: "http://localhost/"}},
	})
	if err != nil || res.GetAccepted() != 1 {
		t.Fatalf("Track = %v, %v", res, err)
	}

	cons, err := js.OrderedConsumer(ctx, bus.StreamAnalytics, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	msg, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if msg.Subject() != "thumela.analytics.anon-anon_1234567890.event" {
		t.Fatalf("subject = %q", msg.Subject())
	}
	var got bffv1.AnalyticsEvent
	if err := proto.Unmarshal(msg.Data(), &got); err != nil || got.GetName() != "landing_page_viewed" {
		t.Fatalf("event = %v, %v", &got, err)
	}
	if _, ok := got.GetProperties().GetFields()["user_id"]; ok {
		t.Fatalf("a signed-out visitor's user_id was kept: %v", got.GetProperties())
	}

	bad := []*bffv1.TrackRequest{
		{AnonymousId: "anon_1234567890", Events: []*bffv1.AnalyticsEvent{{Name: "bitcoin_mined"}}},
		{AnonymousId: "bad.id", Events: []*bffv1.AnalyticsEvent{{Name: "js_error"}}},
		{AnonymousId: "anon_1234567890", Events: make([]*bffv1.AnalyticsEvent, 51)},
	}
	for i := range bad[2].Events {
		bad[2].Events[i] = &bffv1.AnalyticsEvent{Name: "js_error"}
	}
	for _, req := range bad {
		if _, err := analytics.Track(ctx, req); connect.CodeOf(err) != connect.CodeInvalidArgument {
			t.Errorf("Track(%d events, first %q) = %v, want InvalidArgument", len(req.GetEvents()), req.GetEvents()[0].GetName(), err)
		}
	}
}
