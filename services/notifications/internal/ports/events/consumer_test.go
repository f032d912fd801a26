package events_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/notifications/internal/domain"
	"github.com/thumela/thumela/services/notifications/internal/ports/events"
	"github.com/thumela/thumela/services/notifications/internal/testkit"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/seal"
)

const wait = 15 * time.Second

var (
	queued    = notificationsv1.DeliveryStatus_DELIVERY_STATUS_QUEUED
	sent      = notificationsv1.DeliveryStatus_DELIVERY_STATUS_SENT
	delivered = notificationsv1.DeliveryStatus_DELIVERY_STATUS_DELIVERED
	failed    = notificationsv1.DeliveryStatus_DELIVERY_STATUS_FAILED
)

// statuses lists the statuses of user's events about requestID, after a moment for strays.
func statuses(t *testing.T, e *testkit.Env, user, requestID string) []notificationsv1.DeliveryStatus {
	t.Helper()
	time.Sleep(300 * time.Millisecond)
	var out []notificationsv1.DeliveryStatus
	for _, ev := range testkit.Events(t, e.JS, user) {
		if ev.GetDelivery().GetRequestId() == requestID {
			out = append(out, ev.GetDelivery().GetStatus())
		}
	}
	return out
}

// wantAnnouncedDelivered waits until user's events about the SMS requestID end delivered, and
// checks that each status was announced once, in order. The stand-in provider reports at once,
// so its report may be applied before the send's result is recorded: the delivery then goes from
// queued to delivered, and "sent", already passed, is rightly never announced.
func wantAnnouncedDelivered(t *testing.T, e *testkit.Env, user, requestID string) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		got := statuses(t, e, user, requestID)
		if len(got) > 0 && got[len(got)-1] == delivered {
			if !slices.Equal(got, []notificationsv1.DeliveryStatus{queued, sent, delivered}) &&
				!slices.Equal(got, []notificationsv1.DeliveryStatus{queued, delivered}) {
				t.Errorf("SMS events %v, want queued, (sent,) delivered, each once", got)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("SMS events %v, want queued, (sent,) delivered", got)
		}
	}
}

