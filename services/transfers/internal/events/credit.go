package events

import (
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/intconv"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// EventCredit is the last token of thumela.transfers.<user_id>.credit.
const EventCredit = "credit"

var creditKinds = map[domain.CreditKind]transfersv1.CreditMovementKind{
	domain.CreditWelcome:  transfersv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_REFERRAL_WELCOME,
	domain.CreditReward:   transfersv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_REFERRAL_REWARD,
	domain.CreditSpent:    transfersv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_SPENT,
	domain.CreditReturned: transfersv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_RETURNED,
}

// Credit is a user's credit and referral figures as GetCredit answers them.
func Credit(c domain.Credit) *transfersv1.GetCreditResponse {
	out := &transfersv1.GetCreditResponse{
		BalanceCents:       c.Balance.Cents(),
		ReferralCode:       c.ReferralCode,
		FriendsJoined:      intconv.Int32(c.FriendsJoined),
		FriendsRewarded:    intconv.Int32(c.FriendsRewarded),
		RewardsEarnedCents: c.RewardsEarned.Cents(),
	}
	for _, e := range c.Recent {
		m := &transfersv1.CreditMovement{
			Id:          e.MovementID.String(),
			Kind:        creditKinds[e.Kind],
			AmountCents: e.Amount.Cents(),
			OccurredAt:  timestamp(e.At),
		}
		if e.TransferID != uuid.Nil {
			m.TransferId = e.TransferID.String()
		}
		out.RecentMovements = append(out.RecentMovements, m)
	}
	return out
}

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
