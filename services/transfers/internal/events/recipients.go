package events

import (
	"strconv"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// EventRecipients is the last token of thumela.transfers.<user_id>.recipients.
const EventRecipients = "recipients"

// RecipientsChanged is the event that the user's saved recipients changed; the tabs list them
// again. id is uuid.Nil for a new one (an edit, a delete), or derived from the transfer whose
// completion saved the recipient, so that a retried completion publishes one event.
func RecipientsChanged(userID uuid.UUID, id uuid.UUID, at time.Time) (outbox.Message, error) {
	subject, err := bus.Subject(bus.DomainTransfers, userID.String(), EventRecipients)
	if err != nil {
		return outbox.Message{}, err
	}
	return outbox.Message{
		ID:      id,
		Subject: subject,
		Payload: &transfersv1.RecipientsChanged{UserId: userID.String(), OccurredAt: timestamppb.New(at)},
	}, nil
}

// RecipientSavedID is the id of the RecipientsChanged event of transfer t's completion.
func RecipientSavedID(t *domain.Transfer) uuid.UUID { return eventID(t, "recipients/saved") }

// RecipientPhoneChangedID is the RecipientsChanged id of the saved recipient's move to the
// transfer's new phone number, one per change of number.
func RecipientPhoneChangedID(t *domain.Transfer) uuid.UUID {
	return eventID(t, "recipients/phone/"+strconv.Itoa(t.Voucher().PhoneChanges))
}
