package cardcache_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/thumela/thumela/services/transfers/internal/adapters/cardcache"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

const (
	alice, bob = "0190f6a4-3c2e-7d41-9b7e-2f4f1f6c8a01", "0190f6a4-3c2e-7d41-9b7e-2f4f1f6c8a02"
	aliceCard  = "0190f6a4-3c2e-7d41-9b7e-2f4f1f6c8b01"
	aliceCard2 = "0190f6a4-3c2e-7d41-9b7e-2f4f1f6c8b02"
)

func newCache(t *testing.T, opts ...cardcache.Option) (*cardcache.Cache, *testkit.FakePayments) {
	t.Helper()
	pm := testkit.NewFakePayments()
	pm.AddCard(alice, aliceCard, "Everyday Visa", "4242", testkit.TokenApprove)
	pm.AddCard(alice, aliceCard2, "Other Visa", "1111", testkit.TokenApprove)
	c := cardcache.New(pm, opts...)
	c.SetLive(true)
	return c, pm
}

func get(t *testing.T, c *cardcache.Cache, user, id string) app.PaymentMethod {
	t.Helper()
	got, err := c.GetPaymentMethod(t.Context(), user, id)
	if err != nil {
		t.Fatalf("GetPaymentMethod(%s, %s): %v", user, id, err)
	}
	return got
}

// A card asked for again is answered from the cache: no second call to paymentmethods.
func TestHitMakesNoCall(t *testing.T) {
	t.Parallel()
	c, pm := newCache(t)
	first := get(t, c, alice, aliceCard)
	again := get(t, c, alice, aliceCard)
	if n := pm.GetCalls(); n != 1 {
		t.Fatalf("%d calls for two reads of one card, want 1", n)
	}
	if again != first || !again.Card || again.Token != testkit.TokenApprove || again.LastFour != "4242" || again.Name != "Everyday Visa" {
		t.Fatalf("cached card = %+v, want %+v", again, first)
	}
}

// A change of the card (its event) drops it: the next read asks paymentmethods, and a deleted
// card is then not found.
func TestInvalidateDropsTheCard(t *testing.T) {
	t.Parallel()
	c, pm := newCache(t)
	get(t, c, alice, aliceCard)
	get(t, c, alice, aliceCard2)
	c.Invalidate(alice, aliceCard)
	pm.DeleteMethod(aliceCard)
	if _, err := c.GetPaymentMethod(t.Context(), alice, aliceCard); !errors.Is(err, app.ErrPaymentMethodNotFound) {
		t.Fatalf("deleted card = %v, want ErrPaymentMethodNotFound", err)
	}
	get(t, c, alice, aliceCard2) // another card stays cached
	if n := pm.GetCalls(); n != 3 {
		t.Fatalf("%d calls, want 3 (two fills, one after the change)", n)
	}
}

// Another user's card id answers NotFound every time, and is never held: the fill is the
// caller's own call.
func TestAnotherUsersCardIsNeverCached(t *testing.T) {
	t.Parallel()
	c, pm := newCache(t)
	get(t, c, alice, aliceCard)
	for i := range 3 {
		if _, err := c.GetPaymentMethod(t.Context(), bob, aliceCard); !errors.Is(err, app.ErrPaymentMethodNotFound) {
			t.Fatalf("try %d: Bob reading Alice's card = %v, want ErrPaymentMethodNotFound", i, err)
		}
	}
	if n := pm.GetCalls(); n != 4 {
		t.Fatalf("%d calls, want 4 (Alice's fill, each of Bob's tries)", n)
	}
	if c.Len() != 1 {
		t.Fatalf("%d entries, want Alice's one", c.Len())
	}
}

// Without the feed of changes nothing is cached; turning it off drops what was held.
func TestNotLiveCachesNothing(t *testing.T) {
	t.Parallel()
	c, pm := newCache(t)
	get(t, c, alice, aliceCard)
	c.SetLive(false)
	get(t, c, alice, aliceCard)
	get(t, c, alice, aliceCard)
	if n := pm.GetCalls(); n != 3 || c.Len() != 0 {
		t.Fatalf("%d calls and %d entries while not live, want 3 and 0", n, c.Len())
	}
}