// A request redelivered or republished is sent once: the SMS is submitted once and reported
// delivered; the e-mail reaches the mailbox once; each SMS status is announced once, an
// e-mail's not at all (events.Announced). Nothing the
// service stores or publishes holds the PIN, the voucher number or the code.
func TestRedeliverySendsOnce(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{Reports: true})
	user := uuid.NewString()

	sms := testkit.VoucherRequest(t, e.Key.Public(), user, "+27821234567", "TH-REDELIVER")
	mail := testkit.CodeRequest(t, e.Key.Public(), user, "thandi@example.co.za", "482913")
	e.Publish(t, sms)
	e.Publish(t, mail)
	e.WaitStatus(t, sms.GetId(), domain.StatusDelivered, wait)
	e.WaitStatus(t, mail.GetId(), domain.StatusSent, wait)

	// Republished by a producer after its own crash (a new Nats-Msg-Id past the duplicate
	// window) and published twice more: nothing more is sent.
	for i := range 2 {
		for _, req := range []*notificationsv1.NotificationRequest{sms, mail} {
			data, _ := proto.Marshal(req)
			channel := "sms"
			if req == mail {
				channel = "email"
			}
			subject, _ := bus.NotificationSubject(req.GetSourceService(), user, channel)
			testkit.PublishRaw(t, e.JS, subject, data, req.GetId()+"-again-"+string(rune('a'+i)))
		}
	}
	wantAnnouncedDelivered(t, e, user, sms.GetId())
	if got := statuses(t, e, user, mail.GetId()); len(got) != 0 {
		t.Errorf("e-mail events %v, want none", got)
	}
	if n := e.SMS.Submissions("+27821234567"); n != 1 {
		t.Errorf("%d SMS submissions, want 1", n)
	}
	if n := e.SMTP.Accepted("thandi@example.co.za"); n != 1 {
		t.Errorf("%d e-mails accepted, want 1", n)
	}

	// What arrived says what it should.
	got := e.SMS.Sent("+27821234567")[0]
	if !strings.Contains(string(got.Body), "PIN: 4821") || !strings.Contains(string(got.Body), "1234 5678 9012") || got.UserSuppliedID == "" {
		t.Errorf("SMS %+v", got)
	}
	m := e.SMTP.Kept("thandi@example.co.za")[0]
	if m.MessageID != "<"+mail.GetId()+"@thumela.co.za>" || m.Template != "sign_up_code" ||
		!strings.Contains(m.Text, "482913") || !strings.Contains(m.HTML, "482913") {
		t.Errorf("mail %+v", m)
	}
	d, _ := e.Delivery(t, sms.GetId())
	if d.Attempts != 1 || d.ProviderMessageID != got.ID || d.DedupID == 0 {
		t.Errorf("SMS delivery %+v", d)
	}

	// The database and every stream: no PIN, no voucher number, no code, no rendered text.
	var hits int
	if err := e.Pool.QueryRow(t.Context(), `SELECT
			(SELECT count(*) FROM deliveries d WHERE d::text ~ '4821|1234 5678 9012|482913|Never share')
		  + (SELECT count(*) FROM outbox o WHERE encode(o.payload, 'escape') ~ '4821|1234 5678 9012|482913|Never share')`).Scan(&hits); err != nil {
		t.Fatal(err)
	}
	if hits != 0 {
		t.Errorf("%d rows hold a secret or a rendered text", hits)
	}
	for _, stream := range []string{bus.StreamEvents, bus.StreamNotifications, bus.StreamNotificationsDead} {
		for _, msg := range testkit.ReadStream(t, e.JS, stream, "") {
			for _, secret := range []string{"4821", "1234 5678 9012", "482913", "Never share"} {
				if strings.Contains(string(msg.Data), secret) {
					t.Errorf("%s holds %q on %s", stream, secret, msg.Subject)
				}
			}
		}
	}
	// The work queue is empty once everything was handled.
	deadline := time.Now().Add(5 * time.Second)
	for len(testkit.ReadStream(t, e.JS, bus.StreamNotifications, "")) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("requests still on the work queue after they were handled")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A transient failure (SMTP 451, BulkSMS 503) is retried with back-off and then delivered.
func TestTransientFailuresAreRetried(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{Reports: true})
	user := uuid.NewString()
	e.SMTP.FailTransiently("thandi@example.co.za", 2)
	e.SMS.Unavailable("+27821234568", 2)

	mail := testkit.CodeRequest(t, e.Key.Public(), user, "thandi@example.co.za", "482913")
	sms := testkit.VoucherRequest(t, e.Key.Public(), user, "+27821234568", "TH-RETRY")
	e.Publish(t, mail)
	e.Publish(t, sms)

	d := e.WaitStatus(t, mail.GetId(), domain.StatusSent, wait)
	if d.Attempts != 3 {
		t.Errorf("e-mail sent after %d attempts, want 3", d.Attempts)
	}
	d = e.WaitStatus(t, sms.GetId(), domain.StatusDelivered, wait)
	if d.Attempts != 3 || d.FailureReason != "" {
		t.Errorf("SMS delivered after %d attempts (%q), want 3", d.Attempts, d.FailureReason)
	}
	// Retries are not status changes.
	wantAnnouncedDelivered(t, e, user, sms.GetId())
	if n := len(e.SMTP.Kept("thandi@example.co.za")); n != 1 {
		t.Errorf("%d e-mails kept", n)
	}
	if n := len(e.SMS.Sent("+27821234568")); n != 1 {
		t.Errorf("%d SMS sent", n)
	}
}

