package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/natstest"
)

func TestRingKeepsTheNewestAndKnowsWhatItCovers(t *testing.T) {
	t.Parallel()
	r := newRing(3, 10)
	now := time.Now()
	for seq := uint64(11); seq <= 15; seq++ {
		user := "u1"
		if seq%2 == 0 {
			user = "u2"
		}
		raw := Raw{Seq: seq, Domain: "transfers", UserID: user, Event: "status", Data: []byte(fmt.Sprint(seq))}
		r.push(hold(raw, "thumela.transfers."+user+".status", nil, now, now.Add(time.Duration(seq)*time.Second)))
	}
	// 13, 14, 15 held; 11 and 12 let go.
	if r.covers(11) || !r.covers(12) || !r.covers(15) {
		t.Fatalf("floor %d: covers(11)=%v covers(12)=%v", r.floor, r.covers(11), r.covers(12))
	}
	if got := seqs(r.after(12, "u1")); !slices.Equal(got, []uint64{13, 15}) {
		t.Fatalf("after(12, u1) = %v", got)
	}
	if got := seqs(r.after(13, "u2")); !slices.Equal(got, []uint64{14}) {
		t.Fatalf("after(13, u2) = %v", got)
	}
	// Received before 15 s: 13 and 14 go by age.
	r.expire(now.Add(15 * time.Second))
	if r.covers(13) || !r.covers(14) || len(r.after(0, "u1")) != 1 {
		t.Fatalf("after expiry: floor %d, u1 %v", r.floor, seqs(r.after(0, "u1")))
	}
}

func seqs(ms []held) []uint64 {
	var out []uint64
	for _, m := range ms {
		out = append(out, m.seq)
	}
	return out
}

// A held message gives back what it was routed with: its subject's parts, its payload and its
// publisher's trace, from the one allocation it keeps.
func TestHeldMessageUnpacksAsRouted(t *testing.T) {
	// The process's propagator, as telemetry sets it (not parallel: it is global).
	prev := otel.GetTextMapPropagator()
	otel.SetTextMapPropagator(propagation.TraceContext{})
	t.Cleanup(func() { otel.SetTextMapPropagator(prev) })
	const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	hdr := nats.Header{}
	hdr.Set(headerTraceparent, parent)
	hdr.Set(headerTracestate, "vendor=1")
	raw := Raw{Seq: 42, Domain: "deliveries", UserID: "u-7", Event: "changed", Data: []byte("payload")}
	published := time.Now().Add(-time.Second)
	h := hold(raw, "thumela.deliveries.u-7.changed", hdr, published, time.Now())
	got, ok := h.raw()
	if !ok || got.Seq != 42 || got.Domain != "deliveries" || got.UserID != "u-7" || got.Event != "changed" || string(got.Data) != "payload" {
		t.Fatalf("raw() = %+v, %v", got, ok)
	}
	if !h.of("u-7") || h.of("u-70") || h.of("u-") {
		t.Fatal("of() does not match the user id exactly")
	}
	sc := trace.SpanContextFromContext(h.trace())
	if sc.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || !sc.IsRemote() {
		t.Fatalf("trace: %v", sc)
	}
	if sc := trace.SpanContextFromContext(hold(raw, "thumela.deliveries.u-7.changed", nil, published, time.Now()).trace()); sc.IsValid() {
		t.Fatalf("a message without trace headers has a trace: %v", sc)
	}
}

