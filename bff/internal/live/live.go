// Package live fans the users' events out to their open browser tabs in one BFF process.
//
// A Hub reads the events stream through one JetStream ordered consumer, filtered to the user
// domains and started at the stream's end when the process starts, and routes each message by
// the user id token of its subject (thumela.<domain>.<user_id>.<event>) to that user's
// subscriptions, decoded once for all of them. The ordered consumer recreates itself after a
// NATS reconnect or a lost consumer, resuming after the last message it delivered, so the hub
// sees every message once and in order.
//
// Cursors are stream sequences, so a tab can resume on any BFF process. A bounded ring of
// recent messages replays a reconnecting tab from memory; a cursor older than the ring is
// caught up by a temporary ordered consumer filtered to the user, up to the hub's position,
// after which the tab continues on live delivery, deduplicated by sequence. Each subscription
// has a bounded queue: a tab that falls behind is ended with ErrSlow (the browser reconnects
// with its cursor and catches up) and never holds up the hub or the other tabs.
package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/thumela/thumela/services/platform/bus"
)

// Errors a subscription ends with or Subscribe returns. All of them are temporary: the client
// is to reconnect with its cursor (after ErrTooManyStreams, once another of the user's tabs
// has closed).
var (
	// ErrNotReady: the hub has not reached the stream yet (NATS is down or the process is
	// starting).
	ErrNotReady = errors.New("live: not connected to the events stream yet")
	// ErrClosed: the hub stopped (the process is shutting down).
	ErrClosed = errors.New("live: stopped")
	// ErrSlow: the tab did not keep up and its queue overflowed.
	ErrSlow = errors.New("live: subscriber fell behind")
	// ErrTooManyStreams: the user already has Limits.PerUser streams open on this process.
	ErrTooManyStreams = errors.New("live: too many streams open for the user")
)

// Default limits.
const (
	// DefaultRingSize recent messages are kept for reconnecting tabs (a few hundred bytes each
	// plus the decoded event, about 1.1 KB in all). 1,024 covers minutes of a quiet hour and
	// seconds of a busy one; a cursor older than the ring catches up from JetStream. (4,096
	// held 4.6 MiB that the BFF kept after every burst, with the spans they pinned: 68.9 MiB
	// resident after the bench's load against 61.4 with 1,024; docs/decisions.md.)
	DefaultRingSize = 1024
	// DefaultRingAge is how long a message stays in the ring at most: a reconnect after a
	// network blip or a laptop lid is served from memory, a tab back after a long sleep from
	// JetStream.
	DefaultRingAge = 10 * time.Minute
	// DefaultQueueSize messages may wait for one tab; a tab further behind is ended.
	DefaultQueueSize = 256
	// DefaultPerUser streams may be open for one user on one process. A person has a tab or
	// a few per browser; without a bound, one signed-in account could open streams until the
	// process ran out of memory (about 23 KiB each with their HTTP/2 state, measured with
	// 10,000 open). 128 holds one account to about 3 MiB and leaves room above the bench's
	// 100 streams per user at its 10,000-stream level.
	DefaultPerUser = 128
)

// catchUpBatch is how many messages a catch-up reads from JetStream per request.
const catchUpBatch = 256

// Limits bound the hub's memory; zero values take the defaults.
type Limits struct {
	RingSize  int
	RingAge   time.Duration
	QueueSize int
	PerUser   int
}

func (l Limits) withDefaults() Limits {
	if l.RingSize <= 0 {
		l.RingSize = DefaultRingSize
	}
	if l.RingAge <= 0 {
		l.RingAge = DefaultRingAge
	}
	if l.QueueSize <= 0 {
		l.QueueSize = DefaultQueueSize
	}
	if l.PerUser <= 0 {
		l.PerUser = DefaultPerUser
	}
	return l
}

// Raw is one bus message as the hub hands it to the decoder, its subject split.
type Raw struct {
	Seq    uint64
	Domain string
	UserID string
	Event  string
	Data   []byte
}

