package domain

import (
	"errors"
	"time"
)

// Re-issuing a voucher (the sender's "resend" and "change phone") and reminding its recipient.
//
// A re-issue gives the voucher a new number and, unless the sender chose the PIN, a new PIN, and
// asks for a new SMS: the old number stops working at once (it is no voucher's any more, so the
// ATM answers it like any unknown number). The expiry stays the original one: a re-issue is the
// same voucher sent again, not a longer one, and the refund of an unclaimed voucher must not be
// put off by resending it. The wrong attempts and a lock are reset: they were made against the
// old number, which nobody can use any more. When the sender chose the PIN it is kept (they gave
// it to the recipient; only the number is new).
const (
	// MaxVoucherResends is how often the sender may resend the voucher SMS.
	MaxVoucherResends = 3
	// MaxPhoneChanges is how often the sender may send the voucher to another number: each
	// sends an SMS, so it is bounded like a resend (a sender cannot make the service text
	// numbers without end).
	MaxPhoneChanges = 3
	// ReminderBefore is how long before its expiry the recipient is reminded of a voucher.
	ReminderBefore = 24 * time.Hour
)

// Re-issue errors; the ports layer maps each to FailedPrecondition.
var (
	// ErrVoucherNotAwaiting: only a completed transfer's voucher that awaits collection (and is
	// not past its expiry) can be re-issued.
	ErrVoucherNotAwaiting = errors.New("voucher is not awaiting collection")
	// ErrResendLimit: the voucher SMS was resent MaxVoucherResends times already.
	ErrResendLimit = errors.New("voucher resent too often")
	// ErrPhoneChangeLimit: the recipient's phone was changed MaxPhoneChanges times already.
	ErrPhoneChangeLimit = errors.New("recipient phone changed too often")
)

// ResendVoucher re-issues the voucher with v (a new number and PIN) to the same phone.
func (t *Transfer) ResendVoucher(v IssuedVoucher, now time.Time) error {
	if err := t.reissuable(now); err != nil {
		return err
	}
	if t.s.Voucher.Resends >= MaxVoucherResends {
		return ErrResendLimit
	}
	t.s.Voucher.Resends++
	return t.reissue(v, now, true)
}

// ChangeRecipientPhone re-issues the voucher with v to phone, the recipient's new number
// (phone is a ParsePhone result). The same number is a ValidationError on recipient_phone: that
// would be a resend.
func (t *Transfer) ChangeRecipientPhone(phone Phone, v IssuedVoucher, now time.Time) error {
	if err := t.reissuable(now); err != nil {
		return err
	}
	if t.s.Voucher.PhoneChanges >= MaxPhoneChanges {
		return ErrPhoneChangeLimit
	}
	if phone.E164() == t.s.RecipientPhone.E164() {
		var verr ValidationError
		verr.add("recipient_phone", "This is already the recipient's number. To send the voucher again, resend it.")
		return &verr
	}
	t.s.Voucher.PhoneChanges++
	t.s.RecipientPhone = phone
	return t.reissue(v, now, false)
}

// VoucherSMSFailed records that the voucher SMS of delivery (a notification request's id) to
// phone could not be delivered, for reason, so that the sender is told. It records nothing
// (false) when that can no longer matter: the voucher no longer awaits collection, or the SMS
// went to a number the recipient no longer has (the sender changed it since).
func (t *Transfer) VoucherSMSFailed(phone Phone, delivery, reason string, now time.Time) bool {
	if t.reissuable(now) != nil || phone.E164() != t.s.RecipientPhone.E164() {
		return false
	}
	t.events = append(t.events, VoucherSMSFailed{At: now, Delivery: delivery, Reason: reason})
	return true
}

func (t *Transfer) reissuable(now time.Time) error {
	v := t.s.Voucher
	if t.s.Status != StatusCompleted || v.Status != CollectionAwaiting || !now.Before(v.ExpiresAt) {
		return ErrVoucherNotAwaiting
	}
	return nil
}

func (t *Transfer) reissue(issued IssuedVoucher, now time.Time, samePhone bool) error {
	if issued.Number == "" || issued.PINHash == "" {
		return ErrInvalidTransition
	}
	v := &t.s.Voucher
	pin, hash := t.pinFor(issued)
	v.Number, v.PINHash = issued.Number, hash
	v.FailedAttempts, v.LockedUntil = 0, time.Time{}
	t.s.UpdatedAt = now
	t.events = append(t.events, VoucherReissued{PIN: pin, Reissue: v.Reissues(), At: now, SamePhone: samePhone})
	return nil
}

// RemindDue reports whether the recipient is to be reminded of the voucher at now: it awaits
// collection, expires within ReminderBefore, was not reminded yet, and lived longer than
// ReminderBefore (a voucher issued for less than that would be "reminded" at once).
func (t *Transfer) RemindDue(now time.Time) bool {
	v := t.s.Voucher
	remindAt := v.ExpiresAt.Add(-ReminderBefore)
	return t.s.Status == StatusCompleted && v.Status == CollectionAwaiting && v.ReminderSentAt.IsZero() &&
		!now.Before(remindAt) && now.Before(v.ExpiresAt) && t.s.CreatedAt.Before(remindAt)
}

// Remind records that the recipient's reminder is asked for at now, once per voucher.
func (t *Transfer) Remind(now time.Time) error {
	if !t.RemindDue(now) {
		return ErrInvalidTransition
	}
	t.s.Voucher.ReminderSentAt, t.s.UpdatedAt = now, now
	t.events = append(t.events, VoucherReminder{At: now})
	return nil
}
