// Package devoutbox is the development stand-in for the e-mail and SMS gateways: it reads the
// notifications stream, prints each message in the log and lists them at /dev/outbox so that a
// person (or a browser test) can read the sign-up code or a recipient's voucher. It exists only
// in development mode; production runs a real delivery adapter on the same stream.
package devoutbox

import (
	"context"
	"encoding/json"
	"html/template"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
)

// Message is one notification as listed.
type Message struct {
	ID        string    `json:"id"`
	Channel   string    `json:"channel"`
	Recipient string    `json:"recipient"`
	Subject   string    `json:"subject"`
	Body      string    `json:"body"`
	Template  string    `json:"template"`
	CreatedAt time.Time `json:"created_at"`
}

// Outbox keeps the newest messages in memory.
type Outbox struct {
	logger *slog.Logger
	max    int

	mu       sync.RWMutex
	messages []Message
	seen     map[string]bool
}

// New makes an outbox that keeps at most max messages.
func New(logger *slog.Logger, max int) *Outbox {
	return &Outbox{logger: logger, max: max, seen: map[string]bool{}}
}

// Run reads the notifications stream from its start until ctx ends.
func (o *Outbox) Run(ctx context.Context, js jetstream.JetStream, stream string) error {
	for {
		err := o.consume(ctx, js, stream)
		if ctx.Err() != nil {
			return nil
		}
		o.logger.WarnContext(ctx, "dev outbox: consumer stopped, retrying", "err", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
	}
}

func (o *Outbox) consume(ctx context.Context, js jetstream.JetStream, stream string) error {
	cons, err := js.OrderedConsumer(ctx, stream, jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return err
	}
	cc, err := cons.Consume(func(msg jetstream.Msg) { o.add(ctx, msg.Data()) })
	if err != nil {
		return err
	}
	defer cc.Stop()
	select {
	case <-ctx.Done():
		return nil
	case <-cc.Closed():
		return jetstream.ErrConsumerDeleted
	}
}

func (o *Outbox) add(ctx context.Context, data []byte) {
	var n notificationsv1.Notification
	if err := proto.Unmarshal(data, &n); err != nil {
		o.logger.WarnContext(ctx, "dev outbox: unreadable notification", "err", err)
		return
	}
	m := Message{
		ID:        n.GetId(),
		Channel:   strings.ToLower(strings.TrimPrefix(n.GetChannel().String(), "CHANNEL_")),
		Recipient: n.GetRecipient(),
		Subject:   n.GetSubject(),
		Body:      n.GetBody(),
		Template:  n.GetTemplate(),
		CreatedAt: n.GetCreatedAt().AsTime(),
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.seen[m.ID] {
		return // a redelivery after a reconnect
	}
	o.seen[m.ID] = true
	o.messages = append(o.messages, m)
	if len(o.messages) > o.max {
		delete(o.seen, o.messages[0].ID)
		o.messages = o.messages[1:]
	}
	// Development only: the message is printed so that the person running the stack can read it.
	o.logger.InfoContext(ctx, "dev outbox: message", "channel", m.Channel, "to", m.Recipient, "subject", m.Subject, "body", m.Body)
}

// Messages returns a copy of the kept messages, oldest first.
func (o *Outbox) Messages() []Message {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return append([]Message(nil), o.messages...)
}

var page = template.Must(template.New("outbox").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Thumela dev outbox</title>
<style>body{font:14px system-ui;margin:2rem}table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.4rem;text-align:left;vertical-align:top}pre{white-space:pre-wrap;margin:0}</style>
</head><body><h1>Dev outbox</h1><p>E-mails and SMS the stack would have sent, newest first (development only).</p>
<table><thead><tr><th>Time</th><th>Channel</th><th>To</th><th>Subject</th><th>Message</th></tr></thead><tbody>
{{range .}}<tr><td>{{.CreatedAt.Format "15:04:05"}}</td><td>{{.Channel}}</td><td>{{.Recipient}}</td><td>{{.Subject}}</td><td><pre>{{.Body}}</pre></td></tr>
{{else}}<tr><td colspan="5">No messages yet.</td></tr>{{end}}
</tbody></table></body></html>`))

// ServeHTTP lists the messages: JSON with ?format=json or Accept: application/json, else HTML.
func (o *Outbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	msgs := o.Messages()
	w.Header().Set("Cache-Control", "no-store")
	if r.URL.Query().Get("format") == "json" || strings.Contains(r.Header.Get("Accept"), "application/json") {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"messages": msgs})
		return
	}
	for i, j := 0, len(msgs)-1; i < j; i, j = i+1, j-1 {
		msgs[i], msgs[j] = msgs[j], msgs[i]
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = page.Execute(w, msgs)
}