// Decoder turns a message into what the tabs are sent; false drops it (an event the browser
// does not need, or one that does not decode). It runs once per message, on the hub's
// goroutine (and on a catching-up tab's, for the messages it reads from JetStream), and its
// result is shared by every tab of the user, so it must not be modified afterwards.
type Decoder[E any] func(Raw) (E, bool)

// Config says what a hub reads and how.
type Config[E any] struct {
	// Stream is the JetStream stream of the events.
	Stream string
	// Domains are the subject domains routed to tabs: the hub reads thumela.<domain>.> of each.
	Domains []string
	Decode  Decoder[E]
	// Observe, when set, sees every user's message of the domains before it is decoded and
	// before it is queued to the user's tabs, on the hub's goroutine (it must not block): a
	// cache of what the events change drops its stale entries there, so that no tab hears of
	// a change before the cache does.
	Observe func(Raw)
	Logger  *slog.Logger
	Limits  Limits
}

// Message is one routed event. It is shared by every subscription it goes to: read only.
type Message[E any] struct {
	// Seq is the message's stream sequence: the tab's cursor once it has the message.
	Seq    uint64
	UserID string
	// Published is when JetStream stored the message (the delivery latency starts there).
	Published time.Time
	// Trace carries the publisher's trace context from the message headers, for the delivery
	// span.
	Trace context.Context
	Event E
	// received is when this process got the message (the ring's age bound, on this clock).
	received time.Time
}

// Hub is one process's fan-out of the events stream to its subscriptions.
type Hub[E any] struct {
	js      jetstream.JetStream
	cfg     Config[E]
	limits  Limits
	logger  *slog.Logger
	filters []string
	metrics metrics
	running chan struct{} // closed once the hub reads the stream

	mu sync.RWMutex
	// state: starting until the consumer runs, then running, then closed.
	state hubState
	// pos is the last stream sequence the hub routed (or the stream's end when it started):
	// every message of the domains up to pos has been queued to the tabs open at the time.
	pos  uint64
	ring ring
	subs map[string]map[*Subscription[E]]struct{} // by user id
}

type hubState int

const (
	starting hubState = iota
	running
	closed
)

// New returns a hub; Run starts it.
func New[E any](js jetstream.JetStream, cfg Config[E]) *Hub[E] {
	if cfg.Stream == "" || len(cfg.Domains) == 0 || cfg.Decode == nil {
		panic("live: New needs a stream, domains and a decoder")
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	filters := make([]string, len(cfg.Domains))
	for i, d := range cfg.Domains {
		filters[i] = bus.Root + "." + d + ".>"
	}
	limits := cfg.Limits.withDefaults()
	return &Hub[E]{
		js:      js,
		cfg:     cfg,
		limits:  limits,
		logger:  logger.With("component", "live"),
		filters: filters,
		metrics: newMetrics(),
		running: make(chan struct{}),
		ring:    newRing(limits.RingSize, 0),
		subs:    map[string]map[*Subscription[E]]struct{}{},
	}
}

// Running is closed once the hub reads the stream and takes subscriptions.
func (h *Hub[E]) Running() <-chan struct{} { return h.running }

// Run reads the stream until ctx is cancelled, then ends every subscription with ErrClosed.
// It starts at the stream's end, retrying with backoff while the stream cannot be reached
// (subscriptions meanwhile get ErrNotReady); once started, the ordered consumer rides out NATS
// outages by itself.
func (h *Hub[E]) Run(ctx context.Context) error {
	defer h.close()
	delay := 100 * time.Millisecond
	var cc jetstream.ConsumeContext
	for {
		var err error
		if cc, err = h.start(ctx); err == nil {
			break
		}
		h.logger.WarnContext(ctx, "live events: cannot read the events stream yet, retrying", "err", err, "retry_in", delay)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(delay):
		}
		delay = min(2*delay, 5*time.Second)
	}
	defer cc.Stop()
	<-ctx.Done()
	return nil
}

