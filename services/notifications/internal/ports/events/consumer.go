// Package events is the notifications service's port on the event bus: the only consumer of
// the THUMELA_NOTIFICATIONS work queue. It decodes each request, has the app deliver it, and
// acknowledges, redelivers with a delay, or copies the request to the dead-letter stream.
package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/notifications/internal/app"
	"github.com/thumela/thumela/services/notifications/internal/domain"
	deliveryevents "github.com/thumela/thumela/services/notifications/internal/events"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/intconv"
	"github.com/thumela/thumela/services/platform/seal"
)

// ConsumerName is the durable consumer's name.
const ConsumerName = "notifications"

// Headers of a dead-lettered request.
const (
	// HeaderDeadReason says why the request can never be sent (no personal data).
	HeaderDeadReason = "Thumela-Dead-Reason"
	// HeaderOriginalSubject is the subject the request was published on.
	HeaderOriginalSubject = "Thumela-Original-Subject"
)

// Config tunes the consumer.
type Config struct {
	// Workers is how many requests are handled at once in this process. Sends wait on the
	// network, not the CPU: 16 keep two cores busy.
	Workers int
	// AckWait is how long JetStream waits for an answer before redelivering; it must outlast
	// a send (the send timeout) and its recording.
	AckWait time.Duration
	// MaxAckPending bounds the requests handed out and not yet answered, across replicas.
	// JetStream counts a request waiting for a delayed redelivery (NakWithDelay) as pending,
	// so it must hold the retry backlog of a provider outage, or one channel's outage would
	// stall the other's messages.
	MaxAckPending int
	// Replicas is the streams' replica count, for re-creating them if they are missing.
	Replicas int
}

// Consumer consumes the notification requests.
type Consumer struct {
	js     jetstream.JetStream
	app    *app.Deliverer
	cfg    Config
	logger *slog.Logger
	tracer trace.Tracer
	wg     sync.WaitGroup
}

// New returns the consumer.
func New(js jetstream.JetStream, deliverer *app.Deliverer, cfg Config, logger *slog.Logger) *Consumer {
	if cfg.Workers <= 0 {
		cfg.Workers = 16
	}
	if cfg.AckWait <= 0 {
		cfg.AckWait = 90 * time.Second
	}
	if cfg.MaxAckPending <= 0 {
		cfg.MaxAckPending = 20000
	}
	if cfg.Replicas <= 0 {
		cfg.Replicas = 1
	}
	return &Consumer{js: js, app: deliverer, cfg: cfg, logger: logger.With("component", "notifications.consumer"),
		tracer: otel.Tracer(app.InstrumentationName)}
}

// ConsumerConfig is the durable consumer's configuration: explicit acks, no limit on
// deliveries (the retry window decides when to stop).
func (c *Consumer) ConsumerConfig() jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       ConsumerName,
		Description:   "The notifications service: sends each request once",
		AckPolicy:     jetstream.AckExplicitPolicy,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckWait:       c.cfg.AckWait,
		MaxDeliver:    -1,
		MaxAckPending: c.cfg.MaxAckPending,
		FilterSubject: bus.Root + "." + bus.DomainNotifications + ".>",
	}
}

// Run consumes until ctx ends, then lets the requests in hand finish (their sends are not
// cut short: an interrupted send would leave its outcome unknown) and hands the ones fetched
// but not started back to JetStream. NATS being down only delays it.
func (c *Consumer) Run(ctx context.Context) error {
	backoff := 200 * time.Millisecond
	for {
		err := c.consume(ctx)
		if ctx.Err() != nil {
			c.wg.Wait()
			return nil
		}
		c.logger.WarnContext(ctx, "consumer interrupted; starting again", "error", err, "in", backoff)
		select {
		case <-ctx.Done():
			c.wg.Wait()
			return nil
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 10*time.Second)
	}
}

