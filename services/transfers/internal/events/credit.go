package events

import (
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// EventCredit is the last token of thumela.transfers.<user_id>.credit.
const EventCredit = "credit"

// CreditChanged is the event that the user's credit (balance now) or referral figures changed;
// the tabs ask for them again. id is derived from the change (a movement, a friend joining), so
// a retried transaction publishes it once.
func CreditChanged(userID, id uuid.UUID, balance domain.Money, at time.Time) (outbox.Message, error) {
	subject, err := bus.Subject(bus.DomainTransfers, userID.String(), EventCredit)
	if err != nil {
		return outbox.Message{}, err
	}
	return outbox.Message{
		ID:      id,
		Subject: subject,
		Payload: &transfersv1.CreditChanged{UserId: userID.String(), BalanceCents: balance.Cents(), OccurredAt: timestamppb.New(at)},
	}, nil
}

// CreditChangedID is the id of the CreditChanged event that the change what (a movement's id,
// a friend's id) made to user's figures.
func CreditChangedID(user, what uuid.UUID) uuid.UUID {
	return uuid.NewSHA1(what, []byte("credit_changed/"+user.String()))
}
