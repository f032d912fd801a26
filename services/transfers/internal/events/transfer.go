package events

import (
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/intconv"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// The transfer as its events carry it (TransferStatusChanged, VoucherChanged). The API answers
// with the same message (ports/grpc maps its responses with Transfer), so that the web client
// reads a transfer the same way from the live stream and from a call.

var banks = map[domain.Bank]feesv1.Bank{
	domain.StandardBank: feesv1.Bank_BANK_STANDARD_BANK,
	domain.ABSA:         feesv1.Bank_BANK_ABSA,
	domain.FNB:          feesv1.Bank_BANK_FNB,
	domain.Nedbank:      feesv1.Bank_BANK_NEDBANK,
	domain.Capitec:      feesv1.Bank_BANK_CAPITEC,
}

// Bank maps a bank to the contract's enum.
func Bank(b domain.Bank) feesv1.Bank { return banks[b] }

var statuses = map[domain.Status]transfersv1.TransferStatus{
	domain.StatusPending:    transfersv1.TransferStatus_TRANSFER_STATUS_PENDING,
	domain.StatusProcessing: transfersv1.TransferStatus_TRANSFER_STATUS_PROCESSING,
	domain.StatusCompleted:  transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED,
	domain.StatusFailed:     transfersv1.TransferStatus_TRANSFER_STATUS_FAILED,
}

// Status maps a status to the contract's enum ("" is UNSPECIFIED).
func Status(s domain.Status) transfersv1.TransferStatus { return statuses[s] }

var collections = map[domain.CollectionStatus]transfersv1.CollectionStatus{
	domain.CollectionAwaiting:  transfersv1.CollectionStatus_COLLECTION_STATUS_AWAITING_COLLECTION,
	domain.CollectionCollected: transfersv1.CollectionStatus_COLLECTION_STATUS_COLLECTED,
	domain.CollectionCancelled: transfersv1.CollectionStatus_COLLECTION_STATUS_CANCELLED,
	domain.CollectionExpired:   transfersv1.CollectionStatus_COLLECTION_STATUS_EXPIRED,
}

func timestamp(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}

// Voucher is the voucher of a transfer to bank as the sender sees it: never the PIN. Nil
// before completion.
func Voucher(v domain.Voucher, bank domain.Bank) *transfersv1.Voucher {
	if v.Status == "" {
		return nil
	}
	return &transfersv1.Voucher{
		Number:              v.Number,
		CollectionStatus:    collections[v.Status],
		ExpiresAt:           timestamp(v.ExpiresAt),
		CollectedAt:         timestamp(v.CollectedAt),
		CollectedAtLocation: v.Location(bank),
		PinChosenBySender:   v.PINChosenBySender,
		ResendsLeft:         intconv.Int32(max(domain.MaxVoucherResends-v.Resends, 0)),
		PhoneChangesLeft:    intconv.Int32(max(domain.MaxPhoneChanges-v.PhoneChanges, 0)),
		LockedUntil:         timestamp(v.LockedUntil),
	}
}

var refunds = map[domain.RefundStatus]transfersv1.RefundStatus{
	"":                    transfersv1.RefundStatus_REFUND_STATUS_NONE,
	domain.RefundPending:  transfersv1.RefundStatus_REFUND_STATUS_PENDING,
	domain.RefundRefunded: transfersv1.RefundStatus_REFUND_STATUS_REFUNDED,
}

// Transfer is t as the API and the events carry it. The card's token and the PIN's hash stay
// inside the service.
func Transfer(t *domain.Transfer) *transfersv1.Transfer {
	s := t.State()
	out := &transfersv1.Transfer{
		Id:                    s.ID.String(),
		UserId:                s.UserID.String(),
		Reference:             t.Reference(),
		RecipientName:         s.RecipientName,
		RecipientPhone:        s.RecipientPhone.E164(),
		Bank:                  Bank(s.Bank),
		AmountCents:           s.Amount.Cents(),
		BankFeeCents:          s.Fee.BankFee.Cents(),
		PlatformFeeCents:      s.Fee.PlatformFee.Cents(),
		FeeCents:              s.Fee.Charged().Cents(),
		TotalAmountCents:      t.Total().Cents(),
		FeeWaived:             s.Fee.Waived,
		Status:                Status(s.Status),
		FailureReason:         s.FailureReason,
		PaymentMethodId:       s.PaymentMethod.ID,
		PaymentMethodName:     s.PaymentMethod.Name,
		PaymentMethodLastFour: s.PaymentMethod.LastFour,
		WithdrawalLocation:    &transfersv1.WithdrawalLocation{Name: s.Location.Name, Type: s.Location.Type},
		Voucher:               Voucher(s.Voucher, s.Bank),
		CreatedAt:             timestamppb.New(s.CreatedAt),
		UpdatedAt:             timestamppb.New(s.UpdatedAt),
		RefundStatus:          refunds[s.Refund.Status],
	}
	out.RecipientKnownConfirmed = s.RecipientKnownConfirmed
	out.SaveRecipient = s.SaveRecipient
	out.CreditAppliedCents, out.CardChargeCents = s.CreditApplied.Cents(), t.CardCharge().Cents()
	out.FeeScheduleVersion = s.Fee.ScheduleVersion
	if s.ScheduleID != uuid.Nil {
		out.ScheduleId, out.OccurrenceDate = s.ScheduleID.String(), s.OccurrenceDate.String()
	}
	return out
}
