// Package events maps transfers to their proto form and to the outbox messages that announce
// their changes. The API (ports) and the events the repository writes share it, so a transfer
// looks the same everywhere.
package events

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/intconv"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/seal"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// Event names: the last token of thumela.transfers.<user_id>.<event>.
const (
	EventStatus  = "status"
	EventVoucher = "voucher"
	// ChannelSMS and ChannelEmail are the last token of thumela.notifications.<user_id>.<channel>.
	ChannelSMS   = "sms"
	ChannelEmail = "email"
	// SourceService is this service's name on the notification requests it writes.
	SourceService = "transfers"
	// The secrets of the recipient's SMS, sealed to the notifications service.
	SecretVoucherNumber = "voucher_number"
	SecretPIN           = "pin"
	// ParamPINBySender is "true" on a VOUCHER_ISSUED request whose PIN the sender chose (and
	// gives the recipient themselves): the secrets then hold the voucher number alone.
	ParamPINBySender = "pin_by_sender"
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

// eventID derives an event's id from the transfer and what happened: each step happens once
// per transfer, so a retried transaction can never publish two different ids for it. Steps that
// can happen more than once name their occurrence: a collection and its reversal by the ATM
// request's retrieval reference ("voucher/collected/<rrn>"), a re-issue by its number
// ("voucher/reissued/2").
func eventID(t *domain.Transfer, what string) uuid.UUID {
	return uuid.NewSHA1(t.ID(), []byte(what))
}

// occurrence is what + "/" + which, or what alone when which is empty (a collection recorded
// before requests had references).
func occurrence(what, which string) string {
	if which == "" {
		return what
	}
	return what + "/" + which
}

// Messages turns the events recorded on t into outbox messages: TransferStatusChanged on
// .status at every status step, VoucherChanged on .voucher when a voucher is issued,
// re-issued, collected, reversed or ends, and the notification requests: the recipient's SMS
// when the voucher is issued or re-issued and their reminder before it expires, and the
// sender's e-mails (the receipt at the issue, cash collected, the refund made). Secrets (the
// voucher number and PIN) are sealed to sealTo, the notifications service's public key.
func Messages(t *domain.Transfer, evs []domain.Event, sealTo seal.PublicKey) ([]outbox.Message, error) {
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
			// A scheduled send whose card declined: the sender is not watching (schedules.go).
			if t.Status() == domain.StatusFailed && t.State().ScheduleID != uuid.Nil {
				msgs, err = appendEmail(msgs, t, ev.At, "", ScheduledTransferFailed)
				if err != nil {
					return nil, err
				}
			}
		case domain.VoucherIssued:
			changed, err := voucherChanged(t, ev.At, "voucher/"+string(t.Voucher().Status))
			if err != nil {
				return nil, err
			}
			sms, err := VoucherSMS(t, ev.PIN, ev.At, sealTo, "")
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, changed, sms)
			msgs, err = appendEmail(msgs, t, ev.At, "", TransferReceipt)
			if err != nil {
				return nil, err
			}
		case domain.VoucherReissued:
			which := strconv.Itoa(ev.Reissue)
			changed, err := voucherChanged(t, ev.At, "voucher/reissued/"+which)
			if err != nil {
				return nil, err
			}
			sms, err := VoucherSMS(t, ev.PIN, ev.At, sealTo, which)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, changed, sms)
		case domain.VoucherChanged:
			changed, err := voucherChanged(t, ev.At, "voucher/"+string(t.Voucher().Status))
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, changed)
		case domain.VoucherCollected:
			changed, err := voucherChanged(t, ev.At, occurrence("voucher/collected", ev.RRN))
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, changed)
			msgs, err = appendEmail(msgs, t, ev.At, ev.RRN, CashCollected)
			if err != nil {
				return nil, err
			}
		case domain.VoucherReversed:
			changed, err := voucherChanged(t, ev.At, "voucher/reversed/"+ev.RRN)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, changed)
		case domain.VoucherReminder:
			sms, err := ReminderSMS(t, ev.At)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, sms)
		case domain.RefundCompleted:
			var err error
			msgs, err = appendEmail(msgs, t, ev.At, "", VoucherRefunded)
			if err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("events: unknown event %T", ev)
		}
	}
	return msgs, nil
}