// A permanent failure ends failed, with a reason a sender may read, and an SMS's is announced:
// a mailbox refused (550), a number refused (400), and an SMS reported FAILED after it was sent.
func TestPermanentFailuresFail(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{Reports: true})
	user := uuid.NewString()
	e.SMTP.FailPermanently("nobody@example.co.za")
	e.SMS.Invalid("+27820000000")
	e.SMS.FailReport("+27821111111")

	mail := testkit.CodeRequest(t, e.Key.Public(), user, "nobody@example.co.za", "482913")
	invalid := testkit.VoucherRequest(t, e.Key.Public(), user, "+27820000000", "TH-INVALID")
	unreachable := testkit.VoucherRequest(t, e.Key.Public(), user, "+27821111111", "TH-UNREACHABLE")
	for _, r := range []*notificationsv1.NotificationRequest{mail, invalid, unreachable} {
		e.Publish(t, r)
	}

	for _, tc := range []struct {
		req    *notificationsv1.NotificationRequest
		reason string
		events []notificationsv1.DeliveryStatus
	}{
		{mail, domain.ReasonMailboxRejected, nil},
		{invalid, domain.ReasonNumberInvalid, []notificationsv1.DeliveryStatus{queued, failed}},
		{unreachable, domain.ReasonNotSent, []notificationsv1.DeliveryStatus{queued, sent, failed}},
	} {
		d := e.WaitStatus(t, tc.req.GetId(), domain.StatusFailed, wait)
		if d.FailureReason != tc.reason || d.FailedAt.IsZero() {
			t.Errorf("%s: failed with %q, want %q", tc.req.GetRecipient(), d.FailureReason, tc.reason)
		}
		if tc.req == unreachable && d.SentAt.IsZero() {
			// The provider's report (20 ms after it accepted the SMS) overtook the send's own
			// record: queued → failed is allowed then (domain.Status.CanBecome), and the
			// announcements are queued, failed.
			tc.events = []notificationsv1.DeliveryStatus{queued, failed}
		}
		if tc.events == nil {
			if got := statuses(t, e, user, tc.req.GetId()); len(got) != 0 {
				t.Errorf("%s: e-mail events %v, want none", tc.req.GetRecipient(), got)
			}
			continue
		}
		evs := testkit.WaitEvents(t, e.JS, user, tc.req.GetId(), tc.events...)
		last := evs[len(tc.events)-1]
		if last.GetDelivery().GetFailureReason() != tc.reason || last.GetPreviousStatus() != tc.events[len(tc.events)-2] {
			t.Errorf("%s: failed event %v", tc.req.GetRecipient(), last)
		}
	}
	if d, _ := e.Delivery(t, mail.GetId()); d.Attempts != 1 {
		t.Errorf("a refused mailbox was tried %d times", d.Attempts)
	}
	// Provider refusals are no dead letters: the request was fine.
	time.Sleep(200 * time.Millisecond)
	if dead := testkit.ReadStream(t, e.JS, bus.StreamNotificationsDead, ""); len(dead) != 0 {
		t.Errorf("%d dead letters", len(dead))
	}
}

