package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/notifications/internal/testkit"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/service/servicetest"
	"github.com/thumela/thumela/services/platform/telemetry/telemetrytest"
)

// The binary's wiring, run in-process: it migrates its schema, consumes the requests and
// sends them through real SMTP and the BulkSMS API, takes delivery reports on its webhook,
// serves its API behind token checks and its metrics, and stops cleanly on SIGTERM.
func TestServesAndStopsOnSIGTERM(t *testing.T) {
	// Not parallel: it sets the environment and signals the process.
	p := newPeers(t, true)
	vars := p.vars(t)
	metricsAddr := servicetest.FreeAddr(t)
	vars["NOTIFICATIONS_METRICS_ADDR"] = metricsAddr
	vars["LOG_LEVEL"] = "error"
	svc := servicetest.StartWith(t, "notifications", spec, servicetest.Options{Env: vars})
	svc.RequireMigrated(t)

	client := notificationsv1.NewNotificationsServiceClient(svc.Conn)
	if _, err := client.ListDeliveries(t.Context(), &notificationsv1.ListDeliveriesRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("call without a token: %v, want Unauthenticated", err)
	}
	user := uuid.NewString()

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	nc, js, err := bus.Connect(ctx, svc.NATSURL, "test", testkit.Discard, bus.WithCredentials(svc.NATS.Credentials(bus.IdentityAdmin)))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sms := testkit.VoucherRequest(t, p.key.Public(), user, "+27821234567", "TH-MAIN")
	mail := testkit.CodeRequest(t, p.key.Public(), user, "thandi@example.co.za", "482913")
	waitForStream(t, js)
	testkit.Publish(t, js, sms)
	testkit.Publish(t, js, mail)

	p.smtp.WaitKept(t, "thandi@example.co.za", 1, 30*time.Second)
	p.sms.WaitSent(t, "+27821234567", 1, 30*time.Second)
	uctx := svc.UserContext(t, user)
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := client.ListDeliveries(uctx, &notificationsv1.ListDeliveriesRequest{References: []string{"TH-MAIN"}})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.GetDeliveries()) == 1 && res.GetDeliveries()[0].GetStatus() == notificationsv1.DeliveryStatus_DELIVERY_STATUS_DELIVERED {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the SMS was not reported delivered: %v", res.GetDeliveries())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if errs := p.sms.ReportErrors(); len(errs) > 0 {
		t.Errorf("reports to the webhook failed: %v", errs)
	}
	if sent := p.sms.Sent("+27821234567"); sent[0].From != "Thumela" {
		t.Errorf("SMS from %q", sent[0].From)
	}

	res, err := http.Get("http://" + p.webhookAddr + "/healthz")
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("webhook healthz: %v %v", res, err)
	}
	res.Body.Close()

	// The provider's delivery report can overtake the sender's own bookkeeping (its "sent"
	// counter is added once the send's result is recorded), so the scrape is retried a while.
	wants := []struct {
		name   string
		labels map[string]string
	}{
		{"thumela_notifications_sends_total", map[string]string{"channel": "sms", "provider": "bulksms", "outcome": "sent"}},
		{"thumela_notifications_sends_total", map[string]string{"channel": "email", "provider": "smtp", "outcome": "sent"}},
		{"thumela_notifications_oldest_queued_age_seconds", nil},
	}
	var metrics telemetrytest.Exposition
	var missing []string
	for scrapeUntil := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		metrics = telemetrytest.Scrape(t, "http://"+metricsAddr+"/metrics")
		missing = missing[:0]
		for _, want := range wants {
			if _, ok := metrics.Find(want.name, want.labels); !ok {
				missing = append(missing, fmt.Sprintf("%s%v", want.name, want.labels))
			}
		}
		if len(missing) == 0 || time.Now().After(scrapeUntil) {
			break
		}
	}
	for _, m := range missing {
		t.Errorf("no %s in /metrics", m)
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", grep(metrics.Text, "thumela_notifications"))
	}
	svc.StopWithSIGTERM(t)
}

// waitForStream waits until the service has created the streams.
func waitForStream(t *testing.T, js jetstream.JetStream) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := js.Stream(t.Context(), bus.StreamNotifications); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no notifications stream")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func grep(text, substr string) string {
	var out []string
	for line := range strings.SplitSeq(text, "\n") {
		if strings.Contains(line, substr) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
