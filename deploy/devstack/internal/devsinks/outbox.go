// Package devsinks holds the development stack's stand-ins for the outside world that the
// notifications service talks to: an SMTP server (STARTTLS with a certificate the stack makes,
// AUTH PLAIN) that keeps what it receives, a stand-in for the BulkSMS JSON REST API that
// answers as BulkSMS does and posts delivery reports to the notifications webhook, and the
// dev-tools HTTP handler that lists both at /dev/outbox (the BFF proxies /dev/ to it) and lets a
// person or a test make a number fail. notifications talks to them exactly as it talks to the
// real ones; only its configuration differs.
//
// Everything here is for development: the sinks print each message they receive, body included,
// so that the person running the stack can read a sign-up code in the log.
package devsinks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sync"
	"time"
)

// Channels, as /dev/outbox names them.
const (
	ChannelEmail = "email"
	ChannelSMS   = "sms"
)

// SMS statuses, as /dev/outbox shows them: the stand-in's own view of each message.
const (
	StatusAccepted  = "accepted"
	StatusSent      = "sent"
	StatusDelivered = "delivered"
	StatusFailed    = "failed"
)

// DefaultOutboxSize is how many messages the outbox keeps (the newest).
const DefaultOutboxSize = 1000

// Message is one e-mail or SMS as /dev/outbox lists it (the JSON the browser tests read).
type Message struct {
	ID      string `json:"id"`
	Channel string `json:"channel"`
	// Recipient is the mailbox (one entry per envelope recipient) or the E.164 number.
	Recipient string `json:"recipient"`
	// Subject is the e-mail's; "" for an SMS.
	Subject string `json:"subject"`
	// Body is the e-mail's text/plain part, or the SMS's text.
	Body string `json:"body"`
	// Template is the e-mail's X-Thumela-Template; "" for an SMS (the provider's API carries none).
	Template  string    `json:"template"`
	CreatedAt time.Time `json:"created_at"`
	// Status is the SMS's status at the stand-in (accepted, sent, delivered, failed); "" for an
	// e-mail, which is done once the sink has it.
	Status string `json:"status"`
	// MessageID is the e-mail's Message-ID header (what the sink deduplicates on).
	MessageID string `json:"message_id,omitempty"`
}

// Outbox keeps the newest messages the sinks received, in memory.
type Outbox struct {
	logger *slog.Logger
	max    int

	mu       sync.RWMutex
	messages []Message
	// mailboxes maps mailbox + "\x00" + Message-ID to true for every kept e-mail: a mailbox
	// store keeps one message per Message-ID, so a repeat after a sender's crash is dropped.
	mailboxes map[string]bool
}

// NewOutbox makes an outbox that keeps at most size messages (DefaultOutboxSize when size < 1).
func NewOutbox(logger *slog.Logger, size int) *Outbox {
	if size < 1 {
		size = DefaultOutboxSize
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Outbox{logger: logger, max: size, mailboxes: map[string]bool{}}
}

// addEmail keeps m unless its mailbox already holds a message with the same Message-ID, and
// reports whether it was kept.
func (o *Outbox) addEmail(ctx context.Context, m Message) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	key := m.Recipient + "\x00" + m.MessageID
	if m.MessageID != "" {
		if o.mailboxes[key] {
			o.logger.InfoContext(ctx, "dev SMTP sink: dropped a repeated message (same Message-ID in the mailbox)",
				"to", m.Recipient, "message_id", m.MessageID)
			return false
		}
		o.mailboxes[key] = true
	}
	o.appendLocked(m)
	// The body stays out of the log: it can hold a one-time code, and /dev/outbox is where
	// the person running the stack reads it (no code or PIN in clear in any log, dev included).
	o.logger.InfoContext(ctx, "dev SMTP sink: e-mail", "to", m.Recipient, "subject", m.Subject,
		"template", m.Template)
	return true
}

// addSMS keeps m.
func (o *Outbox) addSMS(ctx context.Context, m Message) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.appendLocked(m)
	// Without the body, as for e-mail: a voucher SMS holds its number and PIN.
	o.logger.InfoContext(ctx, "dev BulkSMS: SMS", "to", m.Recipient)
}

func (o *Outbox) appendLocked(m Message) {
	o.messages = append(o.messages, m)
	if over := len(o.messages) - o.max; over > 0 {
		for _, old := range o.messages[:over] {
			if old.Channel == ChannelEmail && old.MessageID != "" {
				delete(o.mailboxes, old.Recipient+"\x00"+old.MessageID)
			}
		}
		o.messages = append([]Message(nil), o.messages[over:]...)
	}
}

// setStatus records an SMS's new status at the stand-in.
func (o *Outbox) setStatus(id, status string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := len(o.messages) - 1; i >= 0; i-- {
		if o.messages[i].ID == id {
			o.messages[i].Status = status
			return
		}
	}
}

// Messages returns a copy of the kept messages, oldest first (never nil: the JSON is an array).
func (o *Outbox) Messages() []Message {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return append([]Message{}, o.messages...)
}

// newID returns a random id for a kept e-mail.
func newID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