// One number gets at most the budget's SMS in a day from one sender: the next is failed without
// reaching the provider, announced as failed (so that its sender hears of it), and is no dead
// letter; another sender's SMS to the number and the sender's to another number are not
// affected, and a request stored before the budget ran out is not failed when it is delivered
// again.
func TestARecipientGetsAtMostTheBudgetsSMSADay(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{SMSPerRecipientPerDay: 3})
	const victim, other = "+27825550001", "+27825550002"
	user := uuid.NewString()
	var within []*notificationsv1.NotificationRequest
	for i := range 3 {
		r := testkit.VoucherRequest(t, e.Key.Public(), user, victim, "TH-"+string(rune('A'+i)))
		within = append(within, r)
		e.Publish(t, r)
		e.WaitStatus(t, r.GetId(), domain.StatusSent, wait)
	}
	over := testkit.VoucherRequest(t, e.Key.Public(), user, victim, "TH-OVER")
	e.Publish(t, over)
	d := e.WaitStatus(t, over.GetId(), domain.StatusFailed, wait)
	if d.FailureReason != domain.ReasonRecipientBudget || d.Attempts != 0 {
		t.Fatalf("the SMS over the budget: %+v", d)
	}
	evs := testkit.WaitEvents(t, e.JS, user, over.GetId(), queued, failed)
	if evs[1].GetDelivery().GetFailureReason() != domain.ReasonRecipientBudget {
		t.Errorf("failed event %v", evs[1])
	}
	if n := e.SMS.Submissions(victim); n != 3 {
		t.Errorf("the provider got %d SMS for the number, want 3", n)
	}
	// The budget is each sender's: one who used up the number's day (sending, then cancelling
	// for a full refund, costs nothing) cannot cut it off from another sender's voucher.
	another := testkit.VoucherRequest(t, e.Key.Public(), uuid.NewString(), victim, "TH-ANOTHER")
	e.Publish(t, another)
	e.WaitStatus(t, another.GetId(), domain.StatusSent, wait)
	if n := e.SMS.Submissions(victim); n != 4 {
		t.Errorf("the provider got %d SMS for the number, want 4 (another sender's too)", n)
	}

	e.Publish(t, within[0]) // republished: judged when it was first stored, sent once
	toOther := testkit.VoucherRequest(t, e.Key.Public(), user, other, "TH-OTHER")
	e.Publish(t, toOther)
	e.WaitStatus(t, toOther.GetId(), domain.StatusSent, wait)
	if d, _ := e.Delivery(t, within[0].GetId()); d.Status != domain.StatusSent || d.Attempts != 1 {
		t.Errorf("a request stored within the budget, delivered again: %+v", d)
	}
	time.Sleep(200 * time.Millisecond)
	if dead := testkit.ReadStream(t, e.JS, bus.StreamNotificationsDead, ""); len(dead) != 0 {
		t.Errorf("%d dead letters", len(dead))
	}
}

// Transient failures for the whole retry window end failed, and the request is copied to the
// dead-letter stream.
func TestRetryWindowEnds(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{RetryWindow: 500 * time.Millisecond})
	user := uuid.NewString()
	e.SMS.Unavailable("+27822222222", 1000)
	sms := testkit.VoucherRequest(t, e.Key.Public(), user, "+27822222222", "TH-WINDOW")
	e.Publish(t, sms)

	d := e.WaitStatus(t, sms.GetId(), domain.StatusFailed, wait)
	if d.FailureReason != domain.ReasonRetryWindow || d.Attempts < 2 {
		t.Errorf("delivery %+v", d)
	}
	testkit.WaitEvents(t, e.JS, user, sms.GetId(), queued, failed)
	dead := testkit.WaitDead(t, e.JS, 1)
	if dead[0].Subject != "thumela.notificationsdead."+user+".sms" ||
		!strings.HasPrefix(dead[0].Header.Get(events.HeaderDeadReason), "retry window passed") {
		t.Errorf("dead letter %s %v", dead[0].Subject, dead[0].Header)
	}
	var back notificationsv1.NotificationRequest
	if err := proto.Unmarshal(dead[0].Data, &back); err != nil || back.GetId() != sms.GetId() {
		t.Errorf("dead letter is not the request as it arrived: %v", err)
	}
}

