// Package events builds every message the transfers service publishes: the outbox messages
// that announce a transfer's changes (events.go, and credit.go, recipients.go, schedules.go for
// the sender's other tabs) and the notification requests that ask for the recipient's SMS and
// the sender's e-mails (notifications.go). The transfer travels in them as transfer.go maps it;
// the API answers the same message, so a transfer looks the same on the stream and in a
// response.
package events

import (
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/seal"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// Event names: the last token of thumela.transfers.<user_id>.<event>.
const (
	EventStatus  = "status"
	EventVoucher = "voucher"
)

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
// re-issued, locked at ATMs, collected, reversed or ends and when the refund owed for it is
// made, and the notification requests: the recipient's SMS when the voucher is issued or
// re-issued and their reminder before it expires, and the sender's e-mails (the receipt at the
// issue, the voucher locked at ATMs, the voucher SMS not delivered, cash collected, the refund
// made). Secrets (the voucher number and PIN) are sealed to sealTo, the notifications service's
// public key.
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
			sms, err := VoucherSMS(t, ev.PIN, ev.At, sealTo, "", false)
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
			sms, err := VoucherSMS(t, ev.PIN, ev.At, sealTo, which, ev.SamePhone)
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
			if t.Voucher().Status == domain.CollectionCancelled {
				// The recipient is told the sender cancelled, or they learn it at the ATM.
				sms, err := CancelledSMS(t, ev.At)
				if err != nil {
					return nil, err
				}
				msgs = append(msgs, sms)
			}
		case domain.VoucherLocked:
			// The status stays "awaiting collection"; the voucher carries its lock. One lock of a
			// voucher is one event (its end makes the id unique).
			which := strconv.FormatInt(ev.Until.Unix(), 10)
			changed, err := voucherChanged(t, ev.At, "voucher/locked/"+which)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, changed)
			// The sender is told by e-mail too: the cure (a resend) is theirs.
			msgs, err = appendEmail(msgs, t, ev.At, which, voucherLockedEmail(ev.Until))
			if err != nil {
				return nil, err
			}
		case domain.VoucherSMSFailed:
			// Nothing changed on the transfer: the sender's e-mail alone, once per failed SMS.
			var err error
			msgs, err = appendEmail(msgs, t, ev.At, ev.Delivery, voucherSMSFailedEmail(ev.Reason))
			if err != nil {
				return nil, err
			}
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
			// The collection's e-mail told the sender the cash was collected: the ATM could not
			// pay it out, so the sender is told that it was not, once per reversed request.
			msgs, err = appendEmail(msgs, t, ev.At, ev.RRN, cashNotDispensed(ev.At))
			if err != nil {
				return nil, err
			}
		case domain.VoucherReminder:
			sms, err := ReminderSMS(t, ev.At)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, sms)
		case domain.RefundCompleted:
			// The voucher's status does not change, but the transfer does: without this event the
			// sender's open pages (and the BFF's cached history) showed "Refund pending" until
			// they read the transfer again, and the web's "Refund complete" notice never came.
			changed, err := voucherChanged(t, ev.At, "refund/"+string(t.State().Refund.Status))
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, changed)
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
