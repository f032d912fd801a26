// Package feeschedulekv is the app's ScheduleWriter: it writes the fee schedule to the NATS KV
// bucket bus.BucketFeeSchedule (key feeschedule.Key), which the transfers service watches and
// prices transfers from.
package feeschedulekv

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/thumela/thumela/services/fees/internal/app"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/feeschedule"
)

// Writer implements app.ScheduleWriter.
type Writer struct {
	js jetstream.JetStream
	// replicas of the bucket (1 for a single NATS server).
	replicas int
	logger   *slog.Logger

	mu sync.Mutex
	kv jetstream.KeyValue // opened on the first write that finds NATS up
}

var _ app.ScheduleWriter = (*Writer)(nil)

// New returns a Writer that creates (or updates) the bucket with replicas on its first write.
func New(js jetstream.JetStream, replicas int, logger *slog.Logger) *Writer {
	return &Writer{js: js, replicas: replicas, logger: logger}
}

// Write implements app.ScheduleWriter. It does not write when the bucket holds the same version
// or a newer one: a compare-and-set on the key's revision, so two replicas never put an older
// schedule over a newer one.
func (w *Writer) Write(ctx context.Context, s feeschedule.Schedule) (int64, error) {
	kv, err := w.bucket(ctx)
	if err != nil {
		return 0, err
	}
	data, err := feeschedule.Encode(s)
	if err != nil {
		return 0, fmt.Errorf("encode fee schedule: %w", err)
	}
	e, err := kv.Get(ctx, feeschedule.Key)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		_, err = kv.Create(ctx, feeschedule.Key, data)
	case err != nil:
		return 0, fmt.Errorf("read published fee schedule: %w", err)
	default:
		if cur, derr := feeschedule.Decode(e.Value()); derr == nil && cur.Version >= s.Version {
			return cur.Version, nil
		}
		_, err = kv.Update(ctx, feeschedule.Key, data, e.Revision())
	}
	if err != nil {
		// Lost a race with another replica: the next poll reads the bucket again.
		return 0, fmt.Errorf("publish fee schedule version %d: %w", s.Version, err)
	}
	w.logger.InfoContext(ctx, "fee schedule published", "version", s.Version, "banks", len(s.Banks))
	return s.Version, nil
}

// bucket opens the bucket once; while NATS cannot be reached every write tries again.
func (w *Writer) bucket(ctx context.Context) (jetstream.KeyValue, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.kv == nil {
		kv, err := w.js.CreateOrUpdateKeyValue(ctx, bus.FeeScheduleBucket(w.replicas))
		if err != nil {
			return nil, fmt.Errorf("open bucket %s: %w", bus.BucketFeeSchedule, err)
		}
		w.kv = kv
	}
	return w.kv, nil
}
