// Package events maps transfers to their proto form and to the outbox messages that announce
// their changes. The API (ports) and the events the repository writes share it, so a transfer
// looks the same everywhere.
package events

import (
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// Event names: the last token of thumela.transfers.<user_id>.<event>.
const (
	EventStatus  = "status"
	EventVoucher = "voucher"
	// ChannelSMS is the last token of thumela.notifications.<user_id>.sms.
	ChannelSMS = "sms"
	// TemplateVoucherIssued names the recipient's SMS for the delivery adapter.
	TemplateVoucherIssued = "voucher_issued"
	// SourceService is this service's name on the notifications it writes.
	SourceService = "transfers"
)

var banks = map[domain.Bank]feesv1.Bank{
	domain.StandardBank: feesv1.Bank_BANK_STANDARD_BANK,
	domain.ABSA:         feesv1.Bank_BANK_ABSA,
	domain.FNB:          feesv1.Bank_BANK_FNB,
	domain.Nedbank:      feesv1.Bank_BANK_NEDBANK,
	domain.Capitec:      feesv1.Bank_BANK_CAPITEC,
}

// Bank maps a bank to the contract's enum.
func Bank(b domain.Bank) feesv1.Bank { return banks[b] }

// BankFromProto maps the contract's enum to a bank ("" when unspecified or unknown).
func BankFromProto(b feesv1.Bank) domain.Bank { return keyOf(banks, b) }

var statuses = map[domain.Status]transfersv1.TransferStatus{
	domain.StatusPending:    transfersv1.TransferStatus_TRANSFER_STATUS_PENDING,
	domain.StatusProcessing: transfersv1.TransferStatus_TRANSFER_STATUS_PROCESSING,
	domain.StatusCompleted:  transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED,
	domain.StatusFailed:     transfersv1.TransferStatus_TRANSFER_STATUS_FAILED,
}

// Status maps a status to the contract's enum ("" is UNSPECIFIED).
func Status(s domain.Status) transfersv1.TransferStatus { return statuses[s] }

// StatusFromProto maps the contract's enum to a status ("" for UNSPECIFIED or unknown).
func StatusFromProto(s transfersv1.TransferStatus) domain.Status { return keyOf(statuses, s) }

// keyOf is the key m maps to v, or the zero key when none does (the maps above are one-to-one).
func keyOf[K, V comparable](m map[K]V, v V) K {
	for k, mv := range m {
		if mv == v {
			return k
		}
	}
	var zero K
	return zero
}

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

// Voucher is the voucher as the sender sees it: never the PIN. Nil before completion.
func Voucher(v domain.Voucher) *transfersv1.Voucher {
	if v.Status == "" {
		return nil
	}
	return &transfersv1.Voucher{
		Number:           v.Number,
		CollectionStatus: collections[v.Status],
		ExpiresAt:        timestamp(v.ExpiresAt),
		CollectedAt:      timestamp(v.CollectedAt),
	}
}

// Transfer is t as the API and the events carry it. The card's token and the PIN's hash stay
// inside the service.
func Transfer(t *domain.Transfer) *transfersv1.Transfer {
	s := t.State()
	return &transfersv1.Transfer{
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
		Voucher:               Voucher(s.Voucher),
		CreatedAt:             timestamppb.New(s.CreatedAt),
		UpdatedAt:             timestamppb.New(s.UpdatedAt),
	}
}

// eventID derives an event's id from the transfer and what happened: each step happens once
// per transfer, so a retried transaction can never publish two different ids for it.
func eventID(t *domain.Transfer, what string) uuid.UUID {
	return uuid.NewSHA1(t.ID(), []byte(what))
}

// Messages turns the events recorded on t into outbox messages: TransferStatusChanged on
// .status at every status step, VoucherChanged on .voucher when a voucher is issued or ends,
// and the recipient's SMS through the notifications stream when it is issued.
func Messages(t *domain.Transfer, evs []domain.Event) ([]outbox.Message, error) {
	user := t.UserID().String()
	var msgs []outbox.Message
	for _, ev := range evs {
		switch ev := ev.(type) {
		case domain.StatusChanged:
			subject, err := bus.Subject(bus.DomainTransfers, user, EventStatus)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, outbox.Message{
				ID:      eventID(t, "status/"+string(t.Status())),
				Subject: subject,
				Payload: &transfersv1.TransferStatusChanged{
					Transfer:       Transfer(t),
					PreviousStatus: Status(ev.Previous),
					OccurredAt:     timestamppb.New(ev.At),
				},
			})
		case domain.VoucherIssued:
			changed, err := voucherChanged(t, ev.At)
			if err != nil {
				return nil, err
			}
			sms, err := VoucherSMS(t, ev.PIN, ev.At)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, changed, sms)
		case domain.VoucherChanged:
			changed, err := voucherChanged(t, ev.At)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, changed)
		default:
			return nil, fmt.Errorf("events: unknown event %T", ev)
		}
	}
	return msgs, nil
}

func voucherChanged(t *domain.Transfer, at time.Time) (outbox.Message, error) {
	subject, err := bus.Subject(bus.DomainTransfers, t.UserID().String(), EventVoucher)
	if err != nil {
		return outbox.Message{}, err
	}
	v := t.Voucher()
	return outbox.Message{
		ID:      eventID(t, "voucher/"+string(v.Status)),
		Subject: subject,
		Payload: &transfersv1.VoucherChanged{
			TransferId: t.ID().String(),
			Voucher:    Voucher(v),
			OccurredAt: timestamppb.New(at),
			Transfer:   Transfer(t),
		},
	}, nil
}

// VoucherSMS is the recipient's SMS: who sent how much, the voucher number and PIN, where to
// withdraw and until when (Johannesburg time).
func VoucherSMS(t *domain.Transfer, pin string, at time.Time) (outbox.Message, error) {
	subject, err := bus.Subject(bus.DomainNotifications, t.UserID().String(), ChannelSMS)
	if err != nil {
		return outbox.Message{}, err
	}
	s := t.State()
	id := eventID(t, "sms/"+TemplateVoucherIssued)
	names := make([]string, len(domain.Banks))
	for i, b := range domain.Banks {
		names[i] = b.DisplayName()
	}
	sender := s.SenderName
	if sender == "" {
		sender = "Someone"
	}
	body := fmt.Sprintf("Thumela: %s sent you %s. Voucher number %s, PIN %s. "+
		"Withdraw the cash at any %s or %s ATM with the voucher number, PIN and this phone number "+
		"before %s. Never share your PIN. Ref %s.",
		sender, s.Amount, s.Voucher.Number, pin,
		strings.Join(names[:len(names)-1], ", "), names[len(names)-1],
		s.Voucher.ExpiresAt.In(domain.Johannesburg).Format("2 Jan 2006 15:04 SAST"), t.Reference())
	return outbox.Message{ID: id, Subject: subject, Payload: &notificationsv1.Notification{
		Id:            id.String(),
		Channel:       notificationsv1.Channel_CHANNEL_SMS,
		Recipient:     s.RecipientPhone.E164(),
		Subject:       "Your Thumela cash voucher",
		Body:          body,
		Template:      TemplateVoucherIssued,
		UserId:        s.UserID.String(),
		SourceService: SourceService,
		CreatedAt:     timestamppb.New(at),
	}}, nil
}
