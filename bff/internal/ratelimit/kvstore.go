package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/throttled/throttled/v2"
)

// Bucket is the NATS KV bucket that every BFF replica keeps its rate-limit state in.
const Bucket = "THUMELA_RATELIMITS"

// kvStore is throttled's GCRA store over a NATS KV bucket: Get, Create and Update with the
// expected revision are exactly the compare-and-swap the GCRA needs, so every replica shares
// one count per key without a lock. (throttled ships Redis and in-memory stores only; this
// adapter is the small part written here.)
//
// A value is the key's theoretical arrival time in Unix nanoseconds, in decimal. Keys expire
// with the bucket's TTL, set longer than any rule's tolerance: a key untouched that long holds
// nothing the GCRA would still read.
type kvStore struct {
	js       jetstream.JetStream
	ttl      time.Duration
	replicas int
	now      func() time.Time

	mu sync.Mutex
	kv jetstream.KeyValue
}

var _ throttled.GCRAStoreCtx = (*kvStore)(nil)

// bucket opens the bucket, creating or updating it the first time: the BFF owns it, so a
// fresh NATS (or a changed policy table's TTL) needs no separate set-up step.
func (s *kvStore) bucket(ctx context.Context) (jetstream.KeyValue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kv != nil {
		return s.kv, nil
	}
	kv, err := s.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      Bucket,
		Description: "BFF rate limits: GCRA state per policy, kind and hashed key",
		History:     1,
		TTL:         s.ttl,
		// Counts are cheap to lose (a NATS restart forgets them, which only lets a few
		// more calls through) and written on every limited call: memory, not disk.
		Storage:      jetstream.MemoryStorage,
		Replicas:     max(s.replicas, 1),
		MaxValueSize: 1024, // the headers count too
		// A flood of distinct keys cannot grow the bucket without bound: the oldest
		// states go first, which errs towards letting a caller through.
		MaxBytes: 128 << 20,
	})
	if err != nil {
		return nil, fmt.Errorf("rate limits: open bucket %s: %w", Bucket, err)
	}
	s.kv = kv
	return kv, nil
}

// revisionKey carries, within one RateLimitCtx call, the revision GetWithTime read, so that
// the compare-and-swap that follows costs one round trip instead of two.
type revisionKey struct{}

type seen struct {
	key      string
	value    int64
	revision uint64
}

func withRevisions(ctx context.Context) context.Context {
	return context.WithValue(ctx, revisionKey{}, &seen{})
}

func (s *kvStore) remember(ctx context.Context, key string, value int64, revision uint64) {
	if p, ok := ctx.Value(revisionKey{}).(*seen); ok {
		*p = seen{key: key, value: value, revision: revision}
	}
}

func (s *kvStore) GetWithTime(ctx context.Context, key string) (int64, time.Time, error) {
	now := s.now()
	kv, err := s.bucket(ctx)
	if err != nil {
		return 0, now, err
	}
	e, err := kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return -1, now, nil
	}
	if err != nil {
		return 0, now, err
	}
	v, err := strconv.ParseInt(string(e.Value()), 10, 64)
	if err != nil {
		// Not ours (or damaged): treat as no state; the next write replaces it.
		return -1, now, nil
	}
	s.remember(ctx, key, v, e.Revision())
	return v, now, nil
}

func (s *kvStore) SetIfNotExistsWithTTL(ctx context.Context, key string, value int64, _ time.Duration) (bool, error) {
	kv, err := s.bucket(ctx)
	if err != nil {
		return false, err
	}
	rev, err := kv.Create(ctx, key, []byte(strconv.FormatInt(value, 10)))
	if errors.Is(err, jetstream.ErrKeyExists) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	s.remember(ctx, key, value, rev)
	return true, nil
}

func (s *kvStore) CompareAndSwapWithTTL(ctx context.Context, key string, old, replacement int64, _ time.Duration) (bool, error) {
	kv, err := s.bucket(ctx)
	if err != nil {
		return false, err
	}
	var rev uint64
	if p, ok := ctx.Value(revisionKey{}).(*seen); ok && p.key == key && p.value == old && p.revision != 0 {
		rev = p.revision
	} else {
		e, err := kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if string(e.Value()) != strconv.FormatInt(old, 10) {
			return false, nil
		}
		rev = e.Revision()
	}
	next, err := kv.Update(ctx, key, []byte(strconv.FormatInt(replacement, 10)), rev)
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyExists) {
		return false, nil // another replica got there first: the GCRA reads again
	}
	if err != nil {
		return false, err
	}
	s.remember(ctx, key, replacement, next)
	return true, nil
}
