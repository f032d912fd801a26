// Package feeschedulekv is the app's Fees from the fee schedule that the fees service publishes
// to the NATS KV bucket THUMELA_FEE_SCHEDULE: it watches the key, holds the schedule in memory
// and prices each transfer locally with the fees service's own arithmetic
// (services/platform/feeschedule), so that a create calls no other service for its fee. The
// quote carries the schedule's version, which the transfer records. Until a schedule has
// arrived (fees not started yet, the bucket missing, NATS down at start) it asks the fees
// service's Quote instead, as before, so no start order is needed.
package feeschedulekv

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/feeschedule"
	"github.com/thumela/thumela/services/platform/lifecycle"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// Fees implements app.Fees and app.LocalFees from the published schedule, or through Fallback before one.
type Fees struct {
	fallback app.Fees
	logger   *slog.Logger
	current  atomic.Pointer[feeschedule.Schedule]
}

var _ app.Fees = (*Fees)(nil)

// New returns Fees that ask fallback (the fees service's gRPC client) until a schedule is set.
func New(fallback app.Fees, logger *slog.Logger) *Fees {
	return &Fees{fallback: fallback, logger: logger}
}

// LocalQuote implements app.LocalFees: the price from the schedule held, false before one
// arrived or for an amount it cannot price (Quote then asks the fees service).
func (f *Fees) LocalQuote(bank domain.Bank, amount domain.Money) (domain.Quote, bool) {
	s := f.current.Load()
	if s == nil {
		return domain.Quote{}, false
	}
	p, err := s.Price(string(bank), amount.Cents())
	if err != nil {
		return domain.Quote{}, false
	}
	return domain.Quote{
		BankFee:         domain.Cents(p.BankFeeCents),
		PlatformFee:     domain.Cents(p.PlatformFeeCents),
		ScheduleVersion: s.Version,
		Fallback:        p.Fallback,
	}, true
}

// Quote implements app.Fees. The waiver is not the schedule's to say (Waived false): the
// transfers service decides it for certain under the sender's lock (domain.DecideFee).
func (f *Fees) Quote(ctx context.Context, bank domain.Bank, amount domain.Money) (domain.Quote, error) {
	if q, ok := f.LocalQuote(bank, amount); ok {
		return q, nil
	}
	// No schedule yet, or an amount no transfer can have (the limits refuse it first): let fees
	// say why, as before.
	return f.fallback.Quote(ctx, bank, amount)
}

// Version is the version of the schedule held (0: none yet, quotes go to the fees service).
func (f *Fees) Version() int64 {
	if s := f.current.Load(); s != nil {
		return s.Version
	}
	return 0
}

// Set holds s unless a newer (or the same) version is held already: a watch that restarts
// replays the key, and a fees replica may lag behind another. It reports whether s was taken.
func (f *Fees) Set(s feeschedule.Schedule) bool {
	for {
		cur := f.current.Load()
		if cur != nil && cur.Version >= s.Version {
			return false
		}
		if f.current.CompareAndSwap(cur, &s) {
			return true
		}
	}
}

// forget drops the schedule held: quotes go back to the fees service.
func (f *Fees) forget() { f.current.Store(nil) }

// Watch keeps the schedule current until ctx ends. A missing bucket (fees has not started yet)
// or a broken watch is retried with a growing pause; meanwhile the last schedule held, if any,
// keeps pricing (the fee charged is the one stored with its version on each transfer).
func (f *Fees) Watch(ctx context.Context, js jetstream.JetStream) error {
	return lifecycle.KeepTrying(ctx, f.logger, "no fee schedule to watch yet; fees' Quote prices transfers meanwhile", 250*time.Millisecond,
		func(ctx context.Context) error { return f.watchOnce(ctx, js) })
}

// errWatchEnded: the watch's subscription closed (NATS closed the connection or the consumer).
var errWatchEnded = errors.New("fee schedule watch ended")

func (f *Fees) watchOnce(ctx context.Context, js jetstream.JetStream) error {
	kv, err := js.KeyValue(ctx, bus.BucketFeeSchedule)
	if err != nil {
		return err
	}
	w, err := kv.Watch(ctx, feeschedule.Key)
	if err != nil {
		return err
	}
	defer func() { _ = w.Stop() }()
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-w.Updates():
			if !ok {
				return errWatchEnded
			}
			if e == nil {
				continue // the end of the initial values
			}
			f.apply(ctx, e)
		}
	}
}

func (f *Fees) apply(ctx context.Context, e jetstream.KeyValueEntry) {
	if e.Operation() != jetstream.KeyValuePut {
		// Fees took the schedule away: rather than price with one it withdrew, ask it.
		f.forget()
		f.logger.WarnContext(ctx, "fee schedule withdrawn; fees' Quote prices transfers")
		return
	}
	s, err := feeschedule.Decode(e.Value())
	if err != nil {
		// Keep the last good schedule: a bad write must not change what transfers cost.
		f.logger.ErrorContext(ctx, "fee schedule unreadable; keeping the one held", "error", err, "held_version", f.Version())
		return
	}
	if f.Set(s) {
		f.logger.InfoContext(ctx, "fee schedule in use", "version", s.Version, "banks", len(s.Banks))
	}
}
