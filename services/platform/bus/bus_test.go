package bus_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestEnsureStreamsIsIdempotent(t *testing.T) {
	t.Parallel()
	_, js := natstest.Start(t).Connect(t, bus.IdentityAdmin)

	for range 2 {
		if err := bus.EnsureStreams(t.Context(), js); err != nil {
			t.Fatalf("EnsureStreams: %v", err)
		}
	}
	want := map[string]struct {
		maxAge   time.Duration
		maxBytes int64
		subjects []string
	}{
		bus.StreamEvents:            {7 * 24 * time.Hour, -1, []string{"thumela.identity.>", "thumela.profiles.>", "thumela.paymentmethods.>", "thumela.transfers.>", "thumela.deliveries.>"}},
		bus.StreamNotifications:     {bus.NotificationRetention, -1, []string{"thumela.notifications.>"}},
		bus.StreamNotificationsDead: {30 * 24 * time.Hour, -1, []string{"thumela.notificationsdead.>"}},
		bus.StreamAnalytics:         {30 * 24 * time.Hour, 1 << 30, []string{"thumela.analytics.>"}},
	}
	for name, w := range want {
		s, err := js.Stream(t.Context(), name)
		if err != nil {
			t.Fatalf("stream %s: %v", name, err)
		}
		cfg := s.CachedInfo().Config
		if cfg.MaxAge != w.maxAge || cfg.MaxBytes != w.maxBytes || !slices.Equal(cfg.Subjects, w.subjects) ||
			cfg.Storage != jetstream.FileStorage || cfg.Duplicates != bus.DuplicateWindow || cfg.Replicas != 1 {
			t.Errorf("stream %s config = %+v", name, cfg)
		}
	}
	// Every subject built by Subject for a publishing domain is captured by exactly one stream.
	for _, domain := range []string{bus.DomainIdentity, bus.DomainProfiles, bus.DomainPaymentMethods, bus.DomainTransfers, bus.DomainDeliveries, bus.DomainNotifications, bus.DomainNotificationsDead, bus.DomainAnalytics} {
		subject, err := bus.Subject(domain, "u1", "e")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := js.StreamNameBySubject(t.Context(), subject); err != nil {
			t.Errorf("no stream for %s: %v", subject, err)
		}
	}
}

func TestStreamConfigsReplicas(t *testing.T) {
	t.Parallel()
	for _, cfg := range bus.StreamConfigs(bus.WithReplicas(3)) {
		if cfg.Replicas != 3 {
			t.Errorf("%s: replicas = %d, want 3", cfg.Name, cfg.Replicas)
		}
	}
}

func TestConnectSurvivesNATSDown(t *testing.T) {
	t.Parallel()
	// A port nobody listens on: the server "is down".
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()

	nc, _, err := bus.Connect(t.Context(), "nats://"+addr, "bus-test", discard)
	if err != nil {
		t.Fatalf("Connect with NATS down = %v, want a reconnecting connection", err)
	}
	defer nc.Close()
	if nc.IsConnected() {
		t.Fatal("connected to a port nobody listens on")
	}

	if _, _, err := bus.Connect(t.Context(), "nats://[::1", "bus-test", discard); err == nil {
		t.Fatal("Connect accepted a malformed URL")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := bus.Connect(ctx, "nats://"+addr, "bus-test", discard); err == nil {
		t.Fatal("Connect ignored a cancelled context")
	}
}

func TestConnectReconnectsAfterRestart(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	nc, _, err := bus.Connect(t.Context(), srv.URL(), "bus-test", discard, bus.WithCredentials(srv.Credentials("profiles")))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	srv.Restart()
	deadline := time.Now().Add(10 * time.Second)
	for !nc.IsConnected() || nc.Stats().Reconnects == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("not reconnected: status %v", nc.Status())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestTraceRoundTrip(t *testing.T) {
	// Not parallel: it sets the global propagator (to the value every service uses).
	prev := otel.GetTextMapPropagator()
	otel.SetTextMapPropagator(propagation.TraceContext{})
	t.Cleanup(func() { otel.SetTextMapPropagator(prev) })

	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
		SpanID:     trace.SpanID{1, 2, 3, 4, 5, 6, 7, 8},
		TraceFlags: trace.FlagsSampled,
	})
	h := nats.Header{}
	bus.InjectTrace(trace.ContextWithSpanContext(context.Background(), sc), h)
	if got := h.Get("traceparent"); got != "00-0102030405060708090a0b0c0d0e0f10-0102030405060708-01" {
		t.Fatalf("traceparent = %q", got)
	}
	got := trace.SpanContextFromContext(bus.ExtractTrace(context.Background(), h))
	if got.TraceID() != sc.TraceID() || got.SpanID() != sc.SpanID() || !got.IsRemote() {
		t.Fatalf("extracted %v, want %v (remote)", got, sc)
	}
	if !slices.Contains(bus.HeaderCarrier(h).Keys(), "traceparent") {
		t.Fatal("Keys misses traceparent")
	}
	empty := trace.SpanContextFromContext(bus.ExtractTrace(context.Background(), nats.Header{}))
	if empty.IsValid() {
		t.Fatal("extracted a span context from empty headers")
	}
}

