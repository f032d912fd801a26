package events

import (
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// EventSchedules is the last token of thumela.transfers.<user_id>.schedules.
const EventSchedules = "schedules"

// SchedulesChanged is the event that the user's schedules changed (one was created, paused,
// resumed, deleted or ended, or an occurrence was recorded); the tabs list them again. Each
// change is its own event, with a new id.
func SchedulesChanged(userID uuid.UUID, at time.Time) (outbox.Message, error) {
	subject, err := bus.Subject(bus.DomainTransfers, userID.String(), EventSchedules)
	if err != nil {
		return outbox.Message{}, err
	}
	return outbox.Message{
		ID:      uuid.New(),
		Subject: subject,
		Payload: &transfersv1.SchedulesChanged{UserId: userID.String(), OccurredAt: timestamppb.New(at)},
	}, nil
}

// scheduledSendFailed is the SCHEDULED_SEND_FAILED e-mail's params.
func scheduledSendFailed(firstName, recipient string, amount domain.Money, date domain.Date, reason string) map[string]string {
	return map[string]string{
		"first_name":     firstName,
		"recipient_name": recipient,
		"amount_cents":   cents(amount),
		"date":           date.String(),
		"reason":         reason,
	}
}

// ScheduledTransferFailed tells the sender that the transfer the scheduler made for one of
// their recurring sends failed (its card declined): they were not there to see it.
func ScheduledTransferFailed(t *domain.Transfer) (notificationsv1.Template, map[string]string) {
	s := t.State()
	return notificationsv1.Template_TEMPLATE_SCHEDULED_SEND_FAILED,
		scheduledSendFailed(s.SenderFirstName, s.RecipientName, s.Amount, s.OccurrenceDate, s.FailureReason)
}

// OccurrenceRefused asks for the SCHEDULED_SEND_FAILED e-mail of an occurrence of s on date for
// which no transfer could be made (a limit), with reason; false when the schedule has no address
// for the sender. Its id is derived from the schedule and the date, so a retried tick cannot ask
// for a second e-mail about one occurrence; the reference is the schedule's id.
func OccurrenceRefused(s *domain.Schedule, date domain.Date, reason string, at time.Time) (outbox.Message, bool, error) {
	d := s.Data()
	if d.SenderEmail == "" {
		return outbox.Message{}, false, nil
	}
	subject, err := bus.NotificationSubject(SourceService, d.UserID.String(), ChannelEmail)
	if err != nil {
		return outbox.Message{}, false, err
	}
	tmpl := notificationsv1.Template_TEMPLATE_SCHEDULED_SEND_FAILED
	id := uuid.NewSHA1(d.ID, []byte(ChannelEmail+"/"+templateName(tmpl)+"/"+date.String()))
	return outbox.Message{ID: id, Subject: subject, Ephemeral: true, Payload: &notificationsv1.NotificationRequest{
		Id:            id.String(),
		Channel:       notificationsv1.Channel_CHANNEL_EMAIL,
		Recipient:     d.SenderEmail,
		Template:      tmpl,
		Params:        scheduledSendFailed(d.SenderFirstName, d.RecipientName, d.Amount, date, reason),
		UserId:        d.UserID.String(),
		Reference:     d.ID.String(),
		SourceService: SourceService,
		CreatedAt:     timestamppb.New(at),
	}}, true, nil
}
