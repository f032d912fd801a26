package server_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/natstest"
)

func jetStream(t *testing.T) jetstream.JetStream {
	t.Helper()
	url := natstest.Run(t)
	nc, js, err := bus.Connect(context.Background(), url, "bff-test", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if err := bus.EnsureStreams(context.Background(), js); err != nil {
		t.Fatal(err)
	}
	return js
}

func publish(t *testing.T, js jetstream.JetStream, subject string, m proto.Message) {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(context.Background(), subject, b); err != nil {
		t.Fatal(err)
	}
}

func signedIn(t *testing.T, hc *http.Client, base string) bffv1connect.EventsServiceClient {
	t.Helper()
	auth := bffv1connect.NewAuthServiceClient(hc, base)
	if _, err := auth.SignIn(context.Background(), &bffv1.SignInRequest{Email: "thandi@example.co.za", Password: "right-password"}); err != nil {
		t.Fatal(err)
	}
	return bffv1connect.NewEventsServiceClient(hc, base)
}

// next reads the stream's next non-heartbeat event.
func next(t *testing.T, s *connect.ServerStreamForClient[bffv1.WatchEventsResponse]) *bffv1.WatchEventsResponse {
	t.Helper()
	for s.Receive() {
		if s.Msg().GetHeartbeat() == nil {
			return s.Msg()
		}
	}
	t.Fatalf("stream ended: %v", s.Err())
	return nil
}

func TestLiveEventsCarryOnlyTheUsersOwnEventsAndResume(t *testing.T) {
	t.Parallel()
	js := jetStream(t)
	srv, _, _ := newBFFWithBus(t, js)
	_, hc := client(t, srv)
	events := signedIn(t, hc, srv.URL)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stream, err := events.WatchEvents(ctx, &bffv1.WatchEventsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	// The first message is a heartbeat with the starting cursor.
	if !stream.Receive() || stream.Msg().GetHeartbeat() == nil {
		t.Fatalf("first message is not a heartbeat: %v %v", stream.Msg(), stream.Err())
	}

	// Another user's event first: it must never arrive. Then the user's own (u1, the fake
	// identity's user).
	publish(t, js, "thumela.transfers.u2.status", &transfersv1.TransferStatusChanged{Transfer: &transfersv1.Transfer{Id: "not-yours", UserId: "u2"}})
	publish(t, js, "thumela.transfers.u1.status", &transfersv1.TransferStatusChanged{Transfer: &transfersv1.Transfer{
		Id: "t1", UserId: "u1", Status: transfersv1.TransferStatus_TRANSFER_STATUS_PROCESSING, AmountCents: 15000,
	}})
	got := next(t, stream)
	if id := got.GetTransferUpdated().GetTransfer().GetId(); id != "t1" {
		t.Fatalf("first event is %v, want transfer t1", got)
	}
	if got.GetTransferUpdated().GetTransfer().GetStatus() != bffv1.TransferStatus_TRANSFER_STATUS_PROCESSING {
		t.Fatalf("status = %v", got.GetTransferUpdated().GetTransfer().GetStatus())
	}
	cursor := got.GetCursor()
	cancel()

	// While the tab is away, two more events happen; reconnecting with the cursor gets both,
	// in order.
	publish(t, js, "thumela.transfers.u1.status", &transfersv1.TransferStatusChanged{Transfer: &transfersv1.Transfer{
		Id: "t1", UserId: "u1", Status: transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED,
	}})
	publish(t, js, "thumela.profiles.u1.updated", &profilesv1.ProfileUpdated{Profile: &profilesv1.Profile{UserId: "u1", FirstName: "Thandeka"}})

	ctx2, cancel2 := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel2()
	resumed, err := events.WatchEvents(ctx2, &bffv1.WatchEventsRequest{ResumeAfter: cursor})
	if err != nil {
		t.Fatal(err)
	}
	first := next(t, resumed)
	if first.GetTransferUpdated().GetTransfer().GetStatus() != bffv1.TransferStatus_TRANSFER_STATUS_COMPLETED {
		t.Fatalf("resumed first = %v", first)
	}
	second := next(t, resumed)
	if second.GetProfileUpdated().GetProfile().GetFirstName() != "Thandeka" {
		t.Fatalf("resumed second = %v", second)
	}
}

func TestLiveEventsNeedASession(t *testing.T) {
	t.Parallel()
	js := jetStream(t)
	srv, _, _ := newBFFWithBus(t, js)
	_, hc := client(t, srv)
	events := bffv1connect.NewEventsServiceClient(hc, srv.URL)
	stream, err := events.WatchEvents(context.Background(), &bffv1.WatchEventsRequest{})
	if err == nil {
		for stream.Receive() {
		}
		err = stream.Err()
	}
	if connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("err = %v, want Unauthenticated", err)
	}
}
