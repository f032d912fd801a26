package ports

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/feeschedule"
)

// ScheduleSource is where the fee schedule and its version are read (the bank_fees table and
// the version its trigger bumps).
type ScheduleSource interface {
	// ScheduleVersion is cheap: it is polled.
	ScheduleVersion(ctx context.Context) (int64, error)
	// Schedule returns the banks' fees with the version that names exactly them.
	Schedule(ctx context.Context) (feeschedule.Schedule, error)
}

// SchedulePublisher keeps the fee schedule in the KV bucket bus.BucketFeeSchedule (key
// feeschedule.Key) equal to the database's: at start, and within Interval of any change. The
// transfers service watches the key and prices transfers from it.
type SchedulePublisher struct {
	JS     jetstream.JetStream
	Source ScheduleSource
	// Interval is how often the version is polled (5 s when zero).
	Interval time.Duration
	// Replicas of the bucket (1 for a single NATS server).
	Replicas int
	Logger   *slog.Logger
	// Now stamps published_at (time.Now when nil).
	Now func() time.Time
}

// DefaultScheduleInterval is how often fees looks for a changed schedule: a fee change reaches
// transfers within it (a transfer created meanwhile is priced by the previous version, which
// it records).
const DefaultScheduleInterval = 5 * time.Second

// Run publishes until ctx ends. Neither NATS nor the database being down stops it: it keeps
// trying every Interval, and until a schedule is published transfers asks fees' Quote instead.
func (p *SchedulePublisher) Run(ctx context.Context) error {
	interval := p.Interval
	if interval <= 0 {
		interval = DefaultScheduleInterval
	}
	var (
		kv        jetstream.KeyValue
		published int64 // the version known to be in the bucket (or newer there)
		failing   bool  // log a failure once, not every poll
	)
	for {
		err := func() error {
			if kv == nil {
				b, err := p.JS.CreateOrUpdateKeyValue(ctx, bus.FeeScheduleBucket(p.Replicas))
				if err != nil {
					return fmt.Errorf("open bucket %s: %w", bus.BucketFeeSchedule, err)
				}
				kv = b
			}
			v, err := p.Source.ScheduleVersion(ctx)
			if err != nil {
				return err
			}
			if v == published {
				return nil
			}
			out, err := p.publish(ctx, kv)
			if err != nil {
				return err
			}
			published = out
			return nil
		}()
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil && !failing:
			p.Logger.WarnContext(ctx, "cannot publish the fee schedule yet; retrying", "error", err)
			failing = true
		case err == nil && failing:
			p.Logger.InfoContext(ctx, "fee schedule publishing recovered", "version", published)
			failing = false
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(interval):
		}
	}
}

// publish writes the current schedule unless the bucket holds the same version or a newer one
// (another fees replica was quicker, or this one read an older snapshot): a compare-and-set on
// the key's revision, so two replicas never put an older schedule over a newer one. It returns
// the version now in the bucket.
func (p *SchedulePublisher) publish(ctx context.Context, kv jetstream.KeyValue) (int64, error) {
	s, err := p.Source.Schedule(ctx)
	if err != nil {
		return 0, err
	}
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	s.PublishedAt = now()
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
	p.Logger.InfoContext(ctx, "fee schedule published", "version", s.Version, "banks", len(s.Banks))
	return s.Version, nil
}
