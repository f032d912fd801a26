package app

import (
	"context"
	"log/slog"
	"time"
)

// DefaultScheduleInterval is how often fees looks for a changed schedule: a fee change reaches
// transfers within it (a transfer created meanwhile is priced by the previous version, which
// it records).
const DefaultScheduleInterval = 5 * time.Second

// SchedulePublisher keeps the published fee schedule equal to the database's: at start, and
// within Interval of any change. The transfers service watches the published schedule and
// prices transfers from it.
type SchedulePublisher struct {
	Source ScheduleSource
	Writer ScheduleWriter
	// Interval is how often the version is polled (DefaultScheduleInterval when zero).
	Interval time.Duration
	Logger   *slog.Logger
	// Now stamps published_at (time.Now when nil).
	Now func() time.Time
}

// Run publishes until ctx ends. Neither NATS nor the database being down stops it: it keeps
// trying every Interval, and until a schedule is published transfers asks fees' Quote instead.
func (p *SchedulePublisher) Run(ctx context.Context) error {
	interval := p.Interval
	if interval <= 0 {
		interval = DefaultScheduleInterval
	}
	var (
		published int64 // the version known to be published (or a newer one is)
		failing   bool  // log a failure once, not every poll
	)
	for {
		out, err := p.publishIfChanged(ctx, published)
		if err == nil {
			published = out
		}
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

// publishIfChanged reads the schedule's version, cheaply, and only when it differs from the one
// known to be published reads and writes the whole schedule. It returns the version now
// published.
func (p *SchedulePublisher) publishIfChanged(ctx context.Context, published int64) (int64, error) {
	v, err := p.Source.ScheduleVersion(ctx)
	if err != nil {
		return 0, err
	}
	if v == published {
		return published, nil
	}
	s, err := p.Source.Schedule(ctx)
	if err != nil {
		return 0, err
	}
	now := time.Now
	if p.Now != nil {
		now = p.Now
	}
	s.PublishedAt = now()
	return p.Writer.Write(ctx, s)
}