// voucherChanged is the VoucherChanged event of t's voucher as it is now, with id what.
func voucherChanged(t *domain.Transfer, at time.Time, what string) (outbox.Message, error) {
	subject, err := bus.Subject(bus.DomainTransfers, t.UserID().String(), EventVoucher)
	if err != nil {
		return outbox.Message{}, err
	}
	return outbox.Message{
		ID:      eventID(t, what),
		Subject: subject,
		Payload: &transfersv1.VoucherChanged{
			TransferId: t.ID().String(),
			Voucher:    Voucher(t.Voucher(), t.State().Bank),
			OccurredAt: timestamppb.New(at),
			Transfer:   Transfer(t),
		},
	}, nil
}

// Notification requests. transfers never words a message: it names a template and gives its
// params (thumela.notifications.v1.Template says which); the notifications service renders
// it. Each request's id is derived from the transfer and the template, like the other events,
// so a step that is retried cannot ask for a second message; every transfer gets each of them
// at most once, except those that name their occurrence: a re-issued voucher's SMS (its
// re-issue number) and the cash collected e-mail (the collecting request's retrieval
// reference, so that a collection after a reversal is told again). Their outbox rows are
// ephemeral: deleted as soon as JetStream has them.

// templateName is the lower snake name of a template (voucher_issued), for event ids.
func templateName(t notificationsv1.Template) string {
	return strings.ToLower(strings.TrimPrefix(t.String(), "TEMPLATE_"))
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func cents(m domain.Money) string { return strconv.FormatInt(m.Cents(), 10) }

// request is the outbox message of a notification request about t for its sender (user_id,
// so that the sender sees its delivery), with its channel token in the subject; which names
// its occurrence when the template can be asked for more than once ("" otherwise).
func request(t *domain.Transfer, channel notificationsv1.Channel, recipient string, tmpl notificationsv1.Template,
	params map[string]string, secrets *notificationsv1.Sealed, at time.Time, which string) (outbox.Message, error) {
	token := ChannelEmail
	if channel == notificationsv1.Channel_CHANNEL_SMS {
		token = ChannelSMS
	}
	subject, err := bus.Subject(bus.DomainNotifications, t.UserID().String(), token)
	if err != nil {
		return outbox.Message{}, err
	}
	// e.g. "sms/voucher_issued", "email/transfer_receipt", "sms/voucher_issued/2"
	id := eventID(t, occurrence(token+"/"+templateName(tmpl), which))
	return outbox.Message{ID: id, Subject: subject, Ephemeral: true, Payload: &notificationsv1.NotificationRequest{
		Id:            id.String(),
		Channel:       channel,
		Recipient:     recipient,
		Template:      tmpl,
		Params:        params,
		Secrets:       secrets,
		UserId:        t.UserID().String(),
		Reference:     t.ID().String(),
		SourceService: SourceService,
		CreatedAt:     timestamppb.New(at),
	}}, nil
}

// VoucherSMS asks for the recipient's SMS (VOUCHER_ISSUED): who sent how much, at which bank's
// ATMs, until when, and the reference people quote; the voucher number and the PIN travel
// sealed to sealTo, so they are never in clear in the outbox or on a stream. When the sender
// chose the PIN, there is no PIN to send (pin is ""): the secrets hold the number alone and
// the params say pin_by_sender, so that the SMS tells the recipient to ask the sender. reissue
// numbers a re-issue's SMS ("" for the first).
func VoucherSMS(t *domain.Transfer, pin string, at time.Time, sealTo seal.PublicKey, reissue string) (outbox.Message, error) {
	s := t.State()
	values := map[string]string{SecretVoucherNumber: s.Voucher.Number}
	if !s.Voucher.PINChosenBySender {
		if pin == "" {
			return outbox.Message{}, errors.New("voucher SMS: no PIN for a voucher whose PIN was drawn")
		}
		values[SecretPIN] = pin
	}
	plain, err := proto.Marshal(&notificationsv1.Secrets{Values: values})
	if err != nil {
		return outbox.Message{}, fmt.Errorf("voucher SMS: marshal secrets: %w", err)
	}
	sealed, err := seal.Seal(sealTo, plain)
	if err != nil {
		return outbox.Message{}, fmt.Errorf("voucher SMS: %w", err)
	}
	params := voucherParams(t)
	if s.Voucher.PINChosenBySender {
		params[ParamPINBySender] = "true"
	}
	return request(t, notificationsv1.Channel_CHANNEL_SMS, s.RecipientPhone.E164(), notificationsv1.Template_TEMPLATE_VOUCHER_ISSUED,
		params, &notificationsv1.Sealed{KeyId: sealed.KeyID, Box: sealed.Box}, at, reissue)
}

// voucherParams are the recipient's SMS's params: who sent how much, at which bank's ATMs,
// until when, and the reference.
func voucherParams(t *domain.Transfer) map[string]string {
	s := t.State()
	return map[string]string{
		"sender_name":  s.SenderName,
		"amount_cents": cents(s.Amount),
		"bank":         s.Bank.DisplayName(),
		"expires_at":   rfc3339(s.Voucher.ExpiresAt),
		"reference":    t.Reference(),
	}
}

// ReminderSMS asks for the recipient's reminder (VOUCHER_REMINDER) that the voucher expires
// soon, to their current number: the voucher SMS's params, and no secret (the reminder repeats
// neither the number nor the PIN).
func ReminderSMS(t *domain.Transfer, at time.Time) (outbox.Message, error) {
	return request(t, notificationsv1.Channel_CHANNEL_SMS, t.State().RecipientPhone.E164(),
		notificationsv1.Template_TEMPLATE_VOUCHER_REMINDER, voucherParams(t), nil, at, "")
}

// senderEmail is one of the sender's e-mails about t: its template and params.
type senderEmail func(t *domain.Transfer) (notificationsv1.Template, map[string]string)

// appendEmail appends the sender's e-mail made by mail to msgs, unless the transfer has no
// address for the sender (made before addresses were kept): it then goes without. which names
// its occurrence (see request).
func appendEmail(msgs []outbox.Message, t *domain.Transfer, at time.Time, which string, mail senderEmail) ([]outbox.Message, error) {
	s := t.State()
	if s.SenderEmail == "" {
		return msgs, nil
	}
	tmpl, params := mail(t)
	msg, err := request(t, notificationsv1.Channel_CHANNEL_EMAIL, s.SenderEmail, tmpl, params, nil, at, which)
	if err != nil {
		return nil, err
	}
	return append(msgs, msg), nil
}

// TransferReceipt is the sender's receipt, once the card is charged and the voucher issued.
func TransferReceipt(t *domain.Transfer) (notificationsv1.Template, map[string]string) {
	s := t.State()
	return notificationsv1.Template_TEMPLATE_TRANSFER_RECEIPT, map[string]string{
		"first_name":      s.SenderFirstName,
		"recipient_name":  s.RecipientName,
		"recipient_phone": s.RecipientPhone.E164(),
		"bank":            s.Bank.DisplayName(),
		"amount_cents":    cents(s.Amount),
		"fee_cents":       cents(s.Fee.Charged()),
		"total_cents":     cents(t.Total()),
		"reference":       t.Reference(),
		"created_at":      rfc3339(s.CreatedAt),
		"expires_at":      rfc3339(s.Voucher.ExpiresAt),
	}
}

// CashCollected tells the sender that the recipient withdrew the cash, and where: the ATM's
// location as its network named it ("FNB ATM Sandton City"), else its bank and id.
func CashCollected(t *domain.Transfer) (notificationsv1.Template, map[string]string) {
	s := t.State()
	return notificationsv1.Template_TEMPLATE_CASH_COLLECTED, map[string]string{
		"first_name":     s.SenderFirstName,
		"recipient_name": s.RecipientName,
		"amount_cents":   cents(s.Amount),
		"bank":           s.Bank.DisplayName(),
		"location":       s.Voucher.Location(s.Bank),
		"at":             rfc3339(s.Voucher.CollectedAt),
		"reference":      t.Reference(),
	}
}

// VoucherRefunded tells the sender that a cancelled or expired voucher's money went back:
// total_cents to their card (the total less the credit it spent), and, when the transfer spent
// credit, credit_returned_cents to their credit.
func VoucherRefunded(t *domain.Transfer) (notificationsv1.Template, map[string]string) {
	s := t.State()
	params := map[string]string{
		"first_name":     s.SenderFirstName,
		"recipient_name": s.RecipientName,
		"total_cents":    cents(t.CardCharge()),
		"reason":         s.Refund.Reason,
		"reference":      t.Reference(),
	}
	if !s.CreditApplied.IsZero() {
		params["credit_returned_cents"] = cents(s.CreditApplied)
	}
	return notificationsv1.Template_TEMPLATE_VOUCHER_REFUNDED, params
}
