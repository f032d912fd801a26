package revocation_test

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"google.golang.org/protobuf/proto"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/natstest"

	"github.com/thumela/thumela/bff/internal/revocation"
	"github.com/thumela/thumela/bff/internal/session"
)

// refresher answers a grant naming the session "sid-<token>" of the user "user-<token's first
// letter>" and counts the exchanges.
type refresher struct{ calls atomic.Int32 }

func (r *refresher) Refresh(_ context.Context, token string) (session.Grant, error) {
	r.calls.Add(1)
	return session.Grant{SessionID: "sid-" + token, UserID: "user-" + token[:1], AccessToken: "at", ExpiresAt: time.Now().Add(10 * time.Minute)}, nil
}

// counting wraps the real Tokens and counts the cache switches.
type counting struct {
	*session.Tokens
	mu       sync.Mutex
	switches []bool
}

func (c *counting) SetCaching(on bool) {
	c.mu.Lock()
	c.switches = append(c.switches, on)
	c.mu.Unlock()
	c.Tokens.SetCaching(on)
}

func (c *counting) offs() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, on := range c.switches {
		if !on {
			n++
		}
	}
	return n
}

type fixture struct {
	t       *testing.T
	srv     *natstest.Server
	tokens  *counting
	refresh *refresher
	ln      *revocation.Listener
	nc      *nats.Conn
}

func start(t *testing.T) *fixture {
	t.Helper()
	srv := natstest.Start(t)
	_, admin := srv.Connect(t, bus.IdentityAdmin)
	if err := bus.EnsureStreams(t.Context(), admin); err != nil {
		t.Fatal(err)
	}
	nc, js := srv.Connect(t, "bff")
	r := &refresher{}
	tokens := &counting{Tokens: session.NewTokens(r)}
	ln := revocation.New(js, tokens, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = ln.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-ln.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("the listener did not start")
	}
	return &fixture{t: t, srv: srv, tokens: tokens, refresh: r, ln: ln, nc: nc}
}

// publish sends a revocation as identity does (identity's own credentials).
func (f *fixture) publish(userID string, ids ...string) {
	f.t.Helper()
	_, js := f.srv.Connect(f.t, "identity")
	data, err := proto.Marshal(&identityv1.SessionsRevoked{UserId: userID, SessionIds: ids, Reason: "revoked"})
	if err != nil {
		f.t.Fatal(err)
	}
	subject, _ := bus.Subject(bus.DomainIdentity, userID, "sessions_revoked")
	if _, err := js.Publish(f.t.Context(), subject, data); err != nil {
		f.t.Fatal(err)
	}
}

// publishRenamed sends a rename as identity does.
func (f *fixture) publishRenamed(userID string) {
	f.t.Helper()
	_, js := f.srv.Connect(f.t, "identity")
	data, err := proto.Marshal(&identityv1.UserRenamed{UserId: userID})
	if err != nil {
		f.t.Fatal(err)
	}
	subject, _ := bus.Subject(bus.DomainIdentity, userID, "renamed")
	if _, err := js.Publish(f.t.Context(), subject, data); err != nil {
		f.t.Fatal(err)
	}
}

func ended(w *session.Watch, within time.Duration) bool {
	select {
	case <-w.Done():
		return true
	case <-time.After(within):
		return false
	}
}

const userID = "0193a6f0-0000-7000-8000-000000000001"

func TestRevocationEndsStreamsAndGrantsWithinASecond(t *testing.T) {
	t.Parallel()
	f := start(t)
	ctx := t.Context()
	for _, tok := range []string{"a", "b"} {
		if _, err := f.tokens.Grant(ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	wa, stopA := f.tokens.Watch("sid-a")
	defer stopA()
	wb, stopB := f.tokens.Watch("sid-b")
	defer stopB()

	f.publish(userID, "sid-a")
	if !ended(wa, time.Second) {
		t.Fatal("the revoked session's stream did not end within a second")
	}
	if ended(wb, 100*time.Millisecond) {
		t.Fatal("another session's stream ended")
	}
	before := f.refresh.calls.Load()
	if _, err := f.tokens.Grant(ctx, "a"); err != session.ErrNoSession {
		t.Fatalf("the revoked session's grant: %v", err)
	}
	if _, err := f.tokens.Grant(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if got := f.refresh.calls.Load() - before; got != 1 {
		t.Fatalf("%d exchanges; want 1 (the revoked session asks identity, the other is cached)", got)
	}
	// Quiet for a while: the consumer is not made again for nothing (each time would cost
	// every session an exchange).
	time.Sleep(6 * time.Second)
	if n := f.tokens.offs(); n != 1 {
		t.Fatalf("the cache went off %d times while nothing happened, want once (before the start)", n)
	}
}

func TestAnOutageTurnsTheCacheOffAndForgetsEverything(t *testing.T) {
	t.Parallel()
	f := start(t)
	ctx := t.Context()
	if _, err := f.tokens.Grant(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	f.srv.Shutdown()
	// While revocations cannot be heard, every call asks identity.
	deadline := time.Now().Add(10 * time.Second)
	for f.tokens.offs() < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the cache stayed on with NATS down (%v, %s)", f.tokens.switches, f.nc.Status())
		}
		time.Sleep(20 * time.Millisecond)
	}
	before := f.refresh.calls.Load()
	for range 3 {
		if _, err := f.tokens.Grant(ctx, "a"); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.refresh.calls.Load() - before; got != 3 {
		t.Fatalf("%d exchanges for 3 calls with NATS down, want 3", got)
	}

	// Back: what was cached before is dropped, and revocations are heard again.
	f.srv.Restart()
	w, stop := f.tokens.Watch("sid-a")
	defer stop()
	deadline = time.Now().Add(20 * time.Second)
	for {
		f.publish(userID, "sid-a")
		if ended(w, 500*time.Millisecond) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("revocations were not heard again after NATS came back")
		}
	}
}

// TestRenameDropsTheUsersGrantsOnly: after identity's UserRenamed the user's sessions go back to
// identity for a token with the new names, and stay live with their streams open; other users'
// grants stay cached.
func TestRenameDropsTheUsersGrantsOnly(t *testing.T) {
	t.Parallel()
	f := start(t)
	ctx := t.Context()
	for _, tok := range []string{"a1", "a2", "b1"} {
		if _, err := f.tokens.Grant(ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	w, stop := f.tokens.Watch("sid-a1")
	defer stop()

	f.publishRenamed("user-a")
	deadline := time.Now().Add(5 * time.Second)
	for {
		before := f.refresh.calls.Load()
		if _, err := f.tokens.Grant(ctx, "a1"); err != nil {
			t.Fatalf("the renamed user's session: %v", err)
		}
		if f.refresh.calls.Load() > before {
			break // asked identity again: the grant was dropped
		}
		if time.Now().After(deadline) {
			t.Fatal("the renamed user's grant was still cached 5 s after UserRenamed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	before := f.refresh.calls.Load()
	for _, tok := range []string{"a2", "b1"} {
		if _, err := f.tokens.Grant(ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.refresh.calls.Load() - before; got != 1 {
		t.Fatalf("%d exchanges for the user's other session and another user's, want 1 (the renamed user's)", got)
	}
	if ended(w, 100*time.Millisecond) {
		t.Fatal("a rename ended the user's live stream")
	}
}
