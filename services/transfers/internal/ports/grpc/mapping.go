package grpcport

import (
	"iter"
	"maps"
	"slices"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/intconv"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/events"
)

// The proto ↔ domain mapping of the API. A transfer is answered as its events carry it
// (events.Transfer), so the web client reads it the same way from a call and from the stream;
// the rest (requests' enums, recipients, schedules, credit, limits) only the API speaks.

// fromProto is the value of all that toProto maps to p, or the zero value when none does (an
// unspecified or unknown enum): the inverse of a one-to-one mapping, so each enum is mapped in
// one place.
func fromProto[D, P comparable](all iter.Seq[D], toProto func(D) P, p P) D {
	for d := range all {
		if toProto(d) == p {
			return d
		}
	}
	var zero D
	return zero
}

// bankFromProto maps the contract's enum to a bank ("" when unspecified or unknown).
func bankFromProto(b feesv1.Bank) domain.Bank {
	return fromProto(slices.Values(domain.Banks), events.Bank, b)
}

// statusFromProto maps the contract's enum to a status ("" for UNSPECIFIED or unknown).
func statusFromProto(s transfersv1.TransferStatus) domain.Status {
	return fromProto(slices.Values(domain.Statuses), events.Status, s)
}

var frequencies = map[domain.Frequency]transfersv1.ScheduleFrequency{
	domain.Weekly:  transfersv1.ScheduleFrequency_SCHEDULE_FREQUENCY_WEEKLY,
	domain.Monthly: transfersv1.ScheduleFrequency_SCHEDULE_FREQUENCY_MONTHLY,
}

// frequency maps a frequency to the contract's enum.
func frequency(f domain.Frequency) transfersv1.ScheduleFrequency { return frequencies[f] }

// frequencyFromProto maps the contract's enum to a frequency ("" when unspecified or unknown).
func frequencyFromProto(f transfersv1.ScheduleFrequency) domain.Frequency {
	return fromProto(maps.Keys(frequencies), frequency, f)
}

var limitKinds = map[domain.LimitKind]transfersv1.LimitKind{
	domain.LimitPerTransfer: transfersv1.LimitKind_LIMIT_KIND_PER_TRANSFER,
	domain.LimitDaily:       transfersv1.LimitKind_LIMIT_KIND_DAILY,
	domain.LimitMonthly:     transfersv1.LimitKind_LIMIT_KIND_MONTHLY,
	domain.LimitYearly:      transfersv1.LimitKind_LIMIT_KIND_YEARLY,
	domain.LimitMinimum:     transfersv1.LimitKind_LIMIT_KIND_MINIMUM,
}

func timestamp(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}

// recipient is a saved recipient as the API carries it.
func recipient(r domain.Recipient) *transfersv1.Recipient {
	return &transfersv1.Recipient{
		Id:         r.ID.String(),
		Name:       r.Name,
		Phone:      r.Phone.E164(),
		Bank:       events.Bank(r.Bank),
		CreatedAt:  timestamp(r.CreatedAt),
		UpdatedAt:  timestamp(r.UpdatedAt),
		LastPaidAt: timestamp(r.LastPaidAt),
	}
}

var scheduleStates = map[domain.ScheduleState]transfersv1.ScheduleState{
	domain.ScheduleActive: transfersv1.ScheduleState_SCHEDULE_STATE_ACTIVE,
	domain.SchedulePaused: transfersv1.ScheduleState_SCHEDULE_STATE_PAUSED,
	domain.ScheduleEnded:  transfersv1.ScheduleState_SCHEDULE_STATE_ENDED,
}

// schedule is s as the API carries it on today (a paused schedule shows the date a resume
// would continue from). The card's token and the sender's details stay inside the service.
func schedule(s *domain.Schedule, today domain.Date) *transfersv1.Schedule {
	d := s.Data()
	fee := d.Quote.Full()
	out := &transfersv1.Schedule{
		Id:                    d.ID.String(),
		RecipientName:         d.RecipientName,
		RecipientPhone:        d.RecipientPhone.E164(),
		Bank:                  events.Bank(d.Bank),
		AmountCents:           d.Amount.Cents(),
		PaymentMethodId:       d.PaymentMethod.ID,
		PaymentMethodName:     d.PaymentMethod.Name,
		PaymentMethodLastFour: d.PaymentMethod.LastFour,
		Frequency:             frequency(d.Frequency),
		StartDate:             d.Start.String(),
		EndDate:               d.End.String(),
		State:                 scheduleStates[d.State],
		NextDate:              s.NextShown(today).String(),
		CreatedAt:             timestamp(d.CreatedAt),
		UpdatedAt:             timestamp(d.UpdatedAt),
		FeeCents:              fee.Cents(),
		TotalCents:            d.Amount.Add(fee).Cents(),
	}
	for _, o := range d.Recent {
		occ := &transfersv1.ScheduleOccurrence{Date: o.Date.String(), FailureReason: o.FailureReason, CreatedAt: timestamp(o.CreatedAt)}
		if o.TransferID != uuid.Nil {
			occ.TransferId = o.TransferID.String()
			occ.TransferStatus = events.Status(o.TransferStatus)
			if o.TransferStatus == domain.StatusFailed && occ.FailureReason == "" {
				occ.FailureReason = o.TransferFailure
			}
		}
		out.RecentOccurrences = append(out.RecentOccurrences, occ)
	}
	return out
}

var creditKinds = map[domain.CreditKind]transfersv1.CreditMovementKind{
	domain.CreditWelcome:  transfersv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_REFERRAL_WELCOME,
	domain.CreditReward:   transfersv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_REFERRAL_REWARD,
	domain.CreditSpent:    transfersv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_SPENT,
	domain.CreditReturned: transfersv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_RETURNED,
}

// credit is a user's credit and referral figures as GetCredit answers them.
func credit(c domain.Credit) *transfersv1.GetCreditResponse {
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
