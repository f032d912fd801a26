package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/natstest"
	"github.com/thumela/thumela/services/platform/pgtest"
	"github.com/thumela/thumela/services/platform/service"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// The binary's wiring, run in-process against fake identity, paymentmethods and fees gRPC
// servers: it migrates its schema, verifies tokens with identity's keys, serves its API,
// forwards the user's token to paymentmethods and fees, charges with its own service token,
// publishes every step to NATS within moments of the commit, keeps working while NATS is
// down, and stops cleanly on SIGTERM.
func TestServesAndStopsOnSIGTERM(t *testing.T) {
	// Not parallel: it sets the environment and signals the process.
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	_ = lis.Close()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer := auth.Signer{KeyID: "test-key", Key: key}
	peers := testkit.StartPeers(t, signer)
	natsServer := natstest.Start(t)
	dbURL := pgtest.NewDatabase(t)
	t.Setenv("DATABASE_URL", dbURL)
	t.Setenv("NATS_URL", natsServer.URL())
	t.Setenv("TRANSFERS_GRPC_ADDR", addr)
	t.Setenv("IDENTITY_ADDR", peers.IdentityAddr)
	t.Setenv("PAYMENTMETHODS_ADDR", peers.PaymentMethodsAddr)
	t.Setenv("FEES_ADDR", peers.FeesAddr)
	t.Setenv("TRANSFERS_SERVICE_SECRET", testkit.ServiceSecret)
	t.Setenv("TRANSFERS_PIN_KEY", testkit.PINKey)
	t.Setenv("TRANSFERS_WORKER_SWEEP", "1h") // only the commit's in-process wake-up can wake the worker
	t.Setenv("LOG_LEVEL", "error")

	done := make(chan error, 1)
	go func() { done <- service.Run(context.Background(), spec(nil)) }()

	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	health := healthpb.NewHealthClient(conn)
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := health.Check(t.Context(), &healthpb.HealthCheckRequest{})
		if err == nil && res.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("health never SERVING: %v", err)
		}
		select {
		case err := <-done:
			t.Fatalf("service stopped early: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
	}

	db, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	var applied int
	if err := db.QueryRow(t.Context(), `SELECT count(*) FROM transfers.schema_migrations WHERE set_name IN ('transfers', 'outbox')`).Scan(&applied); err != nil {
		t.Fatalf("schema not migrated: %v", err)
	}
	if applied < 3 {
		t.Fatalf("%d migrations applied, want the outbox's and the service's", applied)
	}

	user := uuid.NewString()
	token, err := signer.Sign(auth.Claims{
		Subject: user, Kind: auth.KindUser, GivenName: "Thandi", FamilyName: "Nkosi",
		Issuer: service.TokenIssuer, ExpiresAt: time.Now().Add(5 * time.Minute),
	})
	if err != nil {
		t.Fatal(err)
	}
	client := transfersv1.NewTransfersServiceClient(conn)
	if _, err := client.ListTransfers(t.Context(), &transfersv1.ListTransfersRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("call without a token: %v, want Unauthenticated", err)
	}
	ctx := auth.WithBearer(t.Context(), token)
	pm := uuid.NewString()
	peers.Payments.AddCard(user, pm, "Everyday Visa", "4242", testkit.TokenApprove)

	nc, err := nats.Connect(natsServer.URL(), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	subject, _ := bus.Subject(bus.DomainTransfers, user, "status")

	// A transfer travels pending → processing → completed, and the browser's stream would see
	// each step moments after its commit.
	began := time.Now()
	res, err := client.CreateTransfer(ctx, testkit.Request("wizard-1", pm))
	if err != nil {
		t.Fatalf("CreateTransfer: %v", err)
	}
	first := res.GetTransfer().GetId()
	steps := waitEvents(t, js, subject, first, 3)
	t.Logf("pending → completed on NATS in %s", time.Since(began).Round(time.Millisecond))
	// The sweep is an hour: only the commit's in-process wake-up can have woken the worker.
	if steps[2].GetTransfer().GetStatus() != transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED || steps[2].GetTransfer().GetVoucher().GetNumber() == "" {
		t.Fatalf("last event = %v", steps[2])
	}
	// The user's token went to paymentmethods and fees; the charge went with the service's.
	callers := map[string]testkit.Seen{}
	for _, s := range peers.Seen() {
		callers[s.Method] = s
	}
	for method, want := range map[string]testkit.Seen{
		paymentmethodsv1.PaymentMethodsService_GetPaymentMethod_FullMethodName: {Kind: auth.KindUser, Subject: user},
		feesv1.FeesService_Quote_FullMethodName:                                {Kind: auth.KindUser, Subject: user},
		paymentmethodsv1.PaymentMethodsService_Charge_FullMethodName:           {Kind: auth.KindService, Subject: "transfers"},
	} {
		if got := callers[method]; got.Kind != want.Kind || got.Subject != want.Subject {
			t.Errorf("%s called as %s %q, want %s %q", method, got.Kind, got.Subject, want.Kind, want.Subject)
		}
	}

	// NATS down: transfers still commit and complete; their events wait in the outbox.
	natsServer.Shutdown()
	res, err = client.CreateTransfer(ctx, testkit.Request("wizard-2", pm))
	if err != nil {
		t.Fatalf("CreateTransfer with NATS down: %v", err)
	}
	second := res.GetTransfer().GetId()
	testkit.Eventually(t, 30*time.Second, "the second transfer to complete with NATS down", func() bool {
		got, err := client.GetTransfer(ctx, &transfersv1.GetTransferRequest{TransferId: second})
		return err == nil && got.GetTransfer().GetStatus() == transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED
	})
	var waiting int
	if err := db.QueryRow(t.Context(), `SELECT count(*) FROM transfers.outbox WHERE published_at IS NULL`).Scan(&waiting); err != nil || waiting == 0 {
		t.Fatalf("%d events waiting in the outbox (%v), want the second transfer's", waiting, err)
	}
	natsServer.Restart()
	waitEvents(t, js, subject, second, 3)

	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("stop after SIGTERM: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("service did not stop after SIGTERM")
	}
}

// waitEvents reads subject from the start of the stream until n status events of transferID
// have arrived, in order.
func waitEvents(t *testing.T, js jetstream.JetStream, subject, transferID string, n int) []*transfersv1.TransferStatusChanged {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if evs := readEvents(t, js, subject, transferID); len(evs) >= n {
			return evs
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("fewer than %d events of %s on %s", n, transferID, subject)
	return nil
}

func readEvents(t *testing.T, js jetstream.JetStream, subject, transferID string) []*transfersv1.TransferStatusChanged {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	cons, err := js.OrderedConsumer(ctx, bus.StreamEvents, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subject}})
	if err != nil {
		return nil
	}
	var out []*transfersv1.TransferStatusChanged
	for {
		batch, err := cons.FetchNoWait(100)
		if err != nil {
			return out
		}
		got := 0
		for msg := range batch.Messages() {
			got++
			var ev transfersv1.TransferStatusChanged
			if err := proto.Unmarshal(msg.Data(), &ev); err != nil {
				t.Fatal(err)
			}
			if ev.GetTransfer().GetId() == transferID {
				out = append(out, &ev)
			}
		}
		if got == 0 {
			return out
		}
	}
}
