package live

import (
	"context"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/thumela/thumela/services/platform/bus"
)

// ring holds the most recent messages the hub routed, oldest first, so that a tab reconnecting
// with a recent cursor is replayed from memory. It is bounded by count and by age; floor is
// the sequence of the newest message it has let go (or the hub's starting position), so it
// holds every routed message with a sequence above floor.
//
// It keeps each message in its bus form, packed into one allocation (held), not the decoded
// event the tabs were sent: a decoded transfer event is a protobuf message of some twenty
// strings and sub-messages, and a thousand of them, kept for minutes among a burst's
// short-lived objects, pinned a heap span apiece. That was 14 MiB of the BFF's resident memory
// after the bench's load (62 MiB with the decoded ring, 48 with a ring of 16). A replay, which
// only a reconnecting tab asks for, decodes again.
//
// Not safe for concurrent use: the hub guards it with its lock.
type ring struct {
	buf   []held // circular, len(buf) is the capacity
	head  int    // index of the oldest message
	n     int    // messages held
	floor uint64
}

// held is one routed message, packed: blob is its subject, its payload and its trace headers
// (traceparent, tracestate) one after the other, each ending at its offset.
type held struct {
	seq       uint64
	published time.Time
	received  time.Time
	blob      []byte
	user      int // the user id within the subject: blob[user:userEnd]
	userEnd   int
	subject   int // end of the subject
	data      int // end of the payload
	parent    int // end of traceparent; tracestate runs to the end
}

// Trace header names (W3C), as bus.InjectTrace writes them.
const (
	headerTraceparent = "traceparent"
	headerTracestate  = "tracestate"
)

// hold packs a routed message (raw, read from subject, with its headers): its subject, payload
// and trace headers copied into one allocation, so that it keeps no other object alive.
func hold(raw Raw, subject string, hdr nats.Header, published, received time.Time) held {
	parent, state := hdr.Get(headerTraceparent), hdr.Get(headerTracestate)
	blob := make([]byte, 0, len(subject)+len(raw.Data)+len(parent)+len(state))
	blob = append(blob, subject...)
	user := len(bus.Root) + 1 + len(raw.Domain) + 1 // thumela.<domain>.<user_id>.<event>
	h := held{seq: raw.Seq, published: published, received: received,
		user: user, userEnd: user + len(raw.UserID), subject: len(blob)}
	blob = append(blob, raw.Data...)
	h.data = len(blob)
	blob = append(blob, parent...)
	h.parent = len(blob)
	blob = append(blob, state...)
	h.blob = blob
	return h
}

// of reports whether the message is userID's (without allocating).
func (h held) of(userID string) bool { return string(h.blob[h.user:h.userEnd]) == userID }

// raw is the held message as the decoder takes it (its strings and payload its own copies);
// false only for a subject that is not a user's event, which is never held.
func (h held) raw() (Raw, bool) {
	raw, ok := splitSubject(string(h.blob[:h.subject]))
	raw.Seq, raw.Data = h.seq, h.blob[h.subject:h.data:h.data]
	return raw, ok
}

// trace is the publisher's trace context the message carried.
func (h held) trace() context.Context {
	hdr := nats.Header{}
	if parent := string(h.blob[h.data:h.parent]); parent != "" {
		hdr.Set(headerTraceparent, parent)
	}
	if state := string(h.blob[h.parent:]); state != "" {
		hdr.Set(headerTracestate, state)
	}
	if len(hdr) == 0 {
		return context.Background()
	}
	return bus.ExtractTrace(context.Background(), hdr)
}

func newRing(size int, floor uint64) ring {
	return ring{buf: make([]held, size), floor: floor}
}

// push appends m (whose sequence is above every held one), letting the oldest go when full.
func (r *ring) push(m held) {
	if r.n == len(r.buf) {
		r.pop()
	}
	r.buf[(r.head+r.n)%len(r.buf)] = m
	r.n++
}

// pop lets the oldest message go.
func (r *ring) pop() {
	old := r.buf[r.head]
	r.buf[r.head] = held{}
	r.head = (r.head + 1) % len(r.buf)
	r.n--
	r.floor = old.seq
}

// expire lets go of the messages received before cutoff.
func (r *ring) expire(cutoff time.Time) {
	for r.n > 0 && r.buf[r.head].received.Before(cutoff) {
		r.pop()
	}
}

// covers reports whether every routed message after seq is still held.
func (r *ring) covers(seq uint64) bool { return seq >= r.floor }

// after returns userID's held messages with a sequence above seq, oldest first.
func (r *ring) after(seq uint64, userID string) []held {
	var out []held
	for i := range r.n {
		m := r.buf[(r.head+i)%len(r.buf)]
		if m.seq > seq && m.of(userID) {
			out = append(out, m)
		}
	}
	return out
}
