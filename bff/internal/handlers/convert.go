package handlers

import (
	"google.golang.org/protobuf/types/known/timestamppb"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
)

// The browser's messages are the BFF's own (thumela.bff.v1): they leave out what a browser
// must never see (vault tokens, user ids) and keep the web client independent of the
// services' versions. Their enums are mapped value by value (enums.go).

func paymentMethodToBFF(p *paymentmethodsv1.PaymentMethod) *bffv1.PaymentMethod {
	if p == nil {
		return nil
	}
	return &bffv1.PaymentMethod{
		Id:          p.GetId(),
		Name:        p.GetName(),
		Type:        paymentMethodTypes.toBFF(p.GetType()),
		Brand:       cardBrands.toBFF(p.GetBrand()),
		LastFour:    p.GetLastFour(),
		ExpiryMonth: p.GetExpiryMonth(),
		ExpiryYear:  p.GetExpiryYear(),
		IsDefault:   p.GetIsDefault(),
	}
}

func transferToBFF(t *transfersv1.Transfer) *bffv1.Transfer {
	if t == nil {
		return nil
	}
	out := &bffv1.Transfer{
		Id:                    t.GetId(),
		Reference:             t.GetReference(),
		RecipientName:         t.GetRecipientName(),
		RecipientPhone:        t.GetRecipientPhone(),
		Bank:                  banks.toBFF(t.GetBank()),
		AmountCents:           t.GetAmountCents(),
		FeeCents:              t.GetFeeCents(),
		TotalAmountCents:      t.GetTotalAmountCents(),
		FeeWaived:             t.GetFeeWaived(),
		Status:                transferStatuses.toBFF(t.GetStatus()),
		FailureReason:         t.GetFailureReason(),
		PaymentMethodId:       t.GetPaymentMethodId(),
		PaymentMethodName:     t.GetPaymentMethodName(),
		PaymentMethodLastFour: t.GetPaymentMethodLastFour(),
		CreatedAt:             t.GetCreatedAt(),
		UpdatedAt:             t.GetUpdatedAt(),
		RefundStatus:          refundStatuses.toBFF(t.GetRefundStatus()),
	}
	out.RecipientKnownConfirmed = t.GetRecipientKnownConfirmed()
	// A recurring send's occurrence, and how the total was paid (credit first, the card the
	// rest): the confirmation step and the details dialog show both.
	out.ScheduleId = t.GetScheduleId()
	out.OccurrenceDate = t.GetOccurrenceDate()
	out.CreditAppliedCents = t.GetCreditAppliedCents()
	out.CardChargeCents = t.GetCardChargeCents()
	if l := t.GetWithdrawalLocation(); l != nil {
		out.WithdrawalLocation = &bffv1.WithdrawalLocation{Name: l.GetName(), Type: l.GetType()}
	}
	if v := t.GetVoucher(); v != nil {
		out.Voucher = &bffv1.Voucher{
			Number:              v.GetNumber(),
			CollectionStatus:    collectionStatuses.toBFF(v.GetCollectionStatus()),
			ExpiresAt:           v.GetExpiresAt(),
			CollectedAt:         v.GetCollectedAt(),
			CollectedAtLocation: v.GetCollectedAtLocation(),
			PinChosenBySender:   v.GetPinChosenBySender(),
			ResendsLeft:         v.GetResendsLeft(),
			PhoneChangesLeft:    v.GetPhoneChangesLeft(),
			LockedUntil:         v.GetLockedUntil(),
		}
	}
	return out
}

func transfersToBFF(ts []*transfersv1.Transfer) []*bffv1.Transfer {
	out := make([]*bffv1.Transfer, 0, len(ts))
	for _, t := range ts {
		out = append(out, transferToBFF(t))
	}
	return out
}

func scheduleToBFF(s *transfersv1.Schedule) *bffv1.Schedule {
	if s == nil {
		return nil
	}
	out := &bffv1.Schedule{
		Id:                    s.GetId(),
		RecipientName:         s.GetRecipientName(),
		RecipientPhone:        s.GetRecipientPhone(),
		Bank:                  banks.toBFF(s.GetBank()),
		AmountCents:           s.GetAmountCents(),
		PaymentMethodId:       s.GetPaymentMethodId(),
		PaymentMethodName:     s.GetPaymentMethodName(),
		PaymentMethodLastFour: s.GetPaymentMethodLastFour(),
		Frequency:             scheduleFrequencies.toBFF(s.GetFrequency()),
		StartDate:             s.GetStartDate(),
		EndDate:               s.GetEndDate(),
		State:                 scheduleStates.toBFF(s.GetState()),
		NextDate:              s.GetNextDate(),
		RecentOccurrences:     make([]*bffv1.ScheduleOccurrence, 0, len(s.GetRecentOccurrences())),
		CreatedAt:             s.GetCreatedAt(),
		UpdatedAt:             s.GetUpdatedAt(),
		FeeCents:              s.GetFeeCents(),
		TotalCents:            s.GetTotalCents(),
	}
	for _, o := range s.GetRecentOccurrences() {
		out.RecentOccurrences = append(out.RecentOccurrences, &bffv1.ScheduleOccurrence{
			Date: o.GetDate(), TransferId: o.GetTransferId(), FailureReason: o.GetFailureReason(), CreatedAt: o.GetCreatedAt(),
			TransferStatus: transferStatuses.toBFF(o.GetTransferStatus()),
		})
	}
	return out
}

