package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/notifications/internal/domain"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/seal"
)

// Request is one notification request, decoded from the bus.
type Request struct {
	ID        uuid.UUID
	UserID    string // a user id, or domain.UserSupport
	Channel   domain.Channel
	Template  domain.Template // domain.TemplateUnknown for one the service does not know
	Recipient string
	Params    map[string]string
	Secrets   *seal.Sealed // nil when the request carries none
	Reference string
	Source    string
}

// Action is what the consumer does with the message once the request was handled.
type Action int

// Actions.
const (
	// Ack: done with it (sent, failed for good, or already handled before).
	Ack Action = iota
	// Retry: redeliver it after Delay.
	Retry
	// DeadLetter: copy it to the dead-letter stream with Reason, then ack.
	DeadLetter
)

// Outcome is the consumer's instruction for one message.
type Outcome struct {
	Action Action
	Delay  time.Duration // Retry
	Reason string        // DeadLetter: why, without personal data
}

// CheckpointAfterSend is where NOTIFICATIONS_CRASHPOINT may kill the process: the provider
// has accepted the message and its result is not recorded yet.
const CheckpointAfterSend = "after_send"

// DeliverConfig tunes the Deliverer.
type DeliverConfig struct {
	// RetryWindow: transient failures are retried for this long after the first attempt.
	RetryWindow time.Duration
	// SendTimeout bounds one hand-over to a provider.
	SendTimeout time.Duration
	// Lease is how long an attempt holds a delivery against other replicas; it must outlast
	// SendTimeout and the recording of the result (default 2×SendTimeout).
	Lease time.Duration
	// DedupMemory is how long the SMS provider is trusted to remember a deduplication id;
	// a retry later than that looks the message up before sending it again (default 11h, an
	// hour inside BulkSMS's 12).
	DedupMemory time.Duration
	// BackoffBase and BackoffMax shape the delay between retries: BackoffBase after the first
	// delivery, doubling with every redelivery, at most BackoffMax (defaults 5s and 30m).
	BackoffBase, BackoffMax time.Duration
	// SMSPerRecipientPerDay is how many SMS one number may get in any 24 hours on one sender's
	// behalf; the sender's next are failed without an attempt (ReasonRecipientBudget), and
	// the sender is told as of any failed voucher SMS. 0 turns the budget off. A voucher SMS
	// is Thumela's message to a number a stranger may type: without a budget, sending and
	// cancelling (which refunds in full) was a free flood of anyone's phone. Counted per sender:
	// a budget shared by every sender let that same flood cut the number off from everyone's
	// vouchers for a day.
	SMSPerRecipientPerDay int
	// ExpireAfter: a delivery still queued this long after it was received can no longer come
	// back from the stream (bus.NotificationRetention) and is failed (default that plus an hour).
	ExpireAfter time.Duration
	// MessageIDDomain is the right-hand side of the e-mails' Message-ID (default thumela.co.za).
	MessageIDDomain string
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Checkpoint, when set, is called at CheckpointAfterSend (crash tests).
	Checkpoint func(point string)
}

