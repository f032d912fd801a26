// Package events maps deliveries to their proto form, shared by the API (ports) and the
// events the repository writes to the outbox, and builds the notification request that
// e-mails a support message to the support inbox.
package events

import (
	"maps"
	"strings"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/notifications/internal/domain"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/intconv"
	"github.com/thumela/thumela/services/platform/outbox"
)

// EventChanged is the last token of the DeliveryChanged subject.
const EventChanged = "changed"

// EventFailed is the last token of the subject a delivery's failure is announced on besides
// EventChanged (Announcements).
const EventFailed = "failed"

// SourceService names this service in the requests it writes.
const SourceService = "notifications"

// Channel maps a channel to the contract's enum.
func Channel(c domain.Channel) notificationsv1.Channel {
	switch c {
	case domain.ChannelEmail:
		return notificationsv1.Channel_CHANNEL_EMAIL
	case domain.ChannelSMS:
		return notificationsv1.Channel_CHANNEL_SMS
	}
	return notificationsv1.Channel_CHANNEL_UNSPECIFIED
}

// ChannelFromProto maps the contract's channel; an unknown one is domain.ChannelUnspecified.
func ChannelFromProto(c notificationsv1.Channel) domain.Channel {
	switch c {
	case notificationsv1.Channel_CHANNEL_EMAIL:
		return domain.ChannelEmail
	case notificationsv1.Channel_CHANNEL_SMS:
		return domain.ChannelSMS
	}
	return domain.ChannelUnspecified
}

// Template maps a template to the contract's enum (TEMPLATE_<NAME>).
func Template(t domain.Template) notificationsv1.Template {
	if !t.Known() {
		return notificationsv1.Template_TEMPLATE_UNSPECIFIED
	}
	return notificationsv1.Template(notificationsv1.Template_value["TEMPLATE_"+strings.ToUpper(string(t))])
}

// TemplateFromProto maps the contract's template to its lower snake name; one the service
// does not know is domain.TemplateUnknown.
func TemplateFromProto(t notificationsv1.Template) domain.Template {
	name, ok := notificationsv1.Template_name[int32(t)]
	if !ok {
		return domain.TemplateUnknown
	}
	d := domain.Template(strings.ToLower(strings.TrimPrefix(name, "TEMPLATE_")))
	if !d.Known() {
		return domain.TemplateUnknown
	}
	return d
}

// Status maps a status to the contract's enum.
func Status(s domain.Status) notificationsv1.DeliveryStatus {
	switch s {
	case domain.StatusQueued:
		return notificationsv1.DeliveryStatus_DELIVERY_STATUS_QUEUED
	case domain.StatusSent:
		return notificationsv1.DeliveryStatus_DELIVERY_STATUS_SENT
	case domain.StatusDelivered:
		return notificationsv1.DeliveryStatus_DELIVERY_STATUS_DELIVERED
	case domain.StatusFailed:
		return notificationsv1.DeliveryStatus_DELIVERY_STATUS_FAILED
	}
	return notificationsv1.DeliveryStatus_DELIVERY_STATUS_UNSPECIFIED
}

func ts(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}

// Delivery is d as the API and the events carry it: never the message's text.
func Delivery(d domain.Delivery) *notificationsv1.Delivery {
	return &notificationsv1.Delivery{
		RequestId:     d.RequestID.String(),
		Channel:       Channel(d.Channel),
		Recipient:     d.Recipient,
		Template:      Template(d.Template),
		Reference:     d.Reference,
		Status:        Status(d.Status),
		FailureReason: d.FailureReason,
		Attempts:      intconv.Int32(d.Attempts),
		QueuedAt:      ts(d.QueuedAt),
		SentAt:        ts(d.SentAt),
		DeliveredAt:   ts(d.DeliveredAt),
		FailedAt:      ts(d.FailedAt),
		UpdatedAt:     ts(d.UpdatedAt),
	}
}

// Announced reports whether d's status changes are published (DeliveryChanged). Only SMS
// deliveries are: the sender's tab shows the voucher SMS's state (the BFF reads nothing else),
// while an e-mail goes to the sender themself, who sees it arrive. An e-mail's two events
// (queued, sent) were a third of the service's writes per transfer and read by no one; its
// state stays in the deliveries table and ListDeliveries answers for it.
func Announced(d domain.Delivery) bool { return d.Channel == domain.ChannelSMS }

// Announcements are the outbox messages of d's move from previous ("" for a new delivery): its
// DeliveryChanged on thumela.deliveries.<user_id>.changed (the sender's open pages), and, when
// it has just failed, the same event on thumela.deliveries.<user_id>.failed, so that a consumer
// of failures alone (transfers, which tells the sender) need not read every change.
func Announcements(d domain.Delivery, previous domain.Status) ([]outbox.Message, error) {
	changed, err := Changed(d, previous)
	if err != nil {
		return nil, err
	}
	if d.Status != domain.StatusFailed || previous == domain.StatusFailed {
		return []outbox.Message{changed}, nil
	}
	subject, err := bus.Subject(bus.DomainDeliveries, d.UserID, EventFailed)
	if err != nil {
		return nil, err
	}
	failed := changed
	failed.Subject = subject
	return []outbox.Message{changed, failed}, nil
}

// Changed is the outbox message announcing d's move from previous ("" for a new delivery),
// on thumela.deliveries.<user_id>.changed.
func Changed(d domain.Delivery, previous domain.Status) (outbox.Message, error) {
	subject, err := bus.Subject(bus.DomainDeliveries, d.UserID, EventChanged)
	if err != nil {
		return outbox.Message{}, err
	}
	return outbox.Message{
		Subject: subject,
		Payload: &notificationsv1.DeliveryChanged{
			Delivery:       Delivery(d),
			PreviousStatus: Status(previous),
			OccurredAt:     timestamppb.New(d.UpdatedAt),
		},
	}, nil
}

// SupportRequest is the request to e-mail support message m to recipient (the support
// inbox), on thumela.notifications.notifications.<user id or "support">.email. It is ephemeral: the row
// leaves the outbox once JetStream has it.
func SupportRequest(m domain.SupportMessage, recipient string) (outbox.Message, error) {
	user := m.UserID
	if user == "" {
		user = domain.UserSupport
	}
	subject, err := bus.NotificationSubject(SourceService, user, string(domain.ChannelEmail))
	if err != nil {
		return outbox.Message{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return outbox.Message{}, err
	}
	params := map[string]string{
		domain.ParamTicket:  m.Ticket,
		domain.ParamKind:    string(m.Kind),
		domain.ParamName:    m.Name,
		domain.ParamEmail:   m.Email,
		domain.ParamSubject: m.Subject,
		domain.ParamMessage: m.Message,
	}
	if m.UserID != "" {
		// Who sent it, as the account knows them: the form's address is whatever was typed.
		params[domain.ParamAccount] = "signed in as " + m.AccountEmail + " (account " + m.UserID + ")"
	}
	for k, v := range maps.All(m.Details) {
		params[domain.ParamDetailPrefix+k] = v
	}
	return outbox.Message{
		ID:      id,
		Subject: subject,
		Payload: &notificationsv1.NotificationRequest{
			Id:            id.String(),
			Channel:       notificationsv1.Channel_CHANNEL_EMAIL,
			Recipient:     recipient,
			Template:      notificationsv1.Template_TEMPLATE_SUPPORT_MESSAGE,
			Params:        params,
			UserId:        user,
			Reference:     m.Ticket,
			SourceService: SourceService,
			CreatedAt:     timestamppb.New(m.CreatedAt),
		},
		Ephemeral: true,
	}, nil
}
