package auth_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thumela/thumela/services/platform/auth"
)

// rotatingKeys is a KeySource whose key set the test changes, counting fetches.
type rotatingKeys struct {
	mu    sync.Mutex
	keys  []auth.PublicKey
	err   error
	calls atomic.Int32
	delay time.Duration
}

func (r *rotatingKeys) set(err error, keys ...auth.PublicKey) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys, r.err = keys, err
}

func (r *rotatingKeys) PublicKeys(context.Context) ([]auth.PublicKey, error) {
	r.calls.Add(1)
	time.Sleep(r.delay)
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.keys, r.err
}

// clock is a settable time source.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestUnknownKidTriggersRefresh(t *testing.T) {
	t.Parallel()
	k1, k2, k3 := newSigner(t, "k1"), newSigner(t, "k2"), newSigner(t, "k3")
	src := &rotatingKeys{}
	src.set(nil, k1.PublicKey())
	clk := &clock{now: t0.Add(time.Minute)}
	v := auth.NewVerifier(src, issuer, auth.WithClock(clk.Now), auth.WithRefreshInterval(10*time.Second))
	ctx := context.Background()

	steps := []struct {
		name      string
		before    func()
		signer    auth.Signer
		want      error
		wantCalls int32
	}{
		{name: "first use fetches", signer: k1, wantCalls: 1},
		{name: "known kid uses the cache", signer: k1, wantCalls: 1},
		{
			name:   "rotated key fetched on first sight",
			before: func() { clk.advance(11 * time.Second); src.set(nil, k1.PublicKey(), k2.PublicKey()) },
			signer: k2, wantCalls: 2,
		},
		{name: "unknown kid within the interval does not fetch", signer: k3, want: auth.ErrUnknownKey, wantCalls: 2},
		{
			name:   "after the interval it fetches again",
			before: func() { clk.advance(11 * time.Second); src.set(nil, k3.PublicKey()) },
			signer: k3, wantCalls: 3,
		},
		{name: "withdrawn key no longer verifies", signer: k1, want: auth.ErrUnknownKey, wantCalls: 3},
	}
	for _, st := range steps { // sequential: each step builds on the last
		if st.before != nil {
			st.before()
		}
		_, err := v.Verify(ctx, mustSign(t, st.signer, userClaims()))
		if !errors.Is(err, st.want) || (st.want == nil && err != nil) {
			t.Fatalf("%s: Verify = %v, want %v", st.name, err, st.want)
		}
		if got := src.calls.Load(); got != st.wantCalls {
			t.Fatalf("%s: %d fetches, want %d", st.name, got, st.wantCalls)
		}
	}
}

func TestRefreshIsSingleFlight(t *testing.T) {
	t.Parallel()
	s := newSigner(t, "k1")
	src := &rotatingKeys{delay: 50 * time.Millisecond}
	src.set(nil, s.PublicKey())
	v := auth.NewVerifier(src, issuer, auth.WithClock(func() time.Time { return t0.Add(time.Minute) }))
	tok := mustSign(t, s, userClaims())

	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for range 50 {
		wg.Go(func() {
			_, err := v.Verify(context.Background(), tok)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Verify: %v", err)
		}
	}
	if got := src.calls.Load(); got != 1 {
		t.Fatalf("%d fetches for 50 concurrent verifications, want 1", got)
	}
}

func TestKeysUnavailable(t *testing.T) {
	t.Parallel()
	s := newSigner(t, "k1")
	src := &rotatingKeys{}
	src.set(errors.New("identity: connection refused"))
	clk := &clock{now: t0.Add(time.Minute)}
	v := auth.NewVerifier(src, issuer, auth.WithClock(clk.Now), auth.WithCacheTTL(time.Minute))
	tok := mustSign(t, s, userClaims())

	_, err := v.Verify(context.Background(), tok)
	if !errors.Is(err, auth.ErrKeysUnavailable) || errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("Verify = %v, want ErrKeysUnavailable only", err)
	}
	// Identity recovers; after the failure back-off the keys are fetched.
	src.set(nil, s.PublicKey())
	clk.advance(2 * time.Second)
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("Verify after recovery: %v", err)
	}
	// Identity fails again after the cache has gone stale: the stale keys keep working.
	src.set(errors.New("identity down"))
	clk.advance(2 * time.Minute)
	for range 3 {
		if _, err := v.Verify(context.Background(), tok); err != nil {
			t.Fatalf("Verify with stale keys: %v", err)
		}
	}
}

// TestVerifiedTokensAreStillCheckedOnEveryUse: a token whose signature was checked before is
// remembered, but its expiry is applied on every use, and a token differing in any byte (a
// forged signature over the same claims) is verified afresh and refused.
func TestVerifiedTokensAreStillCheckedOnEveryUse(t *testing.T) {
	t.Parallel()
	k1 := newSigner(t, "k1")
	src := &rotatingKeys{}
	src.set(nil, k1.PublicKey())
	clk := &clock{now: t0.Add(time.Minute)}
	v := auth.NewVerifier(src, issuer, auth.WithClock(clk.Now))
	ctx := context.Background()
	token := mustSign(t, k1, userClaims())
	for i := range 3 {
		c, err := v.Verify(ctx, token)
		if err != nil || c.Subject != userClaims().Subject {
			t.Fatalf("use %d: %+v, %v", i, c, err)
		}
	}
	forged := []byte(token)
	last := len(forged) - 2 // inside the signature, clear of base64url's padding bits
	forged[last] ^= 'A' ^ 'B'
	if forged[last] == token[last] {
		forged[last] = 'C'
	}
	if _, err := v.Verify(ctx, string(forged)); !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("a token with one signature byte changed: %v, want ErrInvalidToken", err)
	}
	clk.advance(5*time.Minute + 31*time.Second) // past expiry and the 30 s leeway
	if _, err := v.Verify(ctx, token); !errors.Is(err, auth.ErrExpired) {
		t.Fatalf("the remembered token after its expiry: %v, want ErrExpired", err)
	}
}