func creditMovementToBFF(m *transfersv1.CreditMovement) *bffv1.CreditMovement {
	if m == nil {
		return nil
	}
	return &bffv1.CreditMovement{
		Id:          m.GetId(),
		Kind:        creditMovementKinds.toBFF(m.GetKind()),
		AmountCents: m.GetAmountCents(),
		TransferId:  m.GetTransferId(),
		OccurredAt:  m.GetOccurredAt(),
	}
}

func quoteToBFF(q *feesv1.Quote) *bffv1.FeeQuote {
	if q == nil {
		return nil
	}
	return &bffv1.FeeQuote{
		AmountCents:      q.GetAmountCents(),
		BankFeeCents:     q.GetBankFeeCents(),
		PlatformFeeCents: q.GetPlatformFeeCents(),
		TotalFeeCents:    q.GetTotalFeeCents(),
		TotalAmountCents: q.GetTotalAmountCents(),
		Waived:           q.GetWaived(),
		WaivedFeeCents:   q.GetWaivedFeeCents(),
	}
}

func limitsToBFF(ls []*transfersv1.LimitUsage) []*bffv1.LimitUsage {
	out := make([]*bffv1.LimitUsage, 0, len(ls))
	for _, l := range ls {
		out = append(out, &bffv1.LimitUsage{
			Kind:           limitKinds.toBFF(l.GetKind()),
			LimitCents:     l.GetLimitCents(),
			UsedCents:      l.GetUsedCents(),
			RemainingCents: l.GetRemainingCents(),
		})
	}
	return out
}

// isVoucherSMS reports whether d is the SMS that carries a transfer's voucher to the
// recipient (its reference is the transfer id).
func isVoucherSMS(d *notificationsv1.Delivery) bool {
	return d.GetChannel() == notificationsv1.Channel_CHANNEL_SMS &&
		d.GetTemplate() == notificationsv1.Template_TEMPLATE_VOUCHER_ISSUED &&
		d.GetReference() != ""
}

// voucherSMSOf picks the voucher SMS among a transfer's deliveries: the newest one asked for
// (there is one per transfer; should the voucher ever be sent again, the last attempt is what
// the recipient is waiting for). Nil when there is none yet.
func voucherSMSOf(ds []*notificationsv1.Delivery) *bffv1.SmsDelivery {
	var latest *notificationsv1.Delivery
	for _, d := range ds {
		if !isVoucherSMS(d) {
			continue
		}
		if latest == nil || d.GetQueuedAt().AsTime().After(latest.GetQueuedAt().AsTime()) {
			latest = d
		}
	}
	if latest == nil {
		return nil
	}
	return smsDeliveryToBFF(latest)
}

// smsDeliveryToBFF is the sender's view of an SMS: its status, the number, when it reached the
// status, and why it failed. The statuses share their numbers.
func smsDeliveryToBFF(d *notificationsv1.Delivery) *bffv1.SmsDelivery {
	if d == nil {
		return nil
	}
	at := d.GetUpdatedAt()
	var reached *timestamppb.Timestamp
	switch d.GetStatus() {
	case notificationsv1.DeliveryStatus_DELIVERY_STATUS_QUEUED:
		reached = d.GetQueuedAt()
	case notificationsv1.DeliveryStatus_DELIVERY_STATUS_SENT:
		reached = d.GetSentAt()
	case notificationsv1.DeliveryStatus_DELIVERY_STATUS_DELIVERED:
		reached = d.GetDeliveredAt()
	case notificationsv1.DeliveryStatus_DELIVERY_STATUS_FAILED:
		reached = d.GetFailedAt()
	}
	if reached != nil {
		at = reached
	}
	out := &bffv1.SmsDelivery{
		Status:    smsDeliveryStatuses.toBFF(d.GetStatus()),
		Recipient: d.GetRecipient(),
		UpdatedAt: at,
	}
	if d.GetStatus() == notificationsv1.DeliveryStatus_DELIVERY_STATUS_FAILED {
		out.FailureReason = d.GetFailureReason()
	}
	return out
}
