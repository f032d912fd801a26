// Package historycache keeps, for a few seconds, the pages of transfer history this BFF has
// just served, so that a sender who reloads the dashboard or pages back and forth is answered
// from memory rather than by a gRPC call to transfers and a query.
//
// A page is dropped the moment anything about the sender's transfers is known to have changed:
// when the live hub routes one of the sender's transfer events (every status change, a voucher
// issued, changed, collected or reversed), and when a call through this BFF changes one of
// them (a create, a cancel, a resend, a phone change). The hub routes an event before it
// queues it to the sender's tabs, so a tab that refetches on an event is never answered with
// the page the event made stale. The TTL bounds what no event announces (a refund completed,
// whose only message is the sender's e-mail) and what another replica changed before this
// one's hub hears of it.
//
// A fill races a change: the page is read from transfers while the change commits. Each fill
// takes a ticket from a counter before its call, and the page is kept only if no change to the
// sender was recorded after the ticket, so an answer older than a change is never stored.
package historycache

import (
	"sync"
	"time"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
)

// DefaultMaxPages are kept at most: a page is a few kilobytes, so the cache stays within a few
// megabytes of the BFF's 64 MiB. (The TTL is the BFF's configuration, BFF_HISTORY_CACHE_TTL.)
const DefaultMaxPages = 1000

// Key is the page asked for: the request's fields.
type Key struct {
	Query    string
	Status   bffv1.TransferStatus
	Page     int32
	PageSize int32
}

// Cache is the pages of the senders this process served recently. The zero value is not
// usable; a nil *Cache is a cache that keeps nothing.
type Cache struct {
	ttl      time.Duration
	maxPages int
	now      func() time.Time

	mu    sync.Mutex
	seq   uint64
	pages int
	users map[string]*sender
	// swept is when expired pages were last dropped.
	swept time.Time
}

// sender is one sender's pages and what guards them.
type sender struct {
	// changed is the ticket of the last change recorded for the sender: a fill whose ticket is
	// older is not kept.
	changed uint64
	// filling counts the fills in flight; a sender is forgotten only when it has no pages and
	// none, so that no fill outlives the record of a change it raced.
	filling int
	pages   map[Key]page
}

type page struct {
	res     *bffv1.ListTransfersResponse
	expires time.Time
}

// New returns a cache of at most maxPages pages, each kept ttl at most; ttl ≤ 0 returns nil,
// a cache that keeps nothing.
func New(ttl time.Duration, maxPages int) *Cache {
	if ttl <= 0 || maxPages <= 0 {
		return nil
	}
	return &Cache{ttl: ttl, maxPages: maxPages, now: time.Now, users: map[string]*sender{}}
}

// Get returns the page key of userID when it is kept and fresh. The answer is shared: read it,
// never change it.
func (c *Cache) Get(userID string, key Key) (*bffv1.ListTransfersResponse, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.users[userID]
	if s == nil {
		return nil, false
	}
	p, ok := s.pages[key]
	if !ok || !c.now().Before(p.expires) {
		return nil, false
	}
	return p.res, true
}

// Fill is a read of a page from transfers, begun with Begin and ended with Keep or Drop.
type Fill struct {
	c      *Cache
	userID string
	ticket uint64
}

// Begin starts a fill of one of userID's pages; call it before asking transfers, and end it
// with Keep or Drop.
func (c *Cache) Begin(userID string) Fill {
	if c == nil {
		return Fill{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweepLocked()
	s := c.users[userID]
	if s == nil {
		s = &sender{}
		c.users[userID] = s
	}
	s.filling++
	c.seq++
	return Fill{c: c, userID: userID, ticket: c.seq}
}

// Keep stores res as the page key unless it is nil, a change to the sender was recorded since
// Begin, or the cache is full; either way the fill ends.
func (f Fill) Keep(key Key, res *bffv1.ListTransfersResponse) {
	c := f.c
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.users[f.userID]
	s.filling--
	_, replacing := s.pages[key]
	if res != nil && s.changed < f.ticket && (replacing || c.pages < c.maxPages) {
		if !replacing {
			c.pages++
		}
		if s.pages == nil {
			s.pages = map[Key]page{}
		}
		s.pages[key] = page{res: res, expires: c.now().Add(c.ttl)}
	}
	c.forgetIfIdleLocked(f.userID, s)
}

// Drop ends a fill that has nothing to keep (the call failed).
func (f Fill) Drop() { f.Keep(Key{}, nil) }

// Changed records that userID's transfers changed: their pages go, and fills begun before now
// keep nothing.
func (c *Cache) Changed(userID string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.users[userID]
	if s == nil {
		return // nothing kept and no fill in flight: nothing to guard
	}
	c.seq++
	s.changed = c.seq
	c.pages -= len(s.pages)
	s.pages = nil
	c.forgetIfIdleLocked(userID, s)
}

// Pages is how many pages are kept.
func (c *Cache) Pages() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pages
}

// forgetIfIdleLocked drops s when it keeps no page and has no fill in flight.
func (c *Cache) forgetIfIdleLocked(userID string, s *sender) {
	if len(s.pages) == 0 && s.filling == 0 {
		delete(c.users, userID)
	}
}

// sweepLocked drops the expired pages, at most once a TTL, so that the cache holds only what
// is fresh (and nothing soon after the traffic stops, beyond the next fill).
func (c *Cache) sweepLocked() {
	now := c.now()
	if now.Sub(c.swept) < c.ttl {
		return
	}
	c.swept = now
	for userID, s := range c.users {
		for k, p := range s.pages {
			if !now.Before(p.expires) {
				delete(s.pages, k)
				c.pages--
			}
		}
		c.forgetIfIdleLocked(userID, s)
	}
}
