package events

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/seal"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

const (
	// ChannelSMS and ChannelEmail are the last token of thumela.notifications.transfers.<user_id>.<channel>.
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
	// ParamReplacesEarlier is "true" on a resent voucher's VOUCHER_ISSUED request: the SMS says
	// the earlier voucher's number no longer works (notifications' template).
	ParamReplacesEarlier = "replaces_earlier"
)

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
	subject, err := bus.NotificationSubject(SourceService, t.UserID().String(), token)
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
// numbers a re-issue's SMS ("" for the first); replaces says the phone has the earlier voucher's
// SMS (a resend), which the new one then says no longer works.
func VoucherSMS(t *domain.Transfer, pin string, at time.Time, sealTo seal.PublicKey, reissue string, replaces bool) (outbox.Message, error) {
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
	if replaces {
		params[ParamReplacesEarlier] = "true"
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

// CancelledSMS tells the recipient, at the voucher's current number, that the sender cancelled
// it (VOUCHER_CANCELLED): who, how much and the reference; no secret.
func CancelledSMS(t *domain.Transfer, at time.Time) (outbox.Message, error) {
	s := t.State()
	return request(t, notificationsv1.Channel_CHANNEL_SMS, s.RecipientPhone.E164(), notificationsv1.Template_TEMPLATE_VOUCHER_CANCELLED,
		map[string]string{"sender_name": s.SenderName, "amount_cents": cents(s.Amount), "reference": t.Reference()}, nil, at, "")
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

// TransferReceipt is the sender's receipt, once the card is charged and the voucher issued. A
// transfer whose fee credit paid says so, and what the card was charged.
func TransferReceipt(t *domain.Transfer) (notificationsv1.Template, map[string]string) {
	s := t.State()
	params := map[string]string{
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
	if !t.CreditApplied().IsZero() {
		params["credit_applied_cents"] = cents(t.CreditApplied())
		params["card_charge_cents"] = cents(t.CardCharge())
	}
	return notificationsv1.Template_TEMPLATE_TRANSFER_RECEIPT, params
}

// CashCollected tells the sender that the recipient withdrew the cash, and where: the ATM's
// location as its network named it ("FNB ATM Sandton City"), else its bank and id.
func CashCollected(t *domain.Transfer) (notificationsv1.Template, map[string]string) {
	s := t.State()
	params := aboutTheVoucher(t)
	params["location"] = s.Voucher.Location(s.Bank)
	params["at"] = rfc3339(s.Voucher.CollectedAt)
	return notificationsv1.Template_TEMPLATE_CASH_COLLECTED, params
}

// cashNotDispensed corrects CashCollected when the ATM reversed the collection at: nothing was
// collected. The voucher still stands until its expiry, which the e-mail gives; when that had
// passed by the reversal, it leaves expires_at out and says the refund follows (the worker
// expires the voucher at once).
func cashNotDispensed(at time.Time) senderEmail {
	return func(t *domain.Transfer) (notificationsv1.Template, map[string]string) {
		params := aboutTheVoucher(t)
		params["at"] = rfc3339(at)
		if !t.ExpiryDue(at) {
			params["expires_at"] = rfc3339(t.State().Voucher.ExpiresAt)
		}
		return notificationsv1.Template_TEMPLATE_CASH_NOT_DISPENSED, params
	}
}

// aboutTheVoucher are the params the sender's e-mails about a voucher share: to whom, how much,
// at which bank's ATMs, and the reference people quote.
func aboutTheVoucher(t *domain.Transfer) map[string]string {
	s := t.State()
	return map[string]string{
		"first_name":     s.SenderFirstName,
		"recipient_name": s.RecipientName,
		"amount_cents":   cents(s.Amount),
		"bank":           s.Bank.DisplayName(),
		"reference":      t.Reference(),
	}
}

// voucherLockedEmail tells the sender that wrong PINs or phone numbers at ATMs locked the
// voucher, until when, and that a resend lets the recipient collect now. The sender may not have
// the app open; the lock is theirs to lift, and the recipient cannot tell them the reason.
func voucherLockedEmail(until time.Time) senderEmail {
	return func(t *domain.Transfer) (notificationsv1.Template, map[string]string) {
		params := aboutTheVoucher(t)
		params["until"] = rfc3339(until)
		return notificationsv1.Template_TEMPLATE_VOUCHER_LOCKED, params
	}
}

// voucherSMSFailedEmail tells the sender that the voucher SMS could not be delivered to the
// recipient's number, and why when the provider said: the recipient has no voucher number, and
// only the sender can change the number or resend it.
func voucherSMSFailedEmail(reason string) senderEmail {
	return func(t *domain.Transfer) (notificationsv1.Template, map[string]string) {
		params := aboutTheVoucher(t)
		params["recipient_phone"] = t.State().RecipientPhone.E164()
		if reason != "" {
			params["reason"] = reason
		}
		return notificationsv1.Template_TEMPLATE_VOUCHER_SMS_FAILED, params
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
