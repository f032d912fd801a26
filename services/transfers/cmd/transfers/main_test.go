package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/seal/sealtest"
	"github.com/thumela/thumela/services/platform/service"
	"github.com/thumela/thumela/services/platform/service/servicetest"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// The binary's wiring, run in-process against fake identity, paymentmethods and fees gRPC
// servers: it migrates its schema, verifies tokens with identity's keys, serves its API,
// forwards the user's token to paymentmethods and fees, charges with its own service token,
// publishes every step to NATS within moments of the commit (and the notification requests,
// their secrets sealed and their outbox rows deleted once published), keeps working while NATS
// is down, and stops cleanly on SIGTERM.
func TestServesAndStopsOnSIGTERM(t *testing.T) {
	// Not parallel: it sets the environment and signals the process.
	env := newTestEnv(t)
	vars := env.vars()
	vars["TRANSFERS_WORKER_SWEEP"] = "1h" // only the commit's in-process wake-up can wake the worker
	vars["LOG_LEVEL"] = "error"
	// Tokens are verified with identity's keys (the fake serves env.signer's), not static ones.
	svc := servicetest.StartWith(t, "transfers", func(auth.KeySource) service.Spec { return spec(nil) },
		servicetest.Options{Env: vars, Signer: env.signer})
	svc.RequireMigrated(t)
	db, err := pgx.Connect(t.Context(), svc.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())

	user := uuid.NewString()
	client := transfersv1.NewTransfersServiceClient(svc.Conn)
	if _, err := client.ListTransfers(t.Context(), &transfersv1.ListTransfersRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("call without a token: %v, want Unauthenticated", err)
	}
	ctx := env.userContext(t, user)
	pm := uuid.NewString()
	env.peers.Payments.AddCard(user, pm, "Everyday Visa", "4242", testkit.TokenApprove)
	js := env.jetStream(t)
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
	for _, s := range env.peers.Seen() {
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

	// The recipient's SMS and the sender's receipt reach the notifications stream as requests,
	// the voucher number and PIN sealed to the notifications service; their outbox rows are
	// ephemeral: the relay deletes them once JetStream has them, while the transfer's events
	// stay, published, until the prune.
	sms, receipt := notificationsv1.Template_TEMPLATE_VOUCHER_ISSUED, notificationsv1.Template_TEMPLATE_TRANSFER_RECEIPT
	var requests []streamRequest
	testkit.Eventually(t, 30*time.Second, "the first transfer's notification requests on the stream", func() bool {
		requests = env.notificationRequests(t, js)
		got := requestsOf(requests, first)
		return got[sms] == 1 && got[receipt] == 1
	})
	var number, pinHash string
	if err := db.QueryRow(t.Context(), `SELECT voucher_number, voucher_pin_hash FROM transfers.transfers WHERE id = $1`, first).
		Scan(&number, &pinHash); err != nil {
		t.Fatal(err)
	}
	for _, r := range requests {
		if r.req.GetReference() != first || r.req.GetTemplate() != sms {
			continue
		}
		secrets := sealtest.OpenSecrets(t, env.sealKey, r.req)
		if r.subject != "thumela.notifications.transfers."+user+".sms" || secrets["voucher_number"] != number ||
			!testkit.PINHasher(t).Verify(pinHash, uuid.MustParse(first), secrets["pin"]) {
			t.Fatalf("SMS request on %s does not carry the voucher's number and PIN", r.subject)
		}
		if bytes.Contains(r.data, []byte(number)) {
			t.Fatal("the SMS request on the stream holds the voucher number in clear")
		}
	}
	testkit.Eventually(t, 10*time.Second, "the requests' outbox rows to be deleted", func() bool {
		var requests, published int
		err := db.QueryRow(t.Context(), `SELECT count(*) FILTER (WHERE subject LIKE 'thumela.notifications.%'),
			count(*) FILTER (WHERE subject LIKE 'thumela.transfers.%' AND published_at IS NOT NULL) FROM transfers.outbox`).
			Scan(&requests, &published)
		return err == nil && requests == 0 && published > 0
	})

	// NATS down: transfers still commit and complete; their events wait in the outbox.
	env.nats.Shutdown()
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
	env.nats.Restart()
	waitEvents(t, js, subject, second, 3)
	// Its requests follow, each once; and none stays in the outbox.
	testkit.Eventually(t, 30*time.Second, "the second transfer's notification requests on the stream", func() bool {
		got := requestsOf(env.notificationRequests(t, js), second)
		return got[sms] == 1 && got[receipt] == 1 && len(got) == 2
	})
	testkit.Eventually(t, 10*time.Second, "the requests' outbox rows to be deleted", func() bool {
		var n int
		return db.QueryRow(t.Context(), `SELECT count(*) FROM transfers.outbox WHERE subject LIKE 'thumela.notifications.%'`).Scan(&n) == nil && n == 0
	})

	svc.StopWithSIGTERM(t)
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