// start positions the hub at the stream's end and starts its consumer there.
func (h *Hub[E]) start(ctx context.Context) (jetstream.ConsumeContext, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	stream, err := h.js.Stream(ctx, h.cfg.Stream)
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", h.cfg.Stream, err)
	}
	last := stream.CachedInfo().State.LastSeq
	// By start sequence rather than "new": should the consumer be recreated before its first
	// message (NATS restarted), it restarts from there too, not from the stream's end then.
	cons, err := h.js.OrderedConsumer(ctx, h.cfg.Stream, jetstream.OrderedConsumerConfig{
		FilterSubjects: h.filters,
		DeliverPolicy:  jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:    last + 1,
	})
	if err != nil {
		return nil, fmt.Errorf("ordered consumer: %w", err)
	}
	h.mu.Lock()
	h.pos = last
	h.ring = newRing(h.limits.RingSize, last)
	h.mu.Unlock()
	cc, err := cons.Consume(h.route, jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
		// The ordered consumer recovers by itself (it recreates itself after the last message
		// it delivered); this says why the tabs are quiet meanwhile.
		h.logger.Warn("live events: consumer interrupted, recovering", "err", err)
	}))
	if err != nil {
		return nil, fmt.Errorf("consume: %w", err)
	}
	h.mu.Lock()
	if h.state == starting {
		h.state = running
		close(h.running)
	}
	h.mu.Unlock()
	h.logger.Info("live events: reading the events stream", "stream", h.cfg.Stream, "from_seq", last+1)
	return cc, nil
}

// route is the consumer's handler: decode once, keep in the ring, queue to the user's tabs.
func (h *Hub[E]) route(msg jetstream.Msg) {
	meta, err := msg.Metadata()
	if err != nil {
		h.logger.Warn("live events: message without metadata", "subject", msg.Subject(), "err", err)
		return
	}
	m, raw := h.message(msg, meta, h.cfg.Observe)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pos = max(h.pos, meta.Sequence.Stream)
	if m == nil {
		return
	}
	h.ring.push(hold(raw, msg.Subject(), msg.Headers(), m.Published, m.received))
	h.ring.expire(m.received.Add(-h.limits.RingAge))
	for s := range h.subs[m.UserID] {
		if !s.push(m, h.limits.QueueSize) {
			// Full: the subscription ends with ErrSlow; stop feeding it.
			h.removeLocked(s)
		}
	}
}

// message decodes msg; nil when it is not a user's event the decoder keeps. observe, when set,
// sees a user's event first, kept or not: the hub's own reading passes Config.Observe, a tab's
// catch-up of messages the hub has already seen passes nil.
func (h *Hub[E]) message(msg jetstream.Msg, meta *jetstream.MsgMetadata, observe func(Raw)) (*Message[E], Raw) {
	raw, ok := splitSubject(msg.Subject())
	if !ok {
		return nil, raw
	}
	raw.Seq, raw.Data = meta.Sequence.Stream, msg.Data()
	if observe != nil {
		observe(raw)
	}
	trace := context.Background()
	if hdr := msg.Headers(); len(hdr) > 0 {
		trace = bus.ExtractTrace(trace, nats.Header(hdr))
	}
	return h.decoded(trace, raw, meta.Timestamp, time.Now()), raw
}

// decoded is raw decoded into the message the tabs are sent; nil when the decoder drops it.
func (h *Hub[E]) decoded(trace context.Context, raw Raw, published, received time.Time) *Message[E] {
	ev, ok := h.cfg.Decode(raw)
	if !ok {
		return nil
	}
	return &Message[E]{Seq: raw.Seq, UserID: raw.UserID, Published: published, Trace: trace, Event: ev, received: received}
}

// replayed is a held message decoded again for a reconnecting tab; nil when it does not decode.
func (h *Hub[E]) replayed(m held) *Message[E] {
	raw, ok := m.raw()
	if !ok {
		return nil
	}
	return h.decoded(m.trace(), raw, m.published, m.received)
}

// splitSubject reads a user's event subject, thumela.<domain>.<user_id>.<event>; false for
// any other.
func splitSubject(subject string) (Raw, bool) {
	parts := strings.SplitN(subject, ".", 5)
	if len(parts) != 4 || parts[0] != bus.Root || parts[2] == "" {
		return Raw{}, false
	}
	return Raw{Domain: parts[1], UserID: parts[2], Event: parts[3]}, true
}