func (c *Consumer) consume(ctx context.Context) error {
	cons, err := c.js.CreateOrUpdateConsumer(ctx, bus.StreamNotifications, c.ConsumerConfig())
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		// A drift of another stream it may create does not keep it from consuming.
		if err := bus.EnsureStreams(ctx, c.js, bus.WithReplicas(c.cfg.Replicas)); err != nil && !errors.Is(err, bus.ErrStreamDrift) {
			return err
		}
		cons, err = c.js.CreateOrUpdateConsumer(ctx, bus.StreamNotifications, c.ConsumerConfig())
	}
	if err != nil {
		return fmt.Errorf("consumer: %w", err)
	}
	// The client buffers at most as many messages as there are workers, so a fetched message
	// waits at most about one send before a worker takes it, well within AckWait.
	it, err := cons.Messages(jetstream.PullMaxMessages(c.cfg.Workers))
	if err != nil {
		return fmt.Errorf("consumer: messages: %w", err)
	}
	defer c.handBack(it)
	slots := make(chan struct{}, c.cfg.Workers)
	for {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		msg, err := it.Next(jetstream.NextContext(ctx))
		if err != nil {
			<-slots
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		c.wg.Add(1)
		go func() {
			defer func() { <-slots; c.wg.Done() }()
			// Not cancelled with ctx: a send under way finishes (within the send timeout).
			c.handle(context.WithoutCancel(ctx), msg)
		}()
	}
}

// handBack stops pulling and returns the messages fetched but not started, so another replica
// may take them at once rather than after AckWait.
func (c *Consumer) handBack(it jetstream.MessagesContext) {
	it.Drain()
	for {
		msg, err := it.Next(jetstream.NextMaxWait(time.Second))
		if err != nil {
			return
		}
		_ = msg.Nak()
	}
}

// handle processes one message in a span continuing the publisher's trace.
func (c *Consumer) handle(ctx context.Context, msg jetstream.Msg) {
	ctx, span := c.tracer.Start(bus.ExtractTrace(ctx, msg.Headers()), "notifications.consume",
		trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(
			attribute.String("messaging.system", "nats"),
			attribute.String("messaging.operation.type", "process"),
			attribute.String("messaging.destination.name", msg.Subject()),
			attribute.String("messaging.consumer.group.name", ConsumerName),
		))
	defer span.End()
	deliveries := 1
	if md, err := msg.Metadata(); err == nil {
		deliveries = intconv.IntFromUint64(md.NumDelivered)
	}
	span.SetAttributes(attribute.Int("messaging.nats.num_delivered", deliveries))

	req, err := Decode(msg.Data())
	if err != nil {
		c.deadLetter(ctx, span, msg, nil, err.Error(), deliveries)
		return
	}
	if reason := judgePublisher(msg.Subject(), &req); reason != "" {
		c.deadLetter(ctx, span, msg, &req, reason, deliveries)
		return
	}
	span.SetAttributes(
		attribute.String("notification.request_id", req.ID.String()),
		attribute.String("notification.channel", string(req.Channel)),
		attribute.String("notification.template", string(req.Template)),
	)
	out, err := c.app.Handle(ctx, req, deliveries)
	if err != nil {
		delay := c.app.Backoff(deliveries)
		span.RecordError(err)
		span.SetStatus(codes.Error, "handling failed")
		c.logger.WarnContext(ctx, "request not handled; redelivering", "request_id", req.ID.String(), "in", delay, "error", err)
		_ = msg.NakWithDelay(delay)
		return
	}
	switch out.Action {
	case app.Retry:
		_ = msg.NakWithDelay(out.Delay)
	case app.DeadLetter:
		c.deadLetter(ctx, span, msg, &req, out.Reason, deliveries)
	default:
		if err := msg.Ack(); err != nil {
			c.logger.WarnContext(ctx, "ack failed; the request comes back and is found handled", "error", err)
		}
	}
}

