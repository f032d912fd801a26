package historycache

import (
	"testing"
	"time"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
)

// clock is a hand-moved time for the TTL.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newCache(t *testing.T, ttl time.Duration, maxPages int) (*Cache, *clock) {
	t.Helper()
	c := New(ttl, maxPages)
	clk := &clock{t: time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)}
	c.now = clk.now
	return c, clk
}

var firstPage = Key{Page: 1, PageSize: 10}

func answer(total int32) *bffv1.ListTransfersResponse {
	return &bffv1.ListTransfersResponse{TotalCount: total}
}

// fill reads a page as the handler does: Begin, then Keep.
func fill(c *Cache, user string, k Key, res *bffv1.ListTransfersResponse) {
	c.Begin(user).Keep(k, res)
}

func TestAPageIsKeptUntilItsTTL(t *testing.T) {
	c, clk := newCache(t, 5*time.Second, 10)
	if _, ok := c.Get("u1", firstPage); ok {
		t.Fatal("an empty cache answered")
	}
	fill(c, "u1", firstPage, answer(3))
	clk.t = clk.t.Add(4 * time.Second)
	if got, ok := c.Get("u1", firstPage); !ok || got.GetTotalCount() != 3 {
		t.Fatalf("within the TTL: %v, %v", got, ok)
	}
	if _, ok := c.Get("u1", Key{Page: 2, PageSize: 10}); ok {
		t.Fatal("another page of the sender answered")
	}
	if _, ok := c.Get("u2", firstPage); ok {
		t.Fatal("another sender was answered with u1's page")
	}
	clk.t = clk.t.Add(time.Second)
	if _, ok := c.Get("u1", firstPage); ok {
		t.Fatal("answered at its TTL")
	}
	// The next fill sweeps the expired page away.
	c.Begin("u2").Drop()
	if n := c.Pages(); n != 0 {
		t.Fatalf("%d pages kept after the sweep", n)
	}
}

func TestAChangeDropsTheSendersPagesOnly(t *testing.T) {
	c, _ := newCache(t, time.Minute, 10)
	fill(c, "u1", firstPage, answer(1))
	fill(c, "u1", Key{Query: "thandi", Page: 1, PageSize: 10}, answer(1))
	fill(c, "u2", firstPage, answer(7))
	c.Changed("u1")
	if _, ok := c.Get("u1", firstPage); ok {
		t.Fatal("u1's page survived a change")
	}
	if got, ok := c.Get("u2", firstPage); !ok || got.GetTotalCount() != 7 {
		t.Fatalf("u2's page went with u1's change: %v, %v", got, ok)
	}
	if n := c.Pages(); n != 1 {
		t.Fatalf("%d pages kept, want u2's one", n)
	}
	c.Changed("nobody") // a sender with nothing kept
}

// A page read while a change commits may be older than the change: it must not be kept.
func TestAFillRacedByAChangeIsNotKept(t *testing.T) {
	c, _ := newCache(t, time.Minute, 10)
	f := c.Begin("u1")
	c.Changed("u1") // the change's event arrives while transfers answers
	f.Keep(firstPage, answer(1))
	if _, ok := c.Get("u1", firstPage); ok {
		t.Fatal("a page read before a change was kept")
	}
	// A fill begun after the change is kept; so is one of another sender begun before it.
	other := c.Begin("u2")
	fill(c, "u1", firstPage, answer(2))
	c.Changed("u1")
	fill(c, "u1", firstPage, answer(3))
	other.Keep(firstPage, answer(9))
	if got, ok := c.Get("u1", firstPage); !ok || got.GetTotalCount() != 3 {
		t.Fatalf("the fill after the change: %v, %v", got, ok)
	}
	if _, ok := c.Get("u2", firstPage); !ok {
		t.Fatal("u2's fill was refused for u1's change")
	}
}

// A sender is forgotten only once no fill is in flight: the record of a change must outlive
// every fill it raced, even when the sender has no page kept.
func TestAChangeIsRememberedWhileAFillIsInFlight(t *testing.T) {
	c, _ := newCache(t, time.Minute, 10)
	slow := c.Begin("u1")
	fast := c.Begin("u1")
	c.Changed("u1")
	fast.Drop()
	slow.Keep(firstPage, answer(1))
	if _, ok := c.Get("u1", firstPage); ok {
		t.Fatal("the slow fill, older than the change, was kept")
	}
	if len(c.users) != 0 {
		t.Fatalf("%d senders remembered with nothing kept or in flight", len(c.users))
	}
}

func TestTheCacheKeepsAtMostMaxPages(t *testing.T) {
	c, _ := newCache(t, time.Minute, 2)
	fill(c, "u1", firstPage, answer(1))
	fill(c, "u2", firstPage, answer(2))
	fill(c, "u3", firstPage, answer(3))
	if _, ok := c.Get("u3", firstPage); ok {
		t.Fatal("a third page was kept in a cache of two")
	}
	fill(c, "u1", firstPage, answer(4)) // replacing a page needs no room
	if got, _ := c.Get("u1", firstPage); got.GetTotalCount() != 4 {
		t.Fatalf("u1's page was not replaced: %v", got)
	}
	if n, senders := c.Pages(), len(c.users); n != 2 || senders != 2 {
		t.Fatalf("%d pages of %d senders, want 2 of 2", n, senders)
	}
}

func TestANilCacheKeepsNothing(t *testing.T) {
	c := New(0, 10)
	if c != nil {
		t.Fatal("a zero TTL made a cache")
	}
	fill(c, "u1", firstPage, answer(1))
	c.Begin("u1").Drop()
	c.Changed("u1")
	if _, ok := c.Get("u1", firstPage); ok || c.Pages() != 0 {
		t.Fatal("a nil cache answered")
	}
}