func (c *DeliverConfig) defaults() error {
	if c.RetryWindow <= 0 || c.SendTimeout <= 0 {
		return errors.New("app: RetryWindow and SendTimeout must be positive")
	}
	if c.Lease == 0 {
		c.Lease = 2 * c.SendTimeout
	}
	if c.Lease <= c.SendTimeout {
		return errors.New("app: Lease must outlast SendTimeout")
	}
	if c.DedupMemory == 0 {
		c.DedupMemory = 11 * time.Hour
	}
	if c.BackoffBase == 0 {
		c.BackoffBase = 5 * time.Second
	}
	if c.BackoffMax == 0 {
		c.BackoffMax = 30 * time.Minute
	}
	if c.ExpireAfter == 0 {
		c.ExpireAfter = bus.NotificationRetention + time.Hour
	}
	if c.MessageIDDomain == "" {
		c.MessageIDDomain = "thumela.co.za"
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return nil
}

// Deliverer delivers notification requests: one delivery per request id, however often the
// request arrives.
type Deliverer struct {
	repo   Repository
	mail   Mailer
	sms    SMSProvider
	keys   Opener
	cfg    DeliverConfig
	tel    *Telemetry
	logger *slog.Logger
}

// NewDeliverer returns a Deliverer.
func NewDeliverer(repo Repository, mail Mailer, sms SMSProvider, keys Opener, cfg DeliverConfig, tel *Telemetry, logger *slog.Logger) (*Deliverer, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if tel == nil {
		var err error
		if tel, err = NewTelemetry(nil, nil); err != nil {
			return nil, err
		}
	}
	return &Deliverer{repo: repo, mail: mail, sms: sms, keys: keys, cfg: cfg, tel: tel,
		logger: logger.With("component", "notifications.deliver")}, nil
}

// Backoff is the delay before the n-th delivery of a message that failed transiently
// (n counts from 1).
func (d *Deliverer) Backoff(n int) time.Duration {
	if n < 1 {
		n = 1
	}
	delay := d.cfg.BackoffBase << min(n-1, 30)
	if delay <= 0 || delay > d.cfg.BackoffMax {
		return d.cfg.BackoffMax
	}
	return delay
}

// Handle delivers req, the deliveries-th delivery of its message (for the back-off), and
// says what to do with the message. An error means "try again later" (e.g. PostgreSQL is
// down); it never follows a send that is not recorded unless the repeat is harmless (the
// same SMS deduplication id, the same Message-ID).
func (d *Deliverer) Handle(ctx context.Context, req Request, deliveries int) (Outcome, error) {
	logger := d.logger.With("request_id", req.ID.String(), "channel", string(req.Channel), "template", string(req.Template))

	// Rendered in memory before anything is stored: a request that can never be sent is
	// stored and failed without an attempt, and a new one that can is stored with its first
	// attempt already claimed, in one transaction rather than an insert and then a claim.
	msg, err := d.prepare(req)
	var invalid *domain.InvalidRequestError
	if err != nil && !errors.As(err, &invalid) {
		return Outcome{}, err
	}
	if invalid == nil && deliveries > 1 {
		// A redelivery: an earlier delivery nearly always stored the request (and judged an SMS
		// against the recipient's budget before storing it), so it claims the stored delivery
		// first, without counting the recipient's SMS or trying to insert. Only when none is
		// stored (the earlier delivery failed or crashed before storing it) does it go on below,
		// judged and stored as any new request is, whichever delivery this is.
		del, out, ok, err := d.claim(ctx, logger, req.ID)
		switch {
		case errors.Is(err, domain.ErrNotFound):
			// None stored: on, as a new request.
		case err != nil || !ok:
			return out, err
		default:
			return d.send(ctx, logger, del, req, msg, deliveries)
		}
	}
	fresh := domain.NewDelivery(req.ID, req.UserID, req.Reference, req.Channel, req.Template, req.Recipient, req.Source, d.cfg.Now())
	overBudget := false
	if invalid == nil && req.Channel == domain.ChannelSMS {
		// Judged before the request is stored, so it does not count itself; a redelivery of a
		// request stored already was judged when it was stored (only a new one is failed below).
		var err error
		if overBudget, err = d.SMSBudgetSpent(ctx, fresh.Recipient, fresh.UserID, fresh.QueuedAt); err != nil {
			return Outcome{}, err
		}
	}
	if invalid == nil && !overBudget {
		if err := fresh.Claim(fresh.QueuedAt, d.cfg.Lease); err != nil {
			return Outcome{}, err // a new delivery is queued and unclaimed: never happens
		}
	}
	del, inserted, err := d.repo.Enqueue(ctx, fresh)
	if err != nil {
		return Outcome{}, fmt.Errorf("enqueue: %w", err)
	}
	if !del.Status.Pending() {
		logger.DebugContext(ctx, "request already handled", "status", string(del.Status))
		return Outcome{Action: Ack}, nil
	}
	if invalid != nil {
		logger.WarnContext(ctx, "request can never be sent", "reason", invalid.Reason)
		if _, err := d.fail(ctx, req.ID, domain.ReasonInvalidRequest); err != nil {
			return Outcome{}, err
		}
		d.tel.failure(ctx, req.Channel, d.provider(req.Channel), "invalid")
		return Outcome{Action: DeadLetter, Reason: invalid.Reason}, nil
	}
	if inserted && overBudget {
		// Never the number in the log: the request id and the sender's reference say enough.
		logger.WarnContext(ctx, "SMS refused: the recipient had the most SMS one number may get from one sender in a day",
			"budget", d.cfg.SMSPerRecipientPerDay, "reference", req.Reference)
		if _, err := d.fail(ctx, req.ID, domain.ReasonRecipientBudget); err != nil {
			return Outcome{}, err
		}
		d.tel.failure(ctx, req.Channel, d.provider(req.Channel), "recipient_budget")
		return Outcome{Action: Ack}, nil
	}
	if inserted {
		return d.send(ctx, logger, del, req, msg, deliveries)
	}

	// Known already (a redelivery, or a republished request): another attempt, unless one is
	// running elsewhere.
	del, out, ok, err := d.claim(ctx, logger, req.ID)
	if err != nil || !ok {
		return out, err
	}
	return d.send(ctx, logger, del, req, msg, deliveries)
}

// claim starts another attempt at the stored delivery of request id. ok is false when there is
// nothing to send now, and out then says what to do with the message: Ack when the delivery was
// handled already, Retry while an attempt runs elsewhere. An error wraps domain.ErrNotFound when
// no delivery is stored for the request.
func (d *Deliverer) claim(ctx context.Context, logger *slog.Logger, id uuid.UUID) (domain.Delivery, Outcome, bool, error) {
	del, err := d.repo.Claim(ctx, id, d.cfg.Now(), d.cfg.Lease)
	var claimed *domain.ClaimedError
	switch {
	case errors.Is(err, domain.ErrNotPending):
		logger.DebugContext(ctx, "request already handled")
		return domain.Delivery{}, Outcome{Action: Ack}, false, nil
	case errors.As(err, &claimed):
		// Another replica is sending it now; come back when its lease has passed.
		return domain.Delivery{}, Outcome{Action: Retry, Delay: max(time.Until(claimed.Until), time.Second)}, false, nil
	case err != nil:
		return domain.Delivery{}, Outcome{}, false, fmt.Errorf("claim: %w", err)
	}
	return del, Outcome{}, true, nil
}

// prepare checks req and renders its message, opening its secrets in memory.
func (d *Deliverer) prepare(req Request) (domain.Message, error) {
	if !req.Channel.Known() {
		return domain.Message{}, &domain.InvalidRequestError{Reason: "unknown channel"}
	}
	if !req.Template.Known() {
		return domain.Message{}, &domain.InvalidRequestError{Reason: "unknown template"}
	}
	if !domain.ValidRecipient(req.Channel, req.Recipient) {
		return domain.Message{}, &domain.InvalidRequestError{Reason: "recipient is not a valid " + string(req.Channel) + " address"}
	}
	secrets := map[string]string{}
	if req.Secrets != nil {
		plain, err := d.keys.Open(*req.Secrets)
		if err != nil {
			// The error names the key id at most; the box's content never.
			return domain.Message{}, &domain.InvalidRequestError{Reason: "secrets do not open: " + err.Error()}
		}
		var s notificationsv1.Secrets
		if err := proto.Unmarshal(plain, &s); err != nil {
			return domain.Message{}, &domain.InvalidRequestError{Reason: "secrets do not decode"}
		}
		secrets = s.GetValues()
	}
	return domain.Render(req.Template, req.Channel, req.Params, secrets)
}

// send hands the message to the channel's provider and records the result.
func (d *Deliverer) send(ctx context.Context, logger *slog.Logger, del domain.Delivery, req Request, msg domain.Message, deliveries int) (Outcome, error) {
	provider := d.provider(del.Channel)
	ctx, span := d.tel.tracer.Start(ctx, "notifications.send", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(
			attribute.String("notification.request_id", del.RequestID.String()),
			attribute.String("notification.channel", string(del.Channel)),
			attribute.String("notification.template", string(del.Template)),
			attribute.String("notification.provider", provider),
			attribute.Int("notification.attempt", del.Attempts),
		))
	defer span.End()
	logger = logger.With("attempt", del.Attempts)

	sendCtx, cancel := context.WithTimeout(ctx, d.cfg.SendTimeout)
	report, err := d.deliver(sendCtx, del, req, msg)
	cancel()
	now := d.cfg.Now()
	if err == nil {
		if d.cfg.Checkpoint != nil {
			d.cfg.Checkpoint(CheckpointAfterSend)
		}
		// del is the attempt this replica holds, as stored: the result is written without
		// reading the row again unless it moved meanwhile (a report that came first).
		saved, err := d.repo.UpdateClaimed(ctx, del, func(x *domain.Delivery) error {
			x.Apply(report, now)
			return nil
		})
		if err != nil {
			// Sent and not recorded: the retry sends again, and the provider's idempotency
			// key (deduplication id, Message-ID) makes that harmless.
			span.RecordError(err)
			span.SetStatus(codes.Error, "record failed")
			return Outcome{}, fmt.Errorf("record send: %w", err)
		}
		d.tel.send(ctx, del.Channel, provider, OutcomeSent)
		span.SetAttributes(attribute.String("notification.status", string(saved.Status)))
		logger.InfoContext(ctx, "sent", "status", string(saved.Status))
		return Outcome{Action: Ack}, nil
	}

	span.RecordError(err)
	span.SetStatus(codes.Error, "send failed")
	var se *domain.SendError
	if errors.As(err, &se) && se.Permanent {
		reason := se.UserReason
		if reason == "" {
			reason = domain.ReasonProviderRefused
		}
		if _, err := d.fail(ctx, del.RequestID, reason); err != nil {
			return Outcome{}, err
		}
		d.tel.send(ctx, del.Channel, provider, OutcomeFailed)
		d.tel.failure(ctx, del.Channel, provider, "permanent")
		logger.WarnContext(ctx, "refused for good; failed", "error", err)
		return Outcome{Action: Ack}, nil
	}
	if del.RetryWindowPassed(now, d.cfg.RetryWindow) {
		if _, err := d.fail(ctx, del.RequestID, domain.ReasonRetryWindow); err != nil {
			return Outcome{}, err
		}
		d.tel.send(ctx, del.Channel, provider, OutcomeFailed)
		d.tel.failure(ctx, del.Channel, provider, "retry_window")
		logger.ErrorContext(ctx, "transient failures for the whole retry window; failed", "error", err,
			"first_attempt_at", del.FirstAttemptAt)
		return Outcome{Action: DeadLetter, Reason: "retry window passed: " + err.Error()}, nil
	}
	if _, err := d.repo.UpdateClaimed(ctx, del, func(x *domain.Delivery) error {
		x.Release()
		return nil
	}); err != nil {
		logger.WarnContext(ctx, "could not release the attempt; the lease runs out instead", "error", err)
	}
	delay := d.Backoff(deliveries)
	d.tel.send(ctx, del.Channel, provider, OutcomeRetry)
	d.tel.retry(ctx, del.Channel, provider)
	logger.WarnContext(ctx, "transient failure; retrying later", "retry_in", delay, "error", err)
	return Outcome{Action: Retry, Delay: delay}, nil
}

// deliver performs one hand-over and returns what the provider said.
func (d *Deliverer) deliver(ctx context.Context, del domain.Delivery, req Request, msg domain.Message) (domain.Report, error) {
	switch del.Channel {
	case domain.ChannelEmail:
		id := del.RequestID.String() + "@" + d.cfg.MessageIDDomain
		e := Email{MessageID: id, To: del.Recipient, Template: del.Template, Message: msg}
		if del.Template == domain.TemplateSupportMessage && domain.ValidEmail(req.Params[domain.ParamEmail]) {
			e.ReplyTo = req.Params[domain.ParamEmail]
		}
		if err := d.mail.SendEmail(ctx, e); err != nil {
			return domain.Report{}, err
		}
		return domain.Report{ProviderMessageID: "<" + id + ">", Outcome: domain.OutcomeAccepted}, nil
	case domain.ChannelSMS:
		uid := UserSuppliedID(del.ID)
		// The provider forgets a deduplication id after about 12 hours: a retry that late
		// asks first whether an earlier attempt got through.
		if del.Attempts > 1 && d.cfg.Now().Sub(del.FirstAttemptAt) > d.cfg.DedupMemory {
			found, err := d.sms.FindSMS(ctx, uid)
			if err != nil {
				return domain.Report{}, fmt.Errorf("look up earlier attempts: %w", err)
			}
			if r, ok := latest(found); ok {
				return r, nil
			}
		}
		return d.sms.SendSMS(ctx, SMS{To: del.Recipient, Body: msg.Text, UserSuppliedID: uid, DedupID: del.DedupID})
	}
	return domain.Report{}, &domain.SendError{Permanent: true, Reason: "unknown channel", UserReason: domain.ReasonInvalidRequest}
}

// latest picks the most advanced of the provider's reports on one delivery.
func latest(reports []domain.Report) (domain.Report, bool) {
	best, ok := domain.Report{}, false
	for _, r := range reports {
		if !ok || r.Outcome > best.Outcome {
			best, ok = r, true
		}
	}
	return best, ok
}

// UserSuppliedID is how the SMS provider knows a delivery: "thm" and its row id.
func UserSuppliedID(rowID int64) string { return "thm" + strconv.FormatInt(rowID, 10) }

// ParseUserSuppliedID reads a UserSuppliedID back; ok is false for anything else.
func ParseUserSuppliedID(s string) (int64, bool) {
	if len(s) < 4 || s[:3] != "thm" {
		return 0, false
	}
	id, err := strconv.ParseInt(s[3:], 10, 64)
	return id, err == nil && id > 0
}

// fail moves the delivery to failed with reason (a no-op when it is past that point).
func (d *Deliverer) fail(ctx context.Context, requestID uuid.UUID, reason string) (domain.Delivery, error) {
	now := d.cfg.Now()
	del, err := d.repo.Update(ctx, requestID, func(x *domain.Delivery) error {
		x.MarkFailed(reason, now)
		return nil
	})
	if err != nil {
		return domain.Delivery{}, fmt.Errorf("record failure: %w", err)
	}
	return del, nil
}

func (d *Deliverer) provider(ch domain.Channel) string {
	if ch == domain.ChannelSMS {
		return ProviderBulkSMS
	}
	return ProviderSMTP
}

// SMSBudgetSpent reports whether userID had sent recipient (E.164) as many SMS in the 24 hours
// before at as one sender may (DeliverConfig.SMSPerRecipientPerDay; 0 is no budget): the one
// rule by which the Deliverer fails a request (ReasonRecipientBudget), and by which the API
// tells a sender beforehand (Service.SMSBudgetSpent).
func (d *Deliverer) SMSBudgetSpent(ctx context.Context, recipient, userID string, at time.Time) (bool, error) {
	perDay := d.cfg.SMSPerRecipientPerDay
	if perDay <= 0 {
		return false, nil
	}
	n, err := d.repo.SMSSentTo(ctx, recipient, userID, at.Add(-24*time.Hour), perDay)
	if err != nil {
		return false, err
	}
	return n >= perDay, nil
}