// Requests that can never be sent go to the dead-letter stream with the reason; those that
// name their id and user also end as a failed delivery, announced when it is an SMS.
func TestDeadLetters(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user := uuid.NewString()

	// Not a request at all.
	subject, _ := bus.NotificationSubject("transfers", user, "sms")
	testkit.PublishRaw(t, e.JS, subject, []byte("\xff\xffnot a proto"), "garbage-1")

	unknownTemplate := testkit.CodeRequest(t, e.Key.Public(), user, "thandi@example.co.za", "482913")
	unknownTemplate.Template = notificationsv1.Template(42)
	otherKey, _ := seal.GenerateKey("k9")
	unknownKey := testkit.CodeRequest(t, otherKey.Public(), user, "thandi@example.co.za", "482913")
	missingParam := testkit.VoucherRequest(t, e.Key.Public(), user, "+27823333333", "TH-MISSING")
	delete(missingParam.Params, domain.ParamAmountCents)
	badRecipient := testkit.VoucherRequest(t, e.Key.Public(), user, "082 123 4567", "TH-RECIPIENT")
	for _, r := range []*notificationsv1.NotificationRequest{unknownTemplate, unknownKey, missingParam, badRecipient} {
		e.Publish(t, r)
	}

	dead := testkit.WaitDead(t, e.JS, 5)
	reasons := map[string]string{}
	for _, m := range dead {
		var req notificationsv1.NotificationRequest
		id := "garbage"
		if proto.Unmarshal(m.Data, &req) == nil && req.GetId() != "" {
			id = req.GetId()
		}
		reasons[id] = m.Header.Get(events.HeaderDeadReason)
		if m.Header.Get(events.HeaderOriginalSubject) == "" || !strings.HasPrefix(m.Subject, "thumela.notificationsdead."+user+".") {
			t.Errorf("dead letter %s %v", m.Subject, m.Header)
		}
	}
	for id, want := range map[string]string{
		"garbage":               "undecodable",
		unknownTemplate.GetId(): "unknown template",
		unknownKey.GetId():      "secrets do not open",
		missingParam.GetId():    `param "amount_cents" is missing`,
		badRecipient.GetId():    "recipient is not a valid sms address",
	} {
		if !strings.Contains(reasons[id], want) {
			t.Errorf("reason for %s: %q, want %q", id, reasons[id], want)
		}
	}
	for _, r := range []*notificationsv1.NotificationRequest{unknownTemplate, unknownKey, missingParam, badRecipient} {
		d := e.WaitStatus(t, r.GetId(), domain.StatusFailed, wait)
		if d.FailureReason != domain.ReasonInvalidRequest || d.Attempts != 0 {
			t.Errorf("%s: %+v", r.GetId(), d)
		}
		if r.GetChannel() == notificationsv1.Channel_CHANNEL_SMS {
			testkit.WaitEvents(t, e.JS, user, r.GetId(), queued, failed)
		} else if got := statuses(t, e, user, r.GetId()); len(got) != 0 {
			t.Errorf("%s: e-mail events %v, want none", r.GetId(), got)
		}
	}
	if d, _ := e.Delivery(t, unknownTemplate.GetId()); d.Template != domain.TemplateUnknown {
		t.Errorf("unknown template recorded as %q", d.Template)
	}
	if n := len(e.SMTP.Kept("thandi@example.co.za")) + len(e.SMS.Sent("+27823333333")); n != 0 {
		t.Errorf("%d messages sent", n)
	}
}

