// Package domain holds what the notifications service knows without any infrastructure: a
// delivery's state machine (queued → sent → delivered | failed), the templates and how a
// message is rendered from a request's params and opened secrets, and the support inbox's
// rules.
package domain

import (
	"time"

	"github.com/google/uuid"
)

// Channel is how a message reaches a person; the values are the subject's channel token.
type Channel string

// Channels.
const (
	ChannelEmail Channel = "email"
	ChannelSMS   Channel = "sms"
	// ChannelUnspecified is recorded for a request whose channel is missing or unknown; it can
	// never be sent.
	ChannelUnspecified Channel = "unspecified"
)

// Known reports whether c is a channel the service sends on.
func (c Channel) Known() bool { return c == ChannelEmail || c == ChannelSMS }

// Status is a delivery's state.
type Status string

// Statuses: queued → sent → delivered | failed, and queued → failed. Nothing goes back.
const (
	// StatusQueued: received, not yet handed to the provider (or waiting for a retry).
	StatusQueued Status = "queued"
	// StatusSent: accepted by the SMTP server or the SMS provider.
	StatusSent Status = "sent"
	// StatusDelivered: the provider reported delivery to the handset (SMS only).
	StatusDelivered Status = "delivered"
	// StatusFailed: will not arrive.
	StatusFailed Status = "failed"
)

// Pending reports whether the message may still be sent: only a queued delivery is ever
// handed to a provider, so a redelivered or republished request past queued is not sent again.
func (s Status) Pending() bool { return s == StatusQueued }

// rank orders the statuses along the one direction they move in.
func (s Status) rank() int {
	switch s {
	case StatusQueued:
		return 1
	case StatusSent:
		return 2
	case StatusDelivered, StatusFailed:
		return 3
	default:
		return 0
	}
}

// CanBecome reports whether a delivery in s may move to next: only forwards, and never out of
// delivered or failed. queued → delivered is allowed: a provider's delivery report may arrive
// before the send's own result was recorded (a crash between the two).
func (s Status) CanBecome(next Status) bool {
	return s.rank() > 0 && next.rank() > s.rank()
}

// Delivery is one request's delivery state. It never holds the message's text.
type Delivery struct {
	// ID is the row's number; the SMS provider knows the delivery as "thm<ID>" (userSuppliedId).
	ID        int64
	RequestID uuid.UUID
	// UserID is the user the message concerns (a user id, or "support" for the support inbox).
	UserID    string
	Reference string
	Channel   Channel
	Template  Template
	Recipient string
	Status    Status
	Attempts  int
	// DedupID is the SMS provider's deduplication id, drawn at the first attempt and reused by
	// every later one; 0 until then, and for e-mail.
	DedupID int32
	// ProviderMessageID is the provider's id of the sent message (SMS), or the Message-ID (e-mail).
	ProviderMessageID string
	// FailureReason says, in words a sender may read, why the message will not arrive.
	FailureReason  string
	SourceService  string
	FirstAttemptAt time.Time // zero before the first attempt
	// ClaimedUntil is the end of the lease of the attempt in progress (zero when none): no
	// other replica sends the same request before it passes.
	ClaimedUntil time.Time
	QueuedAt     time.Time
	SentAt       time.Time
	DeliveredAt  time.Time
	FailedAt     time.Time
	UpdatedAt    time.Time
}

// UserSupport is the user token of messages that concern no user (the support inbox's mail).
const UserSupport = "support"

// NewDelivery is a queued delivery for a request just received.
func NewDelivery(requestID uuid.UUID, userID, reference string, ch Channel, t Template, recipient, source string, now time.Time) Delivery {
	return Delivery{
		RequestID: requestID, UserID: userID, Reference: reference, Channel: ch, Template: t,
		Recipient: recipient, SourceService: source, Status: StatusQueued, QueuedAt: now, UpdatedAt: now,
	}
}

// Claim starts an attempt at now, leased until now+lease. It returns ErrNotPending when the
// delivery is past queued, and a *ClaimedError while another attempt's lease runs.
func (d *Delivery) Claim(now time.Time, lease time.Duration) error {
	if !d.Status.Pending() {
		return ErrNotPending
	}
	if now.Before(d.ClaimedUntil) {
		return &ClaimedError{Until: d.ClaimedUntil}
	}
	d.Attempts++
	if d.FirstAttemptAt.IsZero() {
		d.FirstAttemptAt = now
	}
	d.ClaimedUntil = now.Add(lease)
	d.UpdatedAt = now
	return nil
}

// Release ends the attempt in progress without a result (a transient failure), so that the
// next redelivery may claim it at once.
func (d *Delivery) Release() { d.ClaimedUntil = time.Time{} }

// RetryWindowPassed reports whether transient failures have gone on for window since the
// first attempt, so that the delivery is to fail rather than be retried again.
func (d *Delivery) RetryWindowPassed(now time.Time, window time.Duration) bool {
	return !d.FirstAttemptAt.IsZero() && now.Sub(d.FirstAttemptAt) >= window
}

// MarkSent records the provider's acceptance. It reports whether the status changed; a
// delivery already past sent stays as it is (a late or repeated result changes nothing).
func (d *Delivery) MarkSent(providerMessageID string, now time.Time) bool {
	d.noteProviderID(providerMessageID, now)
	return d.moveTo(StatusSent, now)
}

// MarkDelivered records the provider's report of delivery to the handset.
func (d *Delivery) MarkDelivered(providerMessageID string, now time.Time) bool {
	d.noteProviderID(providerMessageID, now)
	return d.moveTo(StatusDelivered, now)
}

// MarkFailed records that the message will not arrive, with a reason a sender may read.
func (d *Delivery) MarkFailed(reason string, now time.Time) bool {
	if !d.Status.CanBecome(StatusFailed) {
		return false
	}
	d.FailureReason = reason
	return d.moveTo(StatusFailed, now)
}

// noteProviderID keeps the provider's id the first time one is known.
func (d *Delivery) noteProviderID(id string, now time.Time) {
	if id != "" && d.ProviderMessageID == "" {
		d.ProviderMessageID = id
		d.UpdatedAt = now
	}
}

func (d *Delivery) moveTo(next Status, now time.Time) bool {
	if !d.Status.CanBecome(next) {
		return false
	}
	d.Status = next
	d.ClaimedUntil = time.Time{}
	d.UpdatedAt = now
	switch next {
	case StatusSent:
		d.SentAt = now
	case StatusDelivered:
		if d.SentAt.IsZero() {
			d.SentAt = now
		}
		d.DeliveredAt = now
	case StatusFailed:
		d.FailedAt = now
	}
	return true
}

// Reasons a sender may read (Delivery.FailureReason).
const (
	ReasonInvalidRequest  = "The message could not be prepared."
	ReasonRetryWindow     = "The message could not be sent in time."
	ReasonExpired         = "The message expired before it could be sent."
	ReasonNumberInvalid   = "The number is not a valid mobile number."
	ReasonNumberBlocked   = "The number does not accept SMS."
	ReasonNotReachable    = "The number is not reachable."
	ReasonHandset         = "The phone could not receive the SMS."
	ReasonNotSent         = "The SMS could not be sent to this number."
	ReasonMailboxRejected = "The e-mail address does not accept mail."
	ReasonMailRejected    = "The mail server refused the message."
	ReasonProviderRefused = "The provider refused the message."
	// ReasonRecipientBudget: the sender had sent the number as many SMS in the last day as one
	// sender may (DeliverConfig.SMSPerRecipientPerDay).
	ReasonRecipientBudget = "You have sent this number as many SMS today as one sender may."
)
