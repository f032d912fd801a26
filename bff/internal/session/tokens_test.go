package session

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type countingRefresher struct {
	calls atomic.Int32
	ttl   time.Duration
	now   func() time.Time
}

func (r *countingRefresher) Refresh(_ context.Context, token string) (Grant, error) {
	r.calls.Add(1)
	if token == "revoked" {
		return Grant{}, ErrNoSession
	}
	return Grant{UserID: "u-" + token, AccessToken: "at", ExpiresAt: r.now().Add(r.ttl)}, nil
}

func TestTokensCachesUntilShortlyBeforeExpiry(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	r := &countingRefresher{ttl: 10 * time.Minute, now: clock}
	tokens := NewTokens(r)
	tokens.now = clock

	for range 5 {
		if _, err := tokens.Grant(context.Background(), "s1"); err != nil {
			t.Fatal(err)
		}
	}
	if got := r.calls.Load(); got != 1 {
		t.Fatalf("refresh calls = %d, want 1", got)
	}
	now = now.Add(9*time.Minute + 30*time.Second) // inside the safety margin
	if _, err := tokens.Grant(context.Background(), "s1"); err != nil {
		t.Fatal(err)
	}
	if got := r.calls.Load(); got != 2 {
		t.Fatalf("refresh calls = %d, want 2 after the margin", got)
	}
}

func TestTokensForgetSendsTheNextRequestBackToIdentity(t *testing.T) {
	t.Parallel()
	r := &countingRefresher{ttl: 10 * time.Minute, now: time.Now}
	tokens := NewTokens(r)
	ctx := context.Background()
	if _, err := tokens.Grant(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	tokens.Forget("s1")
	if _, err := tokens.Grant(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if got := r.calls.Load(); got != 2 {
		t.Fatalf("refresh calls = %d, want 2", got)
	}
}

func TestTokensNoSession(t *testing.T) {
	t.Parallel()
	r := &countingRefresher{ttl: time.Minute, now: time.Now}
	tokens := NewTokens(r)
	for _, tok := range []string{"", "revoked"} {
		if _, err := tokens.Grant(context.Background(), tok); err != ErrNoSession {
			t.Errorf("Grant(%q) err = %v, want ErrNoSession", tok, err)
		}
	}
}

func TestTokensConcurrentCallsShareOneExchange(t *testing.T) {
	t.Parallel()
	r := &countingRefresher{ttl: 10 * time.Minute, now: time.Now}
	tokens := NewTokens(r)
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() { _, _ = tokens.Grant(context.Background(), "burst") })
	}
	wg.Wait()
	if got := r.calls.Load(); got > 2 {
		t.Fatalf("refresh calls = %d for one burst", got)
	}
}