// startHub runs a hub of strings (the message data) on an embedded NATS.
func startHub(t *testing.T, limits Limits) (*Hub[string], jetstream.JetStream) {
	t.Helper()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := natstest.Start(t)
	nc, js, err := bus.Connect(context.Background(), srv.URL(), "live-test", logger, bus.WithCredentials(srv.Credentials(bus.IdentityAdmin)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if err := bus.EnsureStreams(context.Background(), js); err != nil {
		t.Fatal(err)
	}
	h := New(js, Config[string]{
		Stream:  bus.StreamEvents,
		Domains: []string{bus.DomainTransfers},
		Decode:  func(r Raw) (string, bool) { return string(r.Data), true },
		Logger:  logger,
		Limits:  limits,
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = h.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-h.Running():
	case <-time.After(20 * time.Second):
		t.Fatal("hub did not start")
	}
	return h, js
}

func pub(t *testing.T, js jetstream.JetStream, user, data string) uint64 {
	t.Helper()
	ack, err := js.Publish(context.Background(), "thumela.transfers."+user+".status", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return ack.Sequence
}

// take waits for the subscription's next message.
func take(t *testing.T, s *Subscription[string]) *Message[string] {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		m, ok, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			return m
		}
		select {
		case <-s.Ready():
		case <-deadline:
			t.Fatal("no message")
		}
	}
}

func TestAQuietTabsCursorKeepsUpWithTheHub(t *testing.T) {
	t.Parallel()
	h, js := startHub(t, Limits{})
	quiet, err := h.Subscribe("u1", Now())
	if err != nil {
		t.Fatal(err)
	}
	defer quiet.Close()
	busy, err := h.Subscribe("u2", Now())
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, s := range []*Subscription[string]{quiet, busy} {
		if err := s.CatchUp(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	pub(t, js, "u2", "a")
	last := pub(t, js, "u2", "b")
	take(t, busy)
	if m := take(t, busy); m.Seq != last {
		t.Fatalf("busy tab's second message is %d, want %d", m.Seq, last)
	}
	// The other user's messages are no gap for the quiet tab: its heartbeat cursor moves on.
	if got := quiet.Cursor(); got != last {
		t.Fatalf("quiet tab's cursor = %d, want the hub's position %d", got, last)
	}
	// With a message of its own waiting, its cursor stays until it has the message.
	own := pub(t, js, "u1", "c")
	for {
		quiet.mu.Lock()
		n := len(quiet.queue)
		quiet.mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := quiet.Cursor(); got != last {
		t.Fatalf("cursor with a message waiting = %d, want %d", got, last)
	}
	if m := take(t, quiet); m.Seq != own || m.Event != "c" {
		t.Fatalf("quiet tab got %d %q", m.Seq, m.Event)
	}
	if got := quiet.Cursor(); got != own {
		t.Fatalf("cursor = %d, want %d", got, own)
	}
}

func TestACursorOlderThanTheRingsAgeIsCaughtUpFromTheStream(t *testing.T) {
	t.Parallel()
	h, js := startHub(t, Limits{RingAge: time.Millisecond})
	watcher, err := h.Subscribe("u1", Now())
	if err != nil {
		t.Fatal(err)
	}
	defer watcher.Close()
	before := pub(t, js, "u1", "a") - 1
	pub(t, js, "u2", "not yours")
	pub(t, js, "u1", "b")
	take(t, watcher)
	take(t, watcher) // the hub has routed both; the ring lets them go a millisecond later
	time.Sleep(5 * time.Millisecond)

	s, err := h.Subscribe("u1", After(before))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.catchUpTo == 0 {
		t.Fatal("resume served from the ring; want a catch-up from the stream")
	}
	var got []string
	if err := s.CatchUp(context.Background(), func(m *Message[string]) error {
		got = append(got, m.Event)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("caught up %q, want a, b", got)
	}
	// Live delivery follows, without the caught-up ones again.
	pub(t, js, "u1", "c")
	if m := take(t, s); m.Event != "c" {
		t.Fatalf("after the catch-up: %q", m.Event)
	}
}

func TestSubscribeBeforeTheHubRunsIsRefused(t *testing.T) {
	t.Parallel()
	h := New[string](nil, Config[string]{Stream: "S", Domains: []string{"d"}, Decode: func(Raw) (string, bool) { return "", false }})
	if _, err := h.Subscribe("u1", Now()); err != ErrNotReady {
		t.Fatalf("err = %v, want ErrNotReady", err)
	}
}

// TestDrainEndsEveryTabAndRefusesNewOnes: the HTTP server's graceful stop drains the hub so
// that open streams return (and their tabs reconnect elsewhere) instead of holding Shutdown.
func TestDrainEndsEveryTabAndRefusesNewOnes(t *testing.T) {
	t.Parallel()
	h, _ := startHub(t, Limits{})
	tabs := make([]*Subscription[string], 3)
	for i := range tabs {
		s, err := h.Subscribe(fmt.Sprintf("u%d", i%2), Now())
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		tabs[i] = s
	}
	h.Drain()
	for i, s := range tabs {
		select {
		case <-s.Ready():
		case <-time.After(5 * time.Second):
			t.Fatalf("tab %d was not woken by Drain", i)
		}
		if _, _, err := s.Next(); !errors.Is(err, ErrClosed) {
			t.Fatalf("tab %d after Drain: %v, want ErrClosed", i, err)
		}
	}
	if n := h.Subscribers(); n != 0 {
		t.Fatalf("%d subscribers after Drain", n)
	}
	if _, err := h.Subscribe("u0", Now()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Subscribe after Drain: %v, want ErrClosed", err)
	}
}

// TestAUserCannotOpenMoreThanPerUserStreams: one signed-in account must not be able to hold
// the process's memory with streams; the bound is per user, so others are not refused, and a
// closed tab makes room again.
func TestAUserCannotOpenMoreThanPerUserStreams(t *testing.T) {
	t.Parallel()
	h, _ := startHub(t, Limits{PerUser: 3})
	var tabs []*Subscription[string]
	for i := range 3 {
		s, err := h.Subscribe("u1", Now())
		if err != nil {
			t.Fatalf("tab %d: %v", i+1, err)
		}
		defer s.Close()
		tabs = append(tabs, s)
	}
	if _, err := h.Subscribe("u1", Now()); !errors.Is(err, ErrTooManyStreams) {
		t.Fatalf("fourth tab: %v, want ErrTooManyStreams", err)
	}
	other, err := h.Subscribe("u2", Now())
	if err != nil {
		t.Fatalf("another user's tab: %v", err)
	}
	defer other.Close()
	tabs[0].Close()
	again, err := h.Subscribe("u1", After(0))
	if err != nil {
		t.Fatalf("a tab after one closed: %v", err)
	}
	defer again.Close()
	if n := h.Subscribers(); n != 4 {
		t.Fatalf("%d subscribers, want 4", n)
	}
}