// deadLetter copies the request as it arrived to thumela.notificationsdead.<user>.<channel>
// with the reason, then acks it; if the copy cannot be published, the request is redelivered.
func (c *Consumer) deadLetter(ctx context.Context, span trace.Span, msg jetstream.Msg, req *app.Request, reason string, deliveries int) {
	span.SetStatus(codes.Error, "dead-lettered")
	span.SetAttributes(attribute.String("notification.dead_reason", reason))
	user, channel := subjectTokens(msg.Subject())
	if req != nil {
		user = req.UserID
		if req.Channel.Known() {
			channel = string(req.Channel)
		}
	}
	subject, err := bus.Subject(bus.DomainNotificationsDead, user, channel)
	if err != nil {
		subject = bus.Root + "." + bus.DomainNotificationsDead + ".unknown.unknown"
	}
	header := nats.Header{}
	for k, v := range msg.Headers() {
		if !strings.HasPrefix(k, "Nats-") {
			header[k] = v
		}
	}
	header.Set(HeaderDeadReason, reason)
	header.Set(HeaderOriginalSubject, msg.Subject())
	msgID := msg.Headers().Get(jetstream.MsgIDHeader)
	if msgID == "" {
		if md, err := msg.Metadata(); err == nil {
			msgID = fmt.Sprintf("seq-%d", md.Sequence.Stream)
		}
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := c.js.PublishMsg(pctx, &nats.Msg{Subject: subject, Data: msg.Data(), Header: header},
		jetstream.WithMsgID("dead-"+msgID)); err != nil {
		delay := c.app.Backoff(deliveries)
		c.logger.WarnContext(ctx, "dead-letter publish failed; redelivering", "in", delay, "error", err)
		_ = msg.NakWithDelay(delay)
		return
	}
	c.logger.ErrorContext(ctx, "request dead-lettered", "subject", subject, "reason", reason)
	_ = msg.Ack()
}

// judgePublisher names the request's publisher from its subject, which NATS lets each service
// publish only below its own name, and refuses (a reason to dead-letter) a request for a
// template that is not that publisher's to ask for. The payload's source_service is the
// publisher's own word and is replaced. A template the service does not know goes on, to be
// recorded as failed as before.
//
// A subject of the older shape, thumela.notifications.<user>.<channel>, was published before
// every publisher had a subject of its own; no identity may publish one any more (a user token
// is a UUID or "support", never a service's name), so such a request is one left in the queue
// from before the change, and its source_service is judged as the subject's publisher would be.
func judgePublisher(subject string, req *app.Request) string {
	publisher, user, _, ok := bus.ParseNotificationSubject(subject)
	if !ok {
		legacyUser, _, legacy := legacySubject(subject)
		if !legacy || legacyUser != req.UserID {
			return "subject names no publisher"
		}
		publisher = req.Source
	} else if user != req.UserID {
		return "subject and request name different users"
	}
	if req.Template.Known() && !req.Template.RequestableBy(publisher) {
		return fmt.Sprintf("template %s is not %s's to ask for", req.Template, publisher)
	}
	req.Source = publisher
	return ""
}

// legacySubject reads user and channel from a subject of the older shape,
// thumela.notifications.<user>.<channel>, whose user is a UUID or domain.UserSupport.
func legacySubject(subject string) (user, channel string, ok bool) {
	parts := strings.Split(subject, ".")
	if len(parts) != 4 || parts[0] != bus.Root || parts[1] != bus.DomainNotifications {
		return "", "", false
	}
	if parts[2] != domain.UserSupport {
		u, err := uuid.Parse(parts[2])
		if err != nil || u.String() != parts[2] {
			return "", "", false
		}
	}
	return parts[2], parts[3], true
}

// subjectTokens reads user and channel from a request's subject, for its dead letter.
func subjectTokens(subject string) (user, channel string) {
	if _, user, channel, ok := bus.ParseNotificationSubject(subject); ok {
		return user, channel
	}
	if user, channel, ok := legacySubject(subject); ok {
		return user, channel
	}
	return "unknown", "unknown"
}

// maxRecipient is longer than any e-mail address (254) or phone number.
const maxRecipient = 320

// Decode reads a NotificationRequest. It fails when the payload does not decode or lacks what
// every delivery needs to be recorded (an id, a user); an unknown channel or template decodes,
// for the app to record as failed.
func Decode(data []byte) (app.Request, error) {
	var pb notificationsv1.NotificationRequest
	if err := proto.Unmarshal(data, &pb); err != nil {
		return app.Request{}, errors.New("undecodable request")
	}
	id, err := uuid.Parse(pb.GetId())
	if err != nil || id == uuid.Nil {
		return app.Request{}, errors.New("request without a valid id")
	}
	user := pb.GetUserId()
	if user != domain.UserSupport {
		u, err := uuid.Parse(user)
		if err != nil {
			return app.Request{}, errors.New("request without a valid user id")
		}
		user = u.String()
	}
	recipient := strings.TrimSpace(pb.GetRecipient())
	if len(recipient) > maxRecipient {
		recipient = recipient[:maxRecipient] // invalid anyway; stored cut
	}
	req := app.Request{
		ID:        id,
		UserID:    user,
		Channel:   deliveryevents.ChannelFromProto(pb.GetChannel()),
		Template:  deliveryevents.TemplateFromProto(pb.GetTemplate()),
		Recipient: strings.ToValidUTF8(recipient, ""),
		Params:    pb.GetParams(),
		Reference: domain.Sanitize(pb.GetReference(), 100),
		Source:    domain.Sanitize(pb.GetSourceService(), 64),
	}
	if s := pb.GetSecrets(); s != nil {
		req.Secrets = &seal.Sealed{KeyID: s.GetKeyId(), Box: s.GetBox()}
	}
	return req, nil
}