// A request is sent only for a template its publisher may ask for, and the publisher is the
// subject's (which NATS lets each service publish only below its own name), never the
// payload's word: a voucher SMS on identity's subject, which says "transfers" inside, is
// dead-lettered and never sent; so is one on a subject that names no publisher or another
// user. A request of the older subject shape, left in the queue from before every publisher had
// its own, is still sent.
func TestARequestIsSentOnlyForItsPublishersOwnTemplates(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user := uuid.NewString()
	publish := func(subject string, r *notificationsv1.NotificationRequest) {
		data, err := proto.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		testkit.PublishRaw(t, e.JS, subject, data, r.GetId())
	}

	forged := testkit.VoucherRequest(t, e.Key.Public(), user, "+27824444441", "TH-FORGED")
	onIdentity, _ := bus.NotificationSubject("identity", user, "sms")
	publish(onIdentity, forged)
	noPublisher := testkit.VoucherRequest(t, e.Key.Public(), user, "+27824444442", "TH-NOPUB")
	publish("thumela.notifications.identity.sms", noPublisher)
	otherUser := testkit.VoucherRequest(t, e.Key.Public(), user, "+27824444443", "TH-OTHER")
	onOtherUser, _ := bus.NotificationSubject("transfers", uuid.NewString(), "sms")
	publish(onOtherUser, otherUser)

	dead := testkit.WaitDead(t, e.JS, 3)
	reasons := map[string]string{}
	for _, m := range dead {
		var req notificationsv1.NotificationRequest
		if err := proto.Unmarshal(m.Data, &req); err != nil {
			t.Fatal(err)
		}
		reasons[req.GetId()] = m.Header.Get(events.HeaderDeadReason)
	}
	for id, want := range map[string]string{
		forged.GetId():      "template voucher_issued is not identity's to ask for",
		noPublisher.GetId(): "subject names no publisher",
		otherUser.GetId():   "subject and request name different users",
	} {
		if reasons[id] != want {
			t.Errorf("reason for %s: %q, want %q", id, reasons[id], want)
		}
		if _, ok := e.Delivery(t, id); ok {
			t.Errorf("%s: a delivery was recorded", id)
		}
	}

	legacy := testkit.VoucherRequest(t, e.Key.Public(), user, "+27824444444", "TH-LEGACY")
	legacySubject, _ := bus.Subject(bus.DomainNotifications, user, "sms")
	publish(legacySubject, legacy)
	if d := e.WaitStatus(t, legacy.GetId(), domain.StatusSent, wait); d.SourceService != "transfers" {
		t.Errorf("legacy request recorded from %q", d.SourceService)
	}
	if n := len(e.SMS.Sent("+27824444444")); n != 1 {
		t.Errorf("legacy request: %d SMS sent, want 1", n)
	}
	for _, phone := range []string{"+27824444441", "+27824444442", "+27824444443"} {
		if n := len(e.SMS.Sent(phone)); n != 0 {
			t.Errorf("%d SMS sent to %s", n, phone)
		}
	}
}

// A retry later than the provider's deduplication memory looks the message up first and
// finds the earlier attempt's: nothing is submitted again.
func TestLateRetryLooksUpTheEarlierAttempt(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{DedupMemory: time.Nanosecond})
	user := uuid.NewString()
	e.SMS.AcceptThenDrop("+27824444444", 1)
	sms := testkit.VoucherRequest(t, e.Key.Public(), user, "+27824444444", "TH-LOOKUP")
	e.Publish(t, sms)

	d := e.WaitStatus(t, sms.GetId(), domain.StatusSent, wait)
	sentMsgs := e.SMS.Sent("+27824444444")
	if len(sentMsgs) != 1 || e.SMS.Submissions("+27824444444") != 1 || d.ProviderMessageID != sentMsgs[0].ID || d.Attempts != 2 {
		t.Errorf("%d sent, %d submissions, delivery %+v", len(sentMsgs), e.SMS.Submissions("+27824444444"), d)
	}
}

// Within the provider's memory, the retry resubmits with the same deduplication id, and the
// provider sends nothing new.
func TestRetryWithinDedupMemoryIsDeduplicated(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user := uuid.NewString()
	e.SMS.AcceptThenDrop("+27825555555", 1)
	sms := testkit.VoucherRequest(t, e.Key.Public(), user, "+27825555555", "TH-DEDUP")
	e.Publish(t, sms)

	d := e.WaitStatus(t, sms.GetId(), domain.StatusSent, wait)
	sentMsgs := e.SMS.Sent("+27825555555")
	if len(sentMsgs) != 1 || e.SMS.Submissions("+27825555555") != 2 || d.ProviderMessageID != sentMsgs[0].ID {
		t.Errorf("%d sent, %d submissions, delivery %+v", len(sentMsgs), e.SMS.Submissions("+27825555555"), d)
	}
}

