package ratelimit

import (
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/throttled/throttled/v2"
)

// NewKVStoreForTest exposes the KV store adapter to throttled's store conformance test.
func NewKVStoreForTest(js jetstream.JetStream, ttl time.Duration) throttled.GCRAStoreCtx {
	return &kvStore{js: js, ttl: ttl, now: time.Now}
}
