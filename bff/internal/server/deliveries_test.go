package server_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"

	"github.com/thumela/thumela/bff/internal/live"
)

// TestLiveEventsCarryTheVoucherSMSsDelivery: the notifications service's delivery events
// (thumela.deliveries.<user>.changed on THUMELA_EVENTS) reach the sender's tab as
// SmsDeliveryChanged for the transfer; e-mails and other users' deliveries do not.
func TestLiveEventsCarryTheVoucherSMSsDelivery(t *testing.T) {
	t.Parallel()
	js := jetStream(t)
	bff := newLiveBFF(t, js, live.Limits{})
	events := signedIn(t, bff)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stream, _ := watch(t, ctx, events, "")

	queued := time.Date(2026, 3, 14, 11, 12, 0, 0, time.UTC)
	changed := func(d *notificationsv1.Delivery) *notificationsv1.DeliveryChanged {
		return &notificationsv1.DeliveryChanged{Delivery: d, OccurredAt: d.GetUpdatedAt()}
	}
	// Not for this tab: another user's SMS, and the user's own e-mail.
	publish(t, js, "thumela.deliveries.u2.changed", changed(voucherSMS("t-other", notificationsv1.DeliveryStatus_DELIVERY_STATUS_DELIVERED, queued)))
	publish(t, js, "thumela.deliveries.u1.changed", changed(&notificationsv1.Delivery{
		Channel: notificationsv1.Channel_CHANNEL_EMAIL, Template: notificationsv1.Template_TEMPLATE_TRANSFER_RECEIPT,
		Reference: "t1", Status: notificationsv1.DeliveryStatus_DELIVERY_STATUS_SENT, UpdatedAt: timestamppb.New(queued),
	}))
	// The user's recipient's SMS: sent, then failed for good.
	publish(t, js, "thumela.deliveries.u1.changed", changed(voucherSMS("t1", notificationsv1.DeliveryStatus_DELIVERY_STATUS_QUEUED, queued)))
	publish(t, js, "thumela.deliveries.u1.changed", changed(voucherSMS("t1", notificationsv1.DeliveryStatus_DELIVERY_STATUS_FAILED, queued)))

	first := next(t, stream).GetSmsDeliveryChanged()
	if first.GetTransferId() != "t1" || first.GetSmsDelivery().GetStatus() != bffv1.SmsDeliveryStatus_SMS_DELIVERY_STATUS_QUEUED {
		t.Fatalf("first event = %v, want t1's SMS queued", first)
	}
	second := next(t, stream).GetSmsDeliveryChanged()
	want := &bffv1.SmsDeliveryChanged{TransferId: "t1", SmsDelivery: &bffv1.SmsDelivery{
		Status: bffv1.SmsDeliveryStatus_SMS_DELIVERY_STATUS_FAILED, Recipient: "+27821234567",
		UpdatedAt: timestamppb.New(queued.Add(3 * time.Second)), FailureReason: "The number is not reachable.",
	}}
	if !proto.Equal(second, want) {
		t.Fatalf("second event = %v\nwant %v", second, want)
	}
}
