package events_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"google.golang.org/protobuf/proto"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/natstest"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/ports/events"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// issued creates a transfer of a new user and issues its voucher (the worker's two steps); it
// returns the user and the transfer's id.
func issued(t *testing.T, e *testkit.Env) (user, id string) {
	t.Helper()
	user, pm := e.NewUser()
	tr, err := e.Client.CreateTransfer(e.Ctx(t, user), testkit.Request("k-"+uuid.NewString(), pm))
	if err != nil {
		t.Fatal(err)
	}
	tid := uuid.MustParse(tr.GetTransfer().GetId())
	now := e.Clock.Now()
	if _, err := e.Repo.Update(t.Context(), uuid.Nil, tid, func(x *domain.Transfer) error {
		return x.ClaimCharge(now, now.Add(time.Minute))
	}); err != nil {
		t.Fatal(err)
	}
	v, err := domain.NewVoucher(e.PINs, tid, now, domain.DefaultVoucherTTL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Repo.Update(t.Context(), uuid.Nil, tid, func(x *domain.Transfer) error {
		return x.Complete("ch_"+tid.String(), v, now)
	}); err != nil {
		t.Fatal(err)
	}
	return user, tid.String()
}

// TestDeliveryChangedConsumer: notifications' DeliveryChanged, read through the durable
// consumer with transfers' NATS credentials, e-mails the sender of a voucher SMS that failed for
// good, once however often the report comes; other reports, another user's transfer and a
// message that cannot be read ask for nothing.
func TestDeliveryChangedConsumer(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, id := issued(t, e)
	other, _ := e.NewUser()
	sms := e.VoucherSMSes(t, id)[0].Request

	srv := natstest.Start(t)
	_, admin := srv.Connect(t, bus.IdentityAdmin)
	if err := bus.EnsureStreams(t.Context(), admin); err != nil {
		t.Fatal(err)
	}
	_, notifications := srv.Connect(t, "notifications")
	_, transfers := srv.Connect(t, "transfers")

	// The consumer starts first: it reads what is published from then on.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- events.ConsumeDeliveryChanged(ctx, transfers, e.App, testkit.Discard) }()
	t.Cleanup(func() { cancel(); <-done }) //nolint:errcheck // the consumer's error after cancel is the cancellation
	testkit.Eventually(t, waitFor, "the consumer", func() bool {
		_, err := transfers.Consumer(t.Context(), bus.StreamEvents, bus.DurableTransfersSMSFailures)
		return err == nil
	})

	published := 0
	publish := func(owner string, data []byte) {
		t.Helper()
		subject, err := bus.Subject(bus.DomainDeliveries, owner, "failed")
		if err != nil {
			t.Fatal(err)
		}
		msg := nats.NewMsg(subject)
		msg.Data = data
		msg.Header.Set(outbox.HeaderEventType, "thumela.notifications.v1.DeliveryChanged")
		if _, err := notifications.PublishMsg(t.Context(), msg); err != nil {
			t.Fatal(err)
		}
		published++
	}
	report := func(owner string, template notificationsv1.Template, status, previous notificationsv1.DeliveryStatus) {
		t.Helper()
		data, err := proto.Marshal(&notificationsv1.DeliveryChanged{
			Delivery: &notificationsv1.Delivery{
				RequestId: sms.GetId(), Channel: notificationsv1.Channel_CHANNEL_SMS, Recipient: sms.GetRecipient(),
				Template: template, Reference: id, Status: status, FailureReason: "The number is not reachable.",
			},
			PreviousStatus: previous,
		})
		if err != nil {
			t.Fatal(err)
		}
		publish(owner, data)
	}
	const (
		sent      = notificationsv1.DeliveryStatus_DELIVERY_STATUS_SENT
		delivered = notificationsv1.DeliveryStatus_DELIVERY_STATUS_DELIVERED
		failed    = notificationsv1.DeliveryStatus_DELIVERY_STATUS_FAILED
		voucher   = notificationsv1.Template_TEMPLATE_VOUCHER_ISSUED
	)
	report(user, voucher, delivered, sent)                                         // not a failure
	report(user, notificationsv1.Template_TEMPLATE_VOUCHER_REMINDER, failed, sent) // a reminder's
	report(other, voucher, failed, sent)                                           // not the other user's transfer
	report(user, voucher, failed, sent)                                            // the one to tell
	report(user, voucher, failed, sent)                                            // its redelivery
	publish(user, []byte("not a proto"))

	testkit.Eventually(t, waitFor, "every report to be handled", func() bool {
		cons, err := transfers.Consumer(t.Context(), bus.StreamEvents, bus.DurableTransfersSMSFailures)
		if err != nil {
			return false
		}
		info, err := cons.Info(t.Context())
		return err == nil && info.Delivered.Consumer >= uint64(published) && info.NumAckPending == 0 && info.NumPending == 0
	})
	// The redelivery found the request in the outbox already (its id comes from the transfer and
	// the failed SMS): one request.
	mails := e.NotificationsOf(t, id, notificationsv1.Template_TEMPLATE_VOUCHER_SMS_FAILED)
	if len(mails) != 1 {
		t.Fatalf("%d e-mails to the sender about the failed voucher SMS, want 1: %v", len(mails), mails)
	}
	m := mails[0].Request
	if m.GetRecipient() != testkit.SenderEmail || m.GetChannel() != notificationsv1.Channel_CHANNEL_EMAIL ||
		m.GetParams()["reason"] != "The number is not reachable." || m.GetParams()["recipient_phone"] != "+27821234567" {
		t.Fatalf("the e-mail's request = %v", m)
	}
}