// blocking answers GetPaymentMethod only when released, to change the card meanwhile.
type blocking struct {
	app.PaymentMethods
	entered, release chan struct{}
	once             sync.Once
}

func (b *blocking) GetPaymentMethod(ctx context.Context, userID, id string) (app.PaymentMethod, error) {
	b.once.Do(func() {
		close(b.entered)
		<-b.release
	})
	return b.PaymentMethods.GetPaymentMethod(ctx, userID, id)
}

// A fill whose call was under way when the card changed is not stored: its answer may be
// older than the change.
func TestFillRacingAChangeIsNotStored(t *testing.T) {
	t.Parallel()
	pm := testkit.NewFakePayments()
	pm.AddCard(alice, aliceCard, "Everyday Visa", "4242", testkit.TokenApprove)
	b := &blocking{PaymentMethods: pm, entered: make(chan struct{}), release: make(chan struct{})}
	c := cardcache.New(b)
	c.SetLive(true)
	done := make(chan error, 1)
	go func() {
		_, err := c.GetPaymentMethod(context.Background(), alice, aliceCard)
		done <- err
	}()
	<-b.entered
	c.Invalidate(alice, aliceCard)
	close(b.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if c.Len() != 0 {
		t.Fatal("a fill that raced a change was stored")
	}
}

// The cache holds at most its bound, and an entry at most its TTL.
func TestBounds(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	c, pm := newCache(t, cardcache.WithMaxEntries(1), cardcache.WithTTL(time.Minute), cardcache.WithClock(clock))
	get(t, c, alice, aliceCard)
	get(t, c, alice, aliceCard2)
	if c.Len() != 1 {
		t.Fatalf("%d entries, want at most 1", c.Len())
	}
	get(t, c, alice, aliceCard2) // held
	calls := pm.GetCalls()
	mu.Lock()
	now = now.Add(time.Minute)
	mu.Unlock()
	get(t, c, alice, aliceCard2) // expired: asked again
	if pm.GetCalls() != calls+1 {
		t.Fatalf("an expired entry was used")
	}
}

// HeldPaymentMethod answers from memory only: what a fill stored, for its own user, while the
// feed of changes runs and until the entry expires or its card changes. It never calls.
func TestHeldAnswersOnlyWhatIsHeld(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	c, pm := newCache(t, cardcache.WithTTL(time.Minute), cardcache.WithClock(clock))
	if _, ok := c.HeldPaymentMethod(alice, aliceCard); ok {
		t.Fatal("held before any fill")
	}
	filled := get(t, c, alice, aliceCard)
	if held, ok := c.HeldPaymentMethod(alice, aliceCard); !ok || held != filled {
		t.Fatalf("held = %+v, %v; want %+v", held, ok, filled)
	}
	if _, ok := c.HeldPaymentMethod(bob, aliceCard); ok {
		t.Fatal("Alice's card held for Bob")
	}
	c.SetLive(false)
	if _, ok := c.HeldPaymentMethod(alice, aliceCard); ok {
		t.Fatal("held while the feed of changes is down")
	}
	c.SetLive(true)
	get(t, c, alice, aliceCard)
	c.Invalidate(alice, aliceCard)
	if _, ok := c.HeldPaymentMethod(alice, aliceCard); ok {
		t.Fatal("held after its change")
	}
	get(t, c, alice, aliceCard)
	mu.Lock()
	now = now.Add(time.Minute)
	mu.Unlock()
	if _, ok := c.HeldPaymentMethod(alice, aliceCard); ok {
		t.Fatal("held after it expired")
	}
	if n := pm.GetCalls(); n != 3 {
		t.Fatalf("%d calls, want 3 (the fills only)", n)
	}
}
