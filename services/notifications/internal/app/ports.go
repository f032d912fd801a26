// Package app holds the notifications use cases: delivering one request (the consumer's
// work), applying a provider's delivery reports, listing a user's deliveries, and taking a
// support message. It declares what it needs from the outside (storage, the SMTP server, the
// SMS provider, the key ring) as interfaces that the adapters implement.
package app

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/notifications/internal/domain"
	"github.com/thumela/thumela/services/platform/seal"
)

// Repository stores deliveries. Every method that changes an SMS delivery's status writes its
// DeliveryChanged event to the outbox in the same transaction (events.Announced).
type Repository interface {
	// Enqueue stores d (queued, and claimed when d's first attempt was started with
	// domain.Delivery.Claim, drawing the SMS deduplication id) unless a delivery with its request
	// id exists, and returns the stored one and whether it was d: a redelivered or republished
	// request finds its delivery as it is.
	Enqueue(ctx context.Context, d domain.Delivery) (saved domain.Delivery, inserted bool, err error)
	// Claim locks the delivery and starts an attempt (domain.Delivery.Claim), drawing the SMS
	// deduplication id at the first one. Errors: domain.ErrNotFound, domain.ErrNotPending,
	// *domain.ClaimedError.
	Claim(ctx context.Context, requestID uuid.UUID, now time.Time, lease time.Duration) (domain.Delivery, error)
	// Update locks the delivery, runs fn on it and saves it (with the event when the status
	// changed), all in one transaction. fn returning an error rolls back.
	Update(ctx context.Context, requestID uuid.UUID, fn func(*domain.Delivery) error) (domain.Delivery, error)
	// UpdateClaimed is Update for the holder of an attempt: fn changes claimed, the caller's
	// copy as it stored or claimed it, and the change is written without locking and reading
	// the row again while the row still is that copy's status and attempt; otherwise it is
	// Update (the row moved: a provider's report, another attempt).
	UpdateClaimed(ctx context.Context, claimed domain.Delivery, fn func(*domain.Delivery) error) (domain.Delivery, error)
	// UpdateSMSBatch is Update for the SMS deliveries a provider's batch of reports names, in
	// one transaction. Target i names a delivery by the provider's message id, else by the row
	// id carried in userSuppliedId when that row has no provider id yet or the same one. fn is
	// called once per target, in order, with the delivery it names as the targets before it
	// left it, or nil when none matches (a forged or foreign report); every delivery fn changed
	// is written with its events, and the batch commits whole or not at all.
	UpdateSMSBatch(ctx context.Context, targets []SMSTarget, fn func(i int, d *domain.Delivery)) error
	// QueuedBefore lists the request ids of queued deliveries received before t whose attempt
	// lease (if any) has passed at now, at most limit of them.
	QueuedBefore(ctx context.Context, t, now time.Time, limit int) ([]uuid.UUID, error)
	// List returns userID's deliveries about references, newest first.
	List(ctx context.Context, userID string, references []string) ([]domain.Delivery, error)
	// SMSSentTo counts the SMS deliveries to recipient (E.164) on userID's behalf received since,
	// up to limit (it stops counting there).
	SMSSentTo(ctx context.Context, recipient, userID string, since time.Time, limit int) (int, error)
	// OldestQueued is when the oldest queued delivery was received; ok is false when none is.
	OldestQueued(ctx context.Context) (t time.Time, ok bool, err error)
}

// SupportStore keeps the support inbox.
type SupportStore interface {
	// SubmitSupport stores m under a fresh ticket unless m's sender (a signed-in sender's
	// account, else a visitor's address, counting only visitors' messages) has reached one of
	// limits (then *domain.RateLimitedError), and in the same transaction
	// writes the request to e-mail it to recipient. It returns m with its ticket.
	SubmitSupport(ctx context.Context, m domain.SupportMessage, limits []domain.RateLimit, recipient string) (domain.SupportMessage, error)
}

// Email is one e-mail to send.
type Email struct {
	// MessageID is the Message-ID without angle brackets, the same on every attempt: a repeat
	// after a crash is recognised by mailbox stores as the same message.
	MessageID string
	To        string
	// ReplyTo, optional: the support inbox answers a support message's writer.
	ReplyTo  string
	Template domain.Template
	domain.Message
}

// Mailer sends e-mail. Errors: *domain.SendError when classified; anything else is transient.
type Mailer interface {
	SendEmail(ctx context.Context, e Email) error
}

// SMS is one SMS to send.
type SMS struct {
	To   string
	Body string
	// UserSuppliedID names the delivery at the provider ("thm<row id>"), for look-ups and reports.
	UserSuppliedID string
	// DedupID makes a resubmission of the same SMS harmless at the provider.
	DedupID int32
}

// SMSProvider sends SMS. Errors: *domain.SendError when classified; anything else is transient.
type SMSProvider interface {
	SendSMS(ctx context.Context, m SMS) (domain.Report, error)
	// FindSMS returns what the provider knows of the messages sent under userSuppliedID.
	FindSMS(ctx context.Context, userSuppliedID string) ([]domain.Report, error)
}

// Opener opens sealed secrets (seal.Keyring).
type Opener interface {
	Open(s seal.Sealed) ([]byte, error)
}

// Provider names, the metrics' provider attribute.
const (
	ProviderSMTP    = "smtp"
	ProviderBulkSMS = "bulksms"
)
