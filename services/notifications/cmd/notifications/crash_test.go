package main

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/notifications/internal/testkit"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/natstest"
	"github.com/thumela/thumela/services/platform/pgtest"
	"github.com/thumela/thumela/services/platform/service/servicetest"
)

// The real binary, killed with SIGKILL (NOTIFICATIONS_CRASHPOINT=after_send) after the
// provider accepted a message and before the result was recorded, then restarted: the request
// comes back from JetStream and is sent again, and the repeat is harmless. The SMS is
// resubmitted with the delivery's deduplication id and BulkSMS sends nothing new; the e-mail
// is resent with the same Message-ID and the mailbox keeps one copy. Each delivery ends final,
// each status announced once.
func TestSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := servicetest.BuildBinary(t, ".")
	for _, channel := range []string{"sms", "email"} {
		t.Run(channel, func(t *testing.T) {
			t.Parallel()
			crashTest(t, bin, channel)
		})
	}
}

func crashTest(t *testing.T, bin, channel string) {
	// No automatic delivery report: one arriving before the redelivery would settle the
	// delivery by itself (a path the webhook's tests cover), and the repeat would not be tried.
	p := newPeers(t, false)
	nats := natstest.Start(t)
	dbURL := pgtest.NewDatabase(t)
	addr := servicetest.FreeAddr(t)
	env := os.Environ()
	for k, v := range p.vars(t) {
		env = append(env, k+"="+v)
	}
	env = append(env,
		"DATABASE_URL="+dbURL,
		"NATS_URL="+nats.URL(),
		"NATS_NKEY_SEED_FILE="+nats.SeedFile("notifications"),
		"NOTIFICATIONS_GRPC_ADDR="+addr,
		"NOTIFICATIONS_SEND_TIMEOUT=1s", // AckWait 3s: the request comes back 3s after the crash
		"NOTIFICATIONS_SHUTDOWN_TIMEOUT=5s",
		"LOG_LEVEL=warn",
	)

	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	nc, js, err := bus.Connect(ctx, nats.URL(), "test", testkit.Discard, bus.WithCredentials(nats.Credentials(bus.IdentityAdmin)))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if err := bus.EnsureStreams(ctx, js); err != nil {
		t.Fatal(err)
	}
	user := uuid.NewString()
	const phone, email = "+27821234567", "thandi@example.co.za"
	var req *notificationsv1.NotificationRequest
	if channel == "sms" {
		req = testkit.VoucherRequest(t, p.key.Public(), user, phone, "TH-CRASH")
	} else {
		req = testkit.CodeRequest(t, p.key.Public(), user, email, "482913")
	}
	testkit.Publish(t, js, req)

	conn := servicetest.Dial(t, addr)
	first := servicetest.StartChild(t, bin, append(env, crashPointVar+"=after_send"), "first.log")
	first.RequireKilledBySIGKILL(t, 30*time.Second)

	// The provider has the message; the delivery does not know it.
	if channel == "sms" {
		if n := p.sms.Submissions(phone); n != 1 {
			t.Fatalf("%d SMS submissions before the crash, want 1", n)
		}
	} else if n := p.smtp.Accepted(email); n != 1 {
		t.Fatalf("%d e-mails accepted before the crash, want 1", n)
	}
	db, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	var status string
	var attempts int
	if err := db.QueryRow(t.Context(), `SELECT status, attempts FROM notifications.deliveries WHERE request_id = $1`,
		req.GetId()).Scan(&status, &attempts); err != nil {
		t.Fatal(err)
	}
	if status != "queued" || attempts != 1 {
		t.Fatalf("after the crash: %s after %d attempts, want queued after 1", status, attempts)
	}

	second := servicetest.StartChild(t, bin, env, "second.log")
	second.WaitServing(t, conn)
	waitStatus := func(want string) {
		deadline := time.Now().Add(30 * time.Second)
		for status != want {
			if time.Now().After(deadline) {
				t.Fatalf("delivery %s, want %s", status, want)
			}
			time.Sleep(50 * time.Millisecond)
			if err := db.QueryRow(t.Context(), `SELECT status, attempts FROM notifications.deliveries WHERE request_id = $1`,
				req.GetId()).Scan(&status, &attempts); err != nil {
				t.Fatal(err)
			}
		}
	}
	waitStatus("sent")
	if attempts != 2 {
		t.Errorf("%d attempts, want 2 (one before the crash, one after)", attempts)
	}
	if channel == "sms" {
		sent := p.sms.Sent(phone)
		if sub := p.sms.Submissions(phone); sub != 2 || len(sent) != 1 {
			t.Fatalf("%d submissions, %d SMS sent: want the repeat deduplicated (2, 1)", sub, len(sent))
		}
		// The handset's report, to the restarted webhook.
		if err := p.sms.PostReport(p.webhookURL(), sent[0], "DELIVERED"); err != nil {
			t.Fatal(err)
		}
		waitStatus("delivered")
	} else {
		if acc, kept := p.smtp.Accepted(email), p.smtp.Kept(email); acc != 2 || len(kept) != 1 ||
			kept[0].MessageID != "<"+req.GetId()+"@thumela.co.za>" {
			t.Errorf("%d accepted, %d kept: want the repeat kept once by its Message-ID", acc, len(kept))
		}
	}

	// Only an SMS's changes are announced (events.Announced): queued, sent, delivered once each
	// however often the request was handled; an e-mail's, never.
	var wantEvents []notificationsv1.DeliveryStatus
	if channel == "sms" {
		wantEvents = []notificationsv1.DeliveryStatus{notificationsv1.DeliveryStatus_DELIVERY_STATUS_QUEUED,
			notificationsv1.DeliveryStatus_DELIVERY_STATUS_SENT, notificationsv1.DeliveryStatus_DELIVERY_STATUS_DELIVERED}
		testkit.WaitEvents(t, js, user, req.GetId(), wantEvents...)
	}
	time.Sleep(300 * time.Millisecond)
	var got []notificationsv1.DeliveryStatus
	for _, ev := range testkit.Events(t, js, user) {
		got = append(got, ev.GetDelivery().GetStatus())
	}
	if !slices.Equal(got, wantEvents) {
		t.Errorf("events %v, want %v", got, wantEvents)
	}
	second.Stop(t)
}
