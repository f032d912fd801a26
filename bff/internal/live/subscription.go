package live

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Subscription is one tab's view of the hub. The hub queues the user's messages to it without
// ever waiting; the tab's goroutine takes them with CatchUp (once, first) and Next, and uses
// Cursor for its heartbeats. Apart from Ready, its methods are for that one goroutine.
type Subscription[E any] struct {
	hub    *Hub[E]
	userID string
	// ready holds a token when something was queued or the subscription failed.
	ready chan struct{}

	mu    sync.Mutex // guards queue and err, shared with the hub
	queue []*Message[E]
	err   error

	// The tab's goroutine's own state.
	last      uint64        // the highest sequence the tab has had (or its resume cursor)
	replay    []*Message[E] // from the ring, for CatchUp
	catchUpTo uint64        // > 0: CatchUp reads (last, catchUpTo] from JetStream
	caughtUp  bool
	closed    bool
}

// Ready receives a token whenever Next may have something (a message, or the error the
// subscription ended with).
func (s *Subscription[E]) Ready() <-chan struct{} { return s.ready }

// push queues m, or fails the subscription when limit messages already wait. Called by the
// hub under its lock; false when the subscription is to be dropped.
func (s *Subscription[E]) push(m *Message[E], limit int) bool {
	s.mu.Lock()
	ok := s.err == nil && len(s.queue) < limit
	switch {
	case ok:
		s.queue = append(s.queue, m)
	case s.err == nil:
		s.err = ErrSlow
		s.queue = nil
	}
	s.mu.Unlock()
	s.notify()
	return ok
}

func (s *Subscription[E]) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
		s.queue = nil
	}
	s.mu.Unlock()
	s.notify()
}

func (s *Subscription[E]) notify() {
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// CatchUp hands send what the tab missed between its resume cursor and the moment it
// subscribed, in order: from the ring, or from JetStream when the cursor is older than the
// ring. It does nothing for a new tab. Call it once, before Next.
func (s *Subscription[E]) CatchUp(ctx context.Context, send func(*Message[E]) error) error {
	if s.caughtUp {
		return nil
	}
	defer func() { s.replay, s.caughtUp = nil, true }()
	for _, m := range s.replay {
		if err := s.give(m, send); err != nil {
			return err
		}
	}
	if s.catchUpTo > s.last {
		return s.catchUpFromStream(ctx, send)
	}
	return nil
}

// give sends m and advances the cursor, unless the subscription has failed meanwhile.
func (s *Subscription[E]) give(m *Message[E], send func(*Message[E]) error) error {
	if err := s.failed(); err != nil {
		return err
	}
	if err := send(m); err != nil {
		return err
	}
	s.last = m.Seq
	return nil
}

func (s *Subscription[E]) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// catchUpFromStream reads the user's messages in (last, catchUpTo] with a temporary ordered
// consumer filtered to the user. Later ones are already queued by the hub.
func (s *Subscription[E]) catchUpFromStream(ctx context.Context, send func(*Message[E]) error) error {
	h := s.hub
	cons, err := h.js.OrderedConsumer(ctx, h.cfg.Stream, jetstream.OrderedConsumerConfig{
		FilterSubjects: h.userFilters(s.userID),
		DeliverPolicy:  jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:    s.last + 1,
		// Deleted below; should this process die first, the server drops it soon.
		InactiveThreshold: time.Minute,
	})
	if err != nil {
		return fmt.Errorf("live: catch-up consumer: %w", err)
	}
	defer func() {
		if info := cons.CachedInfo(); info != nil {
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			_ = h.js.DeleteConsumer(dctx, h.cfg.Stream, info.Name)
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		// No-wait: what the stream holds now, then the end of the batch. Every message up to
		// catchUpTo is in the stream already.
		batch, err := cons.FetchNoWait(catchUpBatch)
		if err != nil {
			return fmt.Errorf("live: catch-up fetch: %w", err)
		}
		n, done := 0, false
		var sendErr error
		// Drain the batch to its end even after stopping, so the next fetch may start.
		for msg := range batch.Messages() {
			n++
			if done {
				continue
			}
			meta, err := msg.Metadata()
			if err != nil {
				continue
			}
			if meta.Sequence.Stream > s.catchUpTo {
				done = true // the hub has queued this one and what follows
				continue
			}
			if m, _ := h.message(msg, meta, nil); m != nil {
				if sendErr = s.give(m, send); sendErr != nil {
					done = true
					continue
				}
			}
			s.last = max(s.last, meta.Sequence.Stream)
			if meta.NumPending == 0 || meta.Sequence.Stream == s.catchUpTo {
				done = true
			}
		}
		if sendErr != nil {
			return sendErr
		}
		if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
			return fmt.Errorf("live: catch-up fetch: %w", err)
		}
		if done || n == 0 {
			return nil
		}
	}
}

// Next returns the next queued message, false when none waits now (wait on Ready), or the
// error the subscription ended with (ErrSlow, ErrClosed). Messages the tab already had (up to
// its cursor) are skipped.
func (s *Subscription[E]) Next() (*Message[E], bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, false, s.err
	}
	for len(s.queue) > 0 {
		m := s.queue[0]
		s.queue[0] = nil
		s.queue = s.queue[1:]
		if len(s.queue) == 0 {
			s.queue = s.queue[:0:0] // let the drained backing array go
		}
		if m.Seq <= s.last {
			continue
		}
		s.last = m.Seq
		return m, true, nil
	}
	return nil, false, nil
}

// Cursor is the tab's resume point now, for a heartbeat: the hub's position when nothing of
// the user's is waiting (the other users' messages are no gap for this tab, and a cursor that
// keeps up with the hub stays within the ring), else the last message the tab had.
func (s *Subscription[E]) Cursor() uint64 {
	if !s.caughtUp {
		return s.last
	}
	h := s.hub
	h.mu.RLock()
	pos := h.pos
	s.mu.Lock()
	idle := len(s.queue) == 0 && s.err == nil
	s.mu.Unlock()
	h.mu.RUnlock()
	if idle && pos > s.last {
		s.last = pos
	}
	return s.last
}

// Close stops routing to the subscription.
func (s *Subscription[E]) Close() {
	if s.closed {
		return
	}
	s.closed = true
	s.hub.mu.Lock()
	s.hub.removeLocked(s)
	s.hub.mu.Unlock()
}