// Reading reports whether the hub reads the stream: a cache kept current by Observe is to be
// trusted only then.
func (h *Hub[E]) Reading() bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.state == running
}

// Subscribers is how many subscriptions are open.
func (h *Hub[E]) Subscribers() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	n := 0
	for _, subs := range h.subs {
		n += len(subs)
	}
	return n
}

// Start says where a subscription starts.
type Start struct {
	after  uint64
	resume bool
}

// Now starts a subscription at the hub's position: a new tab.
func Now() Start { return Start{} }

// After resumes a subscription right after the cursor seq: a reconnecting tab.
func After(seq uint64) Start { return Start{after: seq, resume: true} }

// Subscribe opens userID's subscription. Messages routed from now on are queued to it at once;
// those between a resume cursor and now are delivered first, by CatchUp. Close it when done.
// A user with Limits.PerUser subscriptions open gets ErrTooManyStreams.
func (h *Hub[E]) Subscribe(userID string, from Start) (*Subscription[E], error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch h.state {
	case starting:
		return nil, ErrNotReady
	case closed:
		return nil, ErrClosed
	}
	if len(h.subs[userID]) >= h.limits.PerUser {
		return nil, ErrTooManyStreams
	}
	s := &Subscription[E]{hub: h, userID: userID, ready: make(chan struct{}, 1), last: h.pos}
	if from.resume {
		s.last = from.after
		if from.after < h.pos {
			h.ring.expire(time.Now().Add(-h.limits.RingAge))
			if h.ring.covers(from.after) {
				for _, m := range h.ring.after(from.after, userID) {
					if d := h.replayed(m); d != nil {
						s.replay = append(s.replay, d)
					}
				}
			} else {
				s.catchUpTo = h.pos
			}
		}
		// A cursor at or past the hub's position has nothing to catch up here (it may come
		// from a process ahead of this one): live messages up to it are dropped as seen.
	}
	if h.subs[userID] == nil {
		h.subs[userID] = map[*Subscription[E]]struct{}{}
	}
	h.subs[userID][s] = struct{}{}
	h.metrics.subscribers.Add(context.Background(), 1)
	return s, nil
}

// removeLocked stops routing to s; h.mu is held.
func (h *Hub[E]) removeLocked(s *Subscription[E]) {
	subs := h.subs[s.userID]
	if _, ok := subs[s]; !ok {
		return
	}
	delete(subs, s)
	if len(subs) == 0 {
		delete(h.subs, s.userID)
	}
	h.metrics.subscribers.Add(context.Background(), -1)
}

// Drain ends every subscription with ErrClosed and refuses new ones, ahead of Run's own end.
// The HTTP server calls it when its graceful shutdown begins: an open stream is an active
// request that Shutdown would otherwise wait on until its timeout, while the tab, told
// Unavailable, reconnects at once to another replica and resumes from its cursor.
func (h *Hub[E]) Drain() { h.close() }

// close ends every subscription with ErrClosed and refuses new ones.
func (h *Hub[E]) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.state = closed
	for _, subs := range h.subs {
		for s := range subs {
			s.fail(ErrClosed)
			h.removeLocked(s)
		}
	}
}

// Delivered records that m, taken with Next, was sent to a tab: the delivery latency is from
// JetStream's timestamp to now.
func (h *Hub[E]) Delivered(ctx context.Context, m *Message[E]) {
	h.metrics.delivered.Add(ctx, 1)
	h.metrics.latency.Record(ctx, max(0, time.Since(m.Published).Seconds()))
}

// Replayed records that a message handed over by CatchUp was sent to a tab. It counts as
// delivered but stays out of the latency, which would otherwise measure how long the tab was
// away.
func (h *Hub[E]) Replayed(ctx context.Context) {
	h.metrics.delivered.Add(ctx, 1)
}

// userFilters are the subjects of userID's events.
func (h *Hub[E]) userFilters(userID string) []string {
	out := make([]string, len(h.cfg.Domains))
	for i, d := range h.cfg.Domains {
		out[i] = bus.Root + "." + d + "." + userID + ".>"
	}
	return out
}