// Two replicas' attempts never overlap: the second claim waits for the first's lease.
func TestClaimsExclude(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	ctx := context.Background()
	now := time.Now()
	d := domain.NewDelivery(uuid.New(), uuid.NewString(), "ref", domain.ChannelSMS, domain.TemplateVoucherIssued, "+27821234567", "t", now)
	if _, _, err := e.Store.Enqueue(ctx, d); err != nil {
		t.Fatal(err)
	}
	first, err := e.Store.Claim(ctx, d.RequestID, now, time.Minute)
	if err != nil || first.DedupID == 0 || first.Attempts != 1 {
		t.Fatalf("first claim: %+v %v", first, err)
	}
	var claimed *domain.ClaimedError
	if _, err := e.Store.Claim(ctx, d.RequestID, now.Add(time.Second), time.Minute); err == nil || !asClaimed(err, &claimed) {
		t.Fatalf("second claim within the lease: %v", err)
	}
	second, err := e.Store.Claim(ctx, d.RequestID, now.Add(2*time.Minute), time.Minute)
	if err != nil || second.DedupID != first.DedupID || second.Attempts != 2 {
		t.Fatalf("claim after the lease: %+v %v (dedup id must stay %d)", second, err, first.DedupID)
	}
}

// A new request's delivery is stored with its first attempt already claimed (one transaction,
// not an insert and a claim): the SMS has its deduplication id, another replica's claim waits
// for the lease, and the same request again finds the stored delivery, not a second one.
func TestEnqueueClaimsTheFirstAttempt(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	ctx := context.Background()
	now := time.Now().Truncate(time.Microsecond)
	sms := domain.NewDelivery(uuid.New(), uuid.NewString(), "ref", domain.ChannelSMS, domain.TemplateVoucherIssued, "+27821234567", "t", now)
	mail := domain.NewDelivery(uuid.New(), sms.UserID, "ref", domain.ChannelEmail, domain.TemplateSignUpCode, "thandi@example.co.za", "t", now)
	for _, d := range []*domain.Delivery{&sms, &mail} {
		if err := d.Claim(now, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	saved, inserted, err := e.Store.Enqueue(ctx, sms)
	if err != nil || !inserted || saved.Attempts != 1 || saved.DedupID == 0 || !saved.ClaimedUntil.Equal(now.Add(time.Minute)) ||
		!saved.FirstAttemptAt.Equal(now) || saved.Status != domain.StatusQueued {
		t.Fatalf("SMS enqueued claimed: %+v inserted=%v %v", saved, inserted, err)
	}
	var claimed *domain.ClaimedError
	if _, err := e.Store.Claim(ctx, sms.RequestID, now.Add(time.Second), time.Minute); !asClaimed(err, &claimed) {
		t.Fatalf("a claim within the first attempt's lease: %v", err)
	}
	again, inserted, err := e.Store.Enqueue(ctx, sms)
	if err != nil || inserted || again.ID != saved.ID || again.DedupID != saved.DedupID {
		t.Fatalf("the same request again: %+v inserted=%v %v", again, inserted, err)
	}
	if m, inserted, err := e.Store.Enqueue(ctx, mail); err != nil || !inserted || m.Attempts != 1 || m.DedupID != 0 {
		t.Fatalf("e-mail enqueued claimed: %+v inserted=%v %v", m, inserted, err)
	}
}

// The holder of an attempt writes its result without reading the row again, with the SMS's
// event, while the row is as it claimed it; a row that moved meanwhile (the provider's report of
// delivery came first) is read and changed as it is now, never put back to an older state.
func TestUpdateClaimedWritesTheAttemptsResultUnlessTheRowMoved(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	ctx := context.Background()
	now := time.Now().Truncate(time.Microsecond)
	enqueue := func(channel domain.Channel, recipient string) domain.Delivery {
		t.Helper()
		d := domain.NewDelivery(uuid.New(), uuid.NewString(), "ref", channel, domain.TemplateVoucherIssued, recipient, "t", now)
		if err := d.Claim(now, time.Minute); err != nil {
			t.Fatal(err)
		}
		saved, inserted, err := e.Store.Enqueue(ctx, d)
		if err != nil || !inserted {
			t.Fatalf("enqueue: %v %v", inserted, err)
		}
		return saved
	}
	announced := func(d domain.Delivery) (n int) {
		t.Helper()
		subject, err := bus.Subject(bus.DomainDeliveries, d.UserID, "changed")
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE subject = $1`, subject).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	sent := func(id string) func(*domain.Delivery) error {
		return func(x *domain.Delivery) error { x.MarkSent(id, now.Add(time.Second)); return nil }
	}

	sms := enqueue(domain.ChannelSMS, "+27821234567")
	got, err := e.Store.UpdateClaimed(ctx, sms, sent("p-1"))
	if err != nil || got.Status != domain.StatusSent || got.ProviderMessageID != "p-1" {
		t.Fatalf("the attempt's result: %+v %v", got, err)
	}
	if stored, _ := e.Delivery(t, sms.RequestID.String()); stored.Status != domain.StatusSent || stored.ProviderMessageID != "p-1" {
		t.Fatalf("stored: %+v", stored)
	}
	if n := announced(sms); n != 2 {
		t.Errorf("%d DeliveryChanged events, want 2 (queued, sent)", n)
	}

	raced := enqueue(domain.ChannelSMS, "+27821234568")
	if _, err := e.Store.Update(ctx, raced.RequestID, func(x *domain.Delivery) error {
		x.MarkDelivered("p-2", now.Add(time.Second))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	got, err = e.Store.UpdateClaimed(ctx, raced, sent("p-2"))
	if err != nil || got.Status != domain.StatusDelivered {
		t.Fatalf("a result after the report of delivery: %+v %v, want it still delivered", got, err)
	}
	if stored, _ := e.Delivery(t, raced.RequestID.String()); stored.Status != domain.StatusDelivered || stored.DeliveredAt.IsZero() {
		t.Fatalf("stored after the late result: %+v", stored)
	}
	if n := announced(raced); n != 2 {
		t.Errorf("%d DeliveryChanged events, want 2 (queued, delivered)", n)
	}

	mail := enqueue(domain.ChannelEmail, "thandi@example.co.za")
	if got, err := e.Store.UpdateClaimed(ctx, mail, sent("<m-1@thumela.co.za>")); err != nil || got.Status != domain.StatusSent {
		t.Fatalf("e-mail sent: %+v %v", got, err)
	}
	if stored, _ := e.Delivery(t, mail.RequestID.String()); stored.Status != domain.StatusSent {
		t.Fatalf("e-mail stored: %+v", stored)
	}
	if n := announced(mail); n != 0 {
		t.Errorf("%d events for an e-mail, want none", n)
	}
}

func asClaimed(err error, target **domain.ClaimedError) bool {
	c, ok := err.(*domain.ClaimedError)
	if ok {
		*target = c
	}
	return ok
}

// A delivery still queued after its request can no longer come back from the stream fails as
// expired, announced, so nothing waits for ever.
func TestStaleDeliveriesExpire(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user := uuid.NewString()
	ctx := context.Background()
	old := domain.NewDelivery(uuid.New(), user, "ref", domain.ChannelSMS, domain.TemplateVoucherIssued, "+27821234567", "t",
		time.Now().Add(-bus.NotificationRetention-2*time.Hour))
	fresh := domain.NewDelivery(uuid.New(), user, "ref", domain.ChannelSMS, domain.TemplateVoucherIssued, "+27821234567", "t", time.Now())
	for _, d := range []domain.Delivery{old, fresh} {
		if _, _, err := e.Store.Enqueue(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	n, err := e.Deliverer.ExpireStale(ctx)
	if err != nil || n != 1 {
		t.Fatalf("expired %d (%v), want 1", n, err)
	}
	if d, _ := e.Delivery(t, old.RequestID.String()); d.Status != domain.StatusFailed || d.FailureReason != domain.ReasonExpired {
		t.Errorf("old delivery %+v", d)
	}
	if d, _ := e.Delivery(t, fresh.RequestID.String()); d.Status != domain.StatusQueued {
		t.Errorf("fresh delivery %+v", d)
	}
	testkit.WaitEvents(t, e.JS, user, old.RequestID.String(), queued, failed)
}
