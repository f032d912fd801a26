// Package cardcache keeps, per process, the cards senders pay with: (user, payment method id)
// → the card's reference (id, name, last four, vault token, whether it is a card), so that a
// create does not ask paymentmethods for the same card every time. It wraps the app's
// PaymentMethods: a miss asks paymentmethods' GetPaymentMethod with the caller's token, as
// before; Charge and Refund always go through.
//
// It stays current through paymentmethods' PaymentMethodChanged events, read by an ordered
// consumer in every process (ports/events.FollowCardChanges; each replica has its own cache, so
// each must see every event).
// Why a card that changed within the event's lag is safe: docs/decisions.md ("No ownership call
// per create"). In short, a deleted card's token is refused by paymentmethods' Charge, so the
// transfer fails with nothing taken; and an entry is only ever filled by a call scoped by the
// caller's own token, so another user's card id is never in it.
package cardcache

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/thumela/thumela/services/transfers/internal/app"
)

// Defaults of the cache's bounds.
const (
	// DefaultMaxEntries bounds memory: an entry is a few hundred bytes, so about 2 MB.
	DefaultMaxEntries = 10_000
	// DefaultTTL bounds how long an entry can outlive a change whose event never arrived (a
	// stream that lost messages); events make changes visible far sooner.
	DefaultTTL = 10 * time.Minute
)

type key struct{ userID, id string }

type entry struct {
	pm      app.PaymentMethod
	expires time.Time
}

// Cache implements app.PaymentMethods (and app.HeldPaymentMethods) over another, caching GetPaymentMethod's answers.
type Cache struct {
	inner      app.PaymentMethods
	maxEntries int
	ttl        time.Duration
	now        func() time.Time

	// live is true while the invalidation feed runs: without it nothing is cached, and every
	// call goes to paymentmethods as before.
	live atomic.Bool

	mu      sync.Mutex
	entries map[key]entry
	// epoch counts invalidations: a fill whose call started before one is not stored, since
	// its answer may predate the change the invalidation was for.
	epoch uint64
}

var _ app.PaymentMethods = (*Cache)(nil)

// Option tunes a Cache.
type Option func(*Cache)

// WithMaxEntries bounds the number of cards held.
func WithMaxEntries(n int) Option { return func(c *Cache) { c.maxEntries = max(n, 1) } }

// WithTTL sets how long an entry is used.
func WithTTL(d time.Duration) Option { return func(c *Cache) { c.ttl = d } }

// WithClock sets the clock (tests).
func WithClock(now func() time.Time) Option { return func(c *Cache) { c.now = now } }

// New returns a cache over inner. It caches nothing until the feed of changes is live (SetLive).
func New(inner app.PaymentMethods, opts ...Option) *Cache {
	c := &Cache{inner: inner, maxEntries: DefaultMaxEntries, ttl: DefaultTTL, now: time.Now, entries: map[key]entry{}}
	for _, o := range opts {
		o(c)
	}
	return c
}

// GetPaymentMethod implements app.PaymentMethods: a held card of userID's, or paymentmethods'
// answer (with the caller's token, so only userID's own cards are ever found). Only found
// methods are kept; an unknown or another user's id asks again every time.
func (c *Cache) GetPaymentMethod(ctx context.Context, userID, id string) (app.PaymentMethod, error) {
	k := key{userID, id}
	live := c.live.Load()
	c.mu.Lock()
	if live {
		if e, ok := c.entries[k]; ok {
			if c.now().Before(e.expires) {
				c.mu.Unlock()
				return e.pm, nil
			}
			delete(c.entries, k)
		}
	}
	epoch := c.epoch
	c.mu.Unlock()

	pm, err := c.inner.GetPaymentMethod(ctx, userID, id)
	if err != nil || !live || (pm.UserID != "" && pm.UserID != userID) || pm.ID != id {
		return pm, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.epoch != epoch {
		return pm, nil // changed meanwhile: this answer may be older than the change
	}
	if _, ok := c.entries[k]; !ok && len(c.entries) >= c.maxEntries {
		// Full: drop an arbitrary entry (Go's map order is random), which costs one call later.
		for old := range c.entries {
			delete(c.entries, old)
			break
		}
	}
	c.entries[k] = entry{pm: pm, expires: c.now().Add(c.ttl)}
	return pm, nil
}

// HeldPaymentMethod implements app.HeldPaymentMethods: userID's card id as held, without a
// call; false when none is held (not asked yet, dropped by a change, expired, or the feed of
// changes is not running).
func (c *Cache) HeldPaymentMethod(userID, id string) (app.PaymentMethod, bool) {
	if !c.live.Load() {
		return app.PaymentMethod{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key{userID, id}]
	if !ok || !c.now().Before(e.expires) {
		return app.PaymentMethod{}, false
	}
	return e.pm, true
}

// Charge implements app.PaymentMethods (never cached).
func (c *Cache) Charge(ctx context.Context, req app.ChargeRequest) (app.ChargeResult, error) {
	return c.inner.Charge(ctx, req)
}

// Refund implements app.PaymentMethods (never cached).
func (c *Cache) Refund(ctx context.Context, req app.RefundRequest) (string, error) {
	return c.inner.Refund(ctx, req)
}

// Invalidate drops userID's method id (a PaymentMethodChanged).
func (c *Cache) Invalidate(userID, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	delete(c.entries, key{userID, id})
}

// Reset drops every entry.
func (c *Cache) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	clear(c.entries)
}

// SetLive turns caching on (the feed of changes runs) or off (it stopped: entries are
// dropped, since changes would no longer reach them). Turning it on also drops what an
// earlier feed left and any fill in flight, whose answer may predate the new feed's start.
func (c *Cache) SetLive(live bool) {
	c.Reset()
	c.live.Store(live)
	if !live {
		c.Reset() // a fill that read live just before
	}
}

// Len is the number of cards held.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Live reports whether the feed of changes runs (and so whether cards are cached).
func (c *Cache) Live() bool { return c.live.Load() }
