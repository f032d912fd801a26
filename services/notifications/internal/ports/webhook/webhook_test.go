package webhook_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/notifications/internal/adapters/bulksms"
	"github.com/thumela/thumela/services/notifications/internal/domain"
	"github.com/thumela/thumela/services/notifications/internal/testkit"
)

const wait = 15 * time.Second

var (
	queued    = notificationsv1.DeliveryStatus_DELIVERY_STATUS_QUEUED
	sent      = notificationsv1.DeliveryStatus_DELIVERY_STATUS_SENT
	delivered = notificationsv1.DeliveryStatus_DELIVERY_STATUS_DELIVERED
	failed    = notificationsv1.DeliveryStatus_DELIVERY_STATUS_FAILED
)

// sendSMS publishes a voucher SMS to phone and waits until it is sent; it returns the request
// and the message as the provider holds it.
func sendSMS(t *testing.T, e *testkit.Env, user, phone string) (*notificationsv1.NotificationRequest, bulksms.Message) {
	t.Helper()
	req := testkit.VoucherRequest(t, e.Key.Public(), user, phone, "TH-"+phone[len(phone)-4:])
	e.Publish(t, req)
	e.WaitStatus(t, req.GetId(), domain.StatusSent, wait)
	return req, e.SMS.WaitSent(t, phone, 1, wait)[0]
}

// Delivery reports move deliveries forward, once, with their events; repeats and late reports
// change nothing; a wrong token is a 404; reports about messages we did not send are ignored.
func TestDeliveryReports(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user := uuid.NewString()
	okReq, okMsg := sendSMS(t, e, user, "+27821230001")
	failReq, failMsg := sendSMS(t, e, user, "+27821230002")

	// DELIVERED, twice (the provider retries), then a late SENT: delivered once.
	for range 2 {
		if err := e.SMS.PostReport(e.WebhookURL, okMsg, "DELIVERED"); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SMS.PostReport(e.WebhookURL, okMsg, "SENT"); err != nil {
		t.Fatal(err)
	}
	d := e.WaitStatus(t, okReq.GetId(), domain.StatusDelivered, wait)
	if d.DeliveredAt.IsZero() {
		t.Errorf("delivered without a time: %+v", d)
	}

	// FAILED.HANDSET_ERROR, then a late DELIVERED: failed stays.
	if err := e.SMS.PostReport(e.WebhookURL, failMsg, "FAILED.HANDSET_ERROR"); err != nil {
		t.Fatal(err)
	}
	if err := e.SMS.PostReport(e.WebhookURL, failMsg, "DELIVERED"); err != nil {
		t.Fatal(err)
	}
	d = e.WaitStatus(t, failReq.GetId(), domain.StatusFailed, wait)
	if d.FailureReason != domain.ReasonHandset {
		t.Errorf("failure reason %q", d.FailureReason)
	}

	testkit.WaitEvents(t, e.JS, user, okReq.GetId(), queued, sent, delivered)
	testkit.WaitEvents(t, e.JS, user, failReq.GetId(), queued, sent, failed)
	time.Sleep(300 * time.Millisecond)
	count := 0
	for _, ev := range testkit.Events(t, e.JS, user) {
		if id := ev.GetDelivery().GetRequestId(); id == okReq.GetId() || id == failReq.GetId() {
			count++
		}
	}
	if count != 6 {
		t.Errorf("%d events, want 3 per delivery", count)
	}

	// A wrong token: 404, and the report is not applied.
	other, otherMsg := sendSMS(t, e, user, "+27821230003")
	bad := strings.TrimSuffix(e.WebhookURL, testkit.WebhookToken) + "not-the-token"
	if err := e.SMS.PostReport(bad, otherMsg, "DELIVERED"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("wrong token: %v, want a 404", err)
	}
	if err := e.SMS.PostReport(e.WebhookBase+"/webhooks/bulksms/", otherMsg, "DELIVERED"); err == nil {
		t.Error("no token accepted")
	}

	// Forged reports: an unknown provider id; our userSuppliedId with another provider id.
	forged := otherMsg
	forged.ID = "999999999"
	forged.UserSuppliedID = ""
	if err := e.SMS.PostReport(e.WebhookURL, forged, "FAILED.BLOCKED"); err != nil {
		t.Errorf("forged report: %v, want 200 (ignored)", err)
	}
	forged.UserSuppliedID = otherMsg.UserSuppliedID
	if err := e.SMS.PostReport(e.WebhookURL, forged, "FAILED.BLOCKED"); err != nil {
		t.Errorf("forged report: %v, want 200 (ignored)", err)
	}
	time.Sleep(200 * time.Millisecond)
	if d, _ := e.Delivery(t, other.GetId()); d.Status != domain.StatusSent {
		t.Errorf("a forged or unauthenticated report moved the delivery to %s", d.Status)
	}

	// A report naming only our userSuppliedId for a delivery whose provider id was never
	// recorded (a crash between the send and the record) is applied.
	orphan := testkit.VoucherRequest(t, e.Key.Public(), user, "+27821230004", "TH-ORPHAN")
	e.SMS.Unavailable("+27821230004", 1000) // the consumer's own send keeps failing
	e.Publish(t, orphan)
	deadline := time.Now().Add(wait)
	var od domain.Delivery
	for od.ID == 0 || od.Attempts == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no attempt")
		}
		od, _ = e.Delivery(t, orphan.GetId())
		time.Sleep(20 * time.Millisecond)
	}
	if err := testkit.PostReports(e.WebhookURL, bulksms.Message{ID: "55555", To: "+27821230004",
		UserSuppliedID: "thm" + strconv.FormatInt(od.ID, 10), Status: bulksms.Status{ID: "DELIVERED.null", Type: "DELIVERED"}}); err != nil {
		t.Fatal(err)
	}
	od = e.WaitStatus(t, orphan.GetId(), domain.StatusDelivered, wait)
	if od.ProviderMessageID != "55555" {
		t.Errorf("orphan delivery %+v", od)
	}
}