// The notifications stream of the first design (limits retention) cannot become a work queue in
// place; EnsureStreams replaces it, and leaves the work queue alone afterwards.
func TestEnsureStreamsReplacesTheLegacyNotificationsStream(t *testing.T) {
	t.Parallel()
	// Deleting a stream is no service's right: an operator (here the admin) replaces it.
	_, js := natstest.Start(t).Connect(t, bus.IdentityAdmin)
	if _, err := js.CreateStream(t.Context(), jetstream.StreamConfig{
		Name: bus.StreamNotifications, Subjects: []string{"thumela.notifications.>"},
		Retention: jetstream.LimitsPolicy, MaxAge: 7 * 24 * time.Hour,
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(t.Context(), "thumela.notifications.u1.sms", []byte("PIN 4821 in clear")); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := bus.EnsureStreams(t.Context(), js); err != nil {
			t.Fatalf("EnsureStreams: %v", err)
		}
	}
	s, err := js.Stream(t.Context(), bus.StreamNotifications)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if info.Config.Retention != jetstream.WorkQueuePolicy || info.State.Msgs != 0 {
		t.Fatalf("retention %v with %d messages; want a new, empty work queue", info.Config.Retention, info.State.Msgs)
	}
}

// A service creates only the streams it publishes to: the table lets it create no other.
func TestEnsureStreamsCreatesTheIdentitysOwnStreams(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	_, profiles := srv.Connect(t, "profiles")
	if err := bus.EnsureStreams(t.Context(), profiles); err != nil {
		t.Fatalf("EnsureStreams as profiles: %v", err)
	}
	_, fees := srv.Connect(t, "fees")
	if err := bus.EnsureStreams(t.Context(), fees); err != nil {
		t.Fatalf("EnsureStreams as fees (owns none): %v", err)
	}
	_, admin := srv.Connect(t, bus.IdentityAdmin)
	var names []string
	for n := range admin.StreamNames(t.Context()).Name() {
		names = append(names, n)
	}
	if !slices.Equal(names, []string{bus.StreamEvents}) {
		t.Errorf("streams = %v, want only %s (what profiles publishes to)", names, bus.StreamEvents)
	}
}

// A permission violation is logged at error level with what was refused.
func TestConnectLogsPermissionViolations(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	var mu sync.Mutex
	var logged strings.Builder
	logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logged.Write(p)
	}), nil))
	nc, _, err := bus.Connect(t.Context(), srv.URL(), "fees", logger, bus.WithCredentials(srv.Credentials("fees")))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if err := nc.Publish("thumela.profiles.u1.updated", []byte("forged")); err != nil {
		t.Fatal(err)
	}
	_ = nc.Flush()
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		out := logged.String()
		mu.Unlock()
		if strings.Contains(out, "level=ERROR") && strings.Contains(out, "NATS REFUSED") && strings.Contains(out, "thumela.profiles.u1.updated") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no error logged for the refused publish; log:\n%s", out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestConnectRefusesUnusableCredentials(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "missing")
	for _, c := range []bus.Credentials{{NKeySeedFile: missing}, {CAFile: missing}} {
		if _, _, err := bus.Connect(t.Context(), "nats://127.0.0.1:4222", "bus-test", discard, bus.WithCredentials(c)); !errors.Is(err, bus.ErrCredentials) {
			t.Errorf("Connect with %+v = %v, want ErrCredentials", c, err)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
