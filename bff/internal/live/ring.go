package live

import "time"

// ring holds the most recent messages the hub routed, oldest first, so that a tab reconnecting
// with a recent cursor is replayed from memory. It is bounded by count and by age; floor is
// the sequence of the newest message it has let go (or the hub's starting position), so it
// holds every routed message with a sequence above floor.
//
// Not safe for concurrent use: the hub guards it with its lock.
type ring[E any] struct {
	buf   []*Message[E] // circular, len(buf) is the capacity
	head  int           // index of the oldest message
	n     int           // messages held
	floor uint64
}

func newRing[E any](size int, floor uint64) ring[E] {
	return ring[E]{buf: make([]*Message[E], size), floor: floor}
}

// push appends m (whose sequence is above every held one), letting the oldest go when full.
func (r *ring[E]) push(m *Message[E]) {
	if r.n == len(r.buf) {
		r.pop()
	}
	r.buf[(r.head+r.n)%len(r.buf)] = m
	r.n++
}

// pop lets the oldest message go.
func (r *ring[E]) pop() {
	old := r.buf[r.head]
	r.buf[r.head] = nil
	r.head = (r.head + 1) % len(r.buf)
	r.n--
	r.floor = old.Seq
}

// expire lets go of the messages received before cutoff.
func (r *ring[E]) expire(cutoff time.Time) {
	for r.n > 0 && r.buf[r.head].received.Before(cutoff) {
		r.pop()
	}
}

// covers reports whether every routed message after seq is still held.
func (r *ring[E]) covers(seq uint64) bool { return seq >= r.floor }

// after returns userID's held messages with a sequence above seq, oldest first.
func (r *ring[E]) after(seq uint64, userID string) []*Message[E] {
	var out []*Message[E]
	for i := range r.n {
		m := r.buf[(r.head+i)%len(r.buf)]
		if m.Seq > seq && m.UserID == userID {
			out = append(out, m)
		}
	}
	return out
}