// A provider's batch (BulkSMS posts a JSON array) is applied whole and in its order: two
// reports about one message, reports about others, a forged one ignored, and a late report
// after a failure changing nothing; one event per change.
func TestABatchOfReports(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user := uuid.NewString()
	aReq, aMsg := sendSMS(t, e, user, "+27821230011")
	bReq, bMsg := sendSMS(t, e, user, "+27821230012")
	cReq, cMsg := sendSMS(t, e, user, "+27821230013")
	forged := cMsg
	forged.ID, forged.UserSuppliedID = "888888888", ""
	if err := testkit.PostReports(e.WebhookURL,
		testkit.WithStatus(aMsg, "SENT"), testkit.WithStatus(aMsg, "DELIVERED"),
		testkit.WithStatus(bMsg, "DELIVERED"),
		testkit.WithStatus(forged, "FAILED.BLOCKED"),
		testkit.WithStatus(cMsg, "FAILED.HANDSET_ERROR"), testkit.WithStatus(cMsg, "DELIVERED"),
	); err != nil {
		t.Fatal(err)
	}
	e.WaitStatus(t, aReq.GetId(), domain.StatusDelivered, wait)
	e.WaitStatus(t, bReq.GetId(), domain.StatusDelivered, wait)
	if d := e.WaitStatus(t, cReq.GetId(), domain.StatusFailed, wait); d.FailureReason != domain.ReasonHandset {
		t.Errorf("failure reason %q", d.FailureReason)
	}
	testkit.WaitEvents(t, e.JS, user, aReq.GetId(), queued, sent, delivered)
	testkit.WaitEvents(t, e.JS, user, bReq.GetId(), queued, sent, delivered)
	testkit.WaitEvents(t, e.JS, user, cReq.GetId(), queued, sent, failed)
	time.Sleep(300 * time.Millisecond)
	if n := len(testkit.Events(t, e.JS, user)); n != 9 {
		t.Errorf("%d events, want 3 per delivery", n)
	}
}

func TestMalformedAndHealth(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	for body, want := range map[string]int{
		`not json`:           http.StatusBadRequest,
		`{"id":"1"}`:         http.StatusBadRequest,
		`[{"id":"1"}] extra`: http.StatusBadRequest,
		`[]`:                 http.StatusOK,
		`[{"id":"404","status":{"id":"DELIVERED.null","type":"DELIVERED"}}]`: http.StatusOK,
	} {
		got, err := testkit.PostRaw(e.WebhookURL, []byte(body))
		if err != nil || got != want {
			t.Errorf("POST %s: %d %v, want %d", body, got, err, want)
		}
	}
	big := []byte("[" + strings.Repeat(`{"id":"1"},`, 200000) + `{"id":"1"}]`)
	if got, _ := testkit.PostRaw(e.WebhookURL, big); got != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over 1 MiB: %d", got)
	}
	res, err := http.Get(e.WebhookBase + "/healthz")
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %v %v", res, err)
	}
	res.Body.Close()

	// The database down: 503, so that BulkSMS sends the reports again.
	e.Pool.Close()
	if got, _ := testkit.PostRaw(e.WebhookURL, []byte(`[{"id":"77","status":{"id":"DELIVERED.null","type":"DELIVERED"}}]`)); got != http.StatusServiceUnavailable {
		t.Errorf("database down: %d, want 503", got)
	}
}
