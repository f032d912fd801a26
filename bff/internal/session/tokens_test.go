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

// sessionRefresher answers grants naming a session per token, and can hold an exchange until
// released (an exchange on its way while a revocation arrives).
type sessionRefresher struct {
	calls   atomic.Int32
	hold    chan struct{}
	started chan struct{}
}

func (r *sessionRefresher) Refresh(_ context.Context, token string) (Grant, error) {
	r.calls.Add(1)
	if r.hold != nil {
		r.started <- struct{}{}
		<-r.hold
	}
	return Grant{SessionID: "sid-" + token, UserID: "u1", AccessToken: "at-" + token, ExpiresAt: time.Now().Add(10 * time.Minute)}, nil
}

func TestForgetSessionsDropsTheGrantAndEndsStreams(t *testing.T) {
	t.Parallel()
	r := &sessionRefresher{}
	tokens := NewTokens(r)
	ctx := context.Background()
	for _, tok := range []string{"a", "b"} {
		if _, err := tokens.Grant(ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	wa, stopA := tokens.Watch("sid-a")
	defer stopA()
	wb, stopB := tokens.Watch("sid-b")
	defer stopB()

	tokens.ForgetSessions("sid-a")
	select {
	case <-wa.Done():
	default:
		t.Fatal("the revoked session's stream was not ended")
	}
	select {
	case <-wb.Done():
		t.Fatal("another session's stream was ended")
	default:
	}
	// The revoked session's next call goes back to identity; and even if identity's answer
	// was on its way before the revocation, it is refused and not cached.
	if _, err := tokens.Grant(ctx, "a"); err != ErrNoSession {
		t.Fatalf("Grant(revoked) err = %v, want ErrNoSession", err)
	}
	if got := r.calls.Load(); got != 3 {
		t.Fatalf("refresh calls = %d, want 3 (the revoked one asked again)", got)
	}
	if _, err := tokens.Grant(ctx, "b"); err != nil || r.calls.Load() != 3 {
		t.Fatalf("the other session's grant: %v, %d calls", err, r.calls.Load())
	}
	if !tokens.Revoked("sid-a") || tokens.Revoked("sid-b") {
		t.Fatal("Revoked answers wrong")
	}
	w, stop := tokens.Watch("sid-a")
	defer stop()
	select {
	case <-w.Done():
	default:
		t.Fatal("a stream opened for a revoked session is not ended at once")
	}
}

func TestForgetAllDuringAnExchangeIsNotUndone(t *testing.T) {
	t.Parallel()
	r := &sessionRefresher{hold: make(chan struct{}), started: make(chan struct{})}
	tokens := NewTokens(r)
	done := make(chan error)
	go func() {
		_, err := tokens.Grant(context.Background(), "a")
		done <- err
	}()
	<-r.started
	tokens.ForgetAll() // the revocations were not heard for a while
	close(r.hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	r.hold = nil
	if _, err := tokens.Grant(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	if got := r.calls.Load(); got != 2 {
		t.Fatalf("refresh calls = %d, want 2: an exchange begun before ForgetAll must not be cached", got)
	}
}

func TestNoCachingWhileRevocationsCannotBeHeard(t *testing.T) {
	t.Parallel()
	r := &sessionRefresher{}
	tokens := NewTokens(r)
	ctx := context.Background()
	if _, err := tokens.Grant(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	tokens.SetCaching(false)
	for range 3 {
		if _, err := tokens.Grant(ctx, "a"); err != nil {
			t.Fatal(err)
		}
	}
	if got := r.calls.Load(); got != 4 {
		t.Fatalf("refresh calls = %d, want 4: every call asks identity while uncached", got)
	}
	tokens.SetCaching(true)
	for range 3 {
		if _, err := tokens.Grant(ctx, "a"); err != nil {
			t.Fatal(err)
		}
	}
	if got := r.calls.Load(); got != 5 {
		t.Fatalf("refresh calls = %d, want 5 once caching is back", got)
	}
}
