package outbox_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/natstest"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/pgtest"
	"github.com/thumela/thumela/services/platform/postgres"
)

const schema = "transfers"

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestMain(m *testing.M) {
	// What every service sets up at start: W3C propagation and a sampling tracer provider.
	otel.SetTextMapPropagator(propagation.TraceContext{})
	tp := sdktrace.NewTracerProvider()
	otel.SetTracerProvider(tp)
	code := m.Run()
	_ = tp.Shutdown(context.Background())
	os.Exit(code)
}

// env is one service's view: its database, a NATS server, and helpers to run relays.
type env struct {
	dbURL string
	pool  *pgxpool.Pool
	nats  *natstest.Server
	js    jetstream.JetStream // the test's own connection, for inspecting streams
}

func newEnv(tb testing.TB) *env {
	tb.Helper()
	e := &env{dbURL: pgtest.NewDatabase(tb), nats: natstest.Start(tb)}
	e.pool = e.openPool(tb)
	if err := postgres.Migrate(context.Background(), e.pool, schema, outbox.Migrations); err != nil {
		tb.Fatal(err)
	}
	_, e.js = connect(tb, e.nats)
	if err := bus.EnsureStreams(context.Background(), e.js); err != nil {
		tb.Fatal(err)
	}
	return e
}

// openPool opens another pool on the env's database, as another replica would.
func (e *env) openPool(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	pool, err := postgres.Open(context.Background(), e.dbURL, schema, postgres.WithMaxConns(4))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close)
	return pool
}

// connect connects as the test admin: the relay under test publishes the test's subjects,
// which no service's row of the permission table grants.
func connect(tb testing.TB, srv *natstest.Server) (*nats.Conn, jetstream.JetStream) {
	tb.Helper()
	nc, js, err := bus.Connect(context.Background(), srv.URL(), tb.Name(), discard, bus.WithCredentials(srv.Credentials(bus.IdentityAdmin)))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(nc.Close)
	return nc, js
}

// startRelay runs a relay with its own NATS connection (and pool, if given), like a replica.
func (e *env) startRelay(tb testing.TB, pool *pgxpool.Pool, opts ...outbox.RelayOption) *outbox.Relay {
	tb.Helper()
	if pool == nil {
		pool = e.pool
	}
	_, js := connect(tb, e.nats)
	r, err := outbox.NewRelay(pool, js, schema, discard, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("Run: %v", err)
		}
	})
	// Until Run has registered the relay, Write in this process would fall back to NOTIFY.
	eventually(tb, 5*time.Second, "the relay registered", func() bool { return outbox.RelayRegistered(r) })
	return r
}

func (e *env) write(tb testing.TB, ctx context.Context, msgs ...outbox.Message) {
	tb.Helper()
	if err := postgres.InTx(ctx, e.pool, func(tx pgx.Tx) error { return outbox.Write(ctx, tx, msgs...) }); err != nil {
		tb.Fatalf("write: %v", err)
	}
}

func (e *env) streamMsgs(tb testing.TB) uint64 {
	tb.Helper()
	s, err := e.js.Stream(context.Background(), bus.StreamEvents)
	if err != nil {
		tb.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return info.State.Msgs
}

func (e *env) unpublished(tb testing.TB) int {
	tb.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), "SELECT count(*) FROM outbox WHERE published_at IS NULL").Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}

func eventually(tb testing.TB, timeout time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func message(tb testing.TB, user, text string) outbox.Message {
	tb.Helper()
	subject, err := bus.Subject(bus.DomainTransfers, user, "status")
	if err != nil {
		tb.Fatal(err)
	}
	return outbox.Message{Subject: subject, Payload: wrapperspb.String(text)}
}

func TestMigrationsCreateTableInServiceSchema(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t, schema, outbox.Migrations)
	var indexes []string
	rows, err := pool.Query(t.Context(), "SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'outbox' ORDER BY 1", schema)
	if err != nil {
		t.Fatal(err)
	}
	indexes, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"outbox_id_key", "outbox_pkey", "outbox_unpublished_idx"}
	if len(indexes) != len(want) {
		t.Fatalf("indexes on %s.outbox = %v, want %v", schema, indexes, want)
	}
	for i := range want {
		if indexes[i] != want[i] {
			t.Fatalf("indexes on %s.outbox = %v, want %v", schema, indexes, want)
		}
	}
	if got := outbox.Channel(schema); got != "outbox_transfers" {
		t.Fatalf("Channel = %q", got)
	}
}

func TestWriteValidates(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t, schema, outbox.Migrations)
	tests := []struct {
		name string
		msg  outbox.Message
		want error
	}{
		{"wildcard subject", outbox.Message{Subject: "thumela.transfers.*.status", Payload: wrapperspb.String("x")}, bus.ErrInvalidSubject},
		{"empty subject", outbox.Message{Payload: wrapperspb.String("x")}, bus.ErrInvalidSubject},
		{"no payload", outbox.Message{Subject: "thumela.transfers.u.status"}, outbox.ErrNoPayload},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := postgres.InTx(t.Context(), pool, func(tx pgx.Tx) error { return outbox.Write(t.Context(), tx, tt.msg) })
			if !errors.Is(err, tt.want) {
				t.Fatalf("Write = %v, want %v", err, tt.want)
			}
		})
	}
	// The same id twice is a unique violation the caller can recognise (idempotent retries).
	id := uuid.Must(uuid.NewV7())
	msg := outbox.Message{ID: id, Subject: "thumela.transfers.u.status", Payload: wrapperspb.String("x")}
	write := func() error {
		return postgres.InTx(t.Context(), pool, func(tx pgx.Tx) error { return outbox.Write(t.Context(), tx, msg) })
	}
	if err := write(); err != nil {
		t.Fatal(err)
	}
	if _, dup := postgres.IsUniqueViolation(write()); !dup {
		t.Fatal("writing the same id twice was not a unique violation")
	}
}

func TestCommitIsPublishedWithMsgIDAndTrace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.startRelay(t, nil)

	ctx, span := otel.Tracer("test").Start(t.Context(), "CreateTransfer")
	msg := message(t, "u1", "pending")
	msg.ID = uuid.Must(uuid.NewV7())
	msg.Headers = map[string]string{"Thumela-User": "u1"}
	e.write(t, ctx, msg)
	span.End()

	eventually(t, 10*time.Second, "the message on the stream", func() bool { return e.streamMsgs(t) == 1 })
	s, err := e.js.Stream(t.Context(), bus.StreamEvents)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.GetMsg(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if got.Subject != msg.Subject {
		t.Errorf("subject = %q, want %q", got.Subject, msg.Subject)
	}
	if h := got.Header.Get(jetstream.MsgIDHeader); h != msg.ID.String() {
		t.Errorf("Nats-Msg-Id = %q, want %s", h, msg.ID)
	}
	if h := got.Header.Get(outbox.HeaderEventType); h != "google.protobuf.StringValue" {
		t.Errorf("%s = %q", outbox.HeaderEventType, h)
	}
	if h := got.Header.Get("Thumela-User"); h != "u1" {
		t.Errorf("custom header = %q, want u1", h)
	}
	sc := trace.SpanContextFromContext(bus.ExtractTrace(context.Background(), got.Header))
	if sc.TraceID() != span.SpanContext().TraceID() {
		t.Errorf("trace id = %s, want the writer's %s", sc.TraceID(), span.SpanContext().TraceID())
	}
	if sc.SpanID() == span.SpanContext().SpanID() {
		t.Error("the message carries the writer's span instead of the relay's outbox.publish span")
	}
	var payload wrapperspb.StringValue
	if err := proto.Unmarshal(got.Data, &payload); err != nil || payload.GetValue() != "pending" {
		t.Errorf("payload = %v, %v", payload.GetValue(), err)
	}
	eventually(t, 5*time.Second, "the row marked published", func() bool { return e.unpublished(t) == 0 })
}

func TestRollbackPublishesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.startRelay(t, nil)

	errAbort := errors.New("abort")
	rolledBack := message(t, "u1", "rolled back")
	err := postgres.InTx(t.Context(), e.pool, func(tx pgx.Tx) error {
		if err := outbox.Write(t.Context(), tx, rolledBack); err != nil {
			return err
		}
		return errAbort
	})
	if !errors.Is(err, errAbort) {
		t.Fatal(err)
	}
	// A committed marker after it: once the marker is on the stream, the relay has drained
	// past the point where a leaked row would have been published.
	e.write(t, t.Context(), message(t, "u1", "marker"))
	eventually(t, 10*time.Second, "the marker", func() bool { return e.streamMsgs(t) >= 1 })
	if n := e.streamMsgs(t); n != 1 {
		t.Fatalf("stream holds %d messages, want only the marker", n)
	}
}

func TestNATSDownThenBack(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.startRelay(t, nil, outbox.WithPublishTimeout(time.Second))
	e.write(t, t.Context(), message(t, "u1", "before"))
	eventually(t, 10*time.Second, "the first message", func() bool { return e.streamMsgs(t) == 1 })

	e.nats.Shutdown()
	const n = 20
	for i := range n {
		e.write(t, t.Context(), message(t, "u1", "during outage "+string(rune('a'+i))))
	}
	time.Sleep(300 * time.Millisecond) // let the relay try, and fail, a few times
	if got := e.unpublished(t); got != n {
		t.Fatalf("%d rows unpublished during the outage, want %d", got, n)
	}

	e.nats.Restart()
	eventually(t, 15*time.Second, "the outbox to drain after NATS came back", func() bool { return e.unpublished(t) == 0 })
	eventually(t, 5*time.Second, "every message on the stream", func() bool { return e.streamMsgs(t) == n+1 })
}

func TestTwoRelaysPublishEachMessageOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)

	// Count what reaches NATS at all, duplicates included: JetStream would hide duplicates
	// from the stream's count, a core subscription does not.
	sub, _ := connect(t, e.nats)
	var mu sync.Mutex
	deliveries := map[string]int{}
	var total atomic.Int64
	if _, err := sub.Subscribe("thumela.>", func(m *nats.Msg) {
		mu.Lock()
		deliveries[m.Header.Get(jetstream.MsgIDHeader)]++
		mu.Unlock()
		total.Add(1)
	}); err != nil {
		t.Fatal(err)
	}
	if err := sub.Flush(); err != nil {
		t.Fatal(err)
	}

	// Two replicas: separate pools and NATS connections, small batches to force interleaving.
	// No fallback sweep within the test: every row must be published thanks to a wake-up,
	// while the replicas keep taking turns on the drain lock.
	second := e.openPool(t)
	e.startRelay(t, nil, outbox.WithBatchSize(16), outbox.WithFallbackInterval(time.Hour))
	e.startRelay(t, second, outbox.WithBatchSize(16), outbox.WithFallbackInterval(time.Hour))

	const writers, perWriter = 20, 25
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				msgs := []outbox.Message{message(t, "u"+string(rune('a'+w)), "m"), message(t, "u"+string(rune('a'+w)), "n")}
				e.write(t, t.Context(), msgs[:1+i%2]...)
			}
		})
	}
	wg.Wait()
	var rows int
	if err := e.pool.QueryRow(t.Context(), "SELECT count(*) FROM outbox").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "all rows published", func() bool { return e.unpublished(t) == 0 })
	eventually(t, 5*time.Second, "all deliveries", func() bool { return total.Load() >= int64(rows) })
	if err := sub.Flush(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // a late duplicate would arrive now

	if got := e.streamMsgs(t); got != uint64(rows) {
		t.Errorf("stream holds %d messages, want %d (one per row)", got, rows)
	}
	if got := total.Load(); got != int64(rows) {
		t.Errorf("NATS saw %d publishes for %d rows", got, rows)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(deliveries) != rows {
		t.Errorf("%d distinct ids published, want %d", len(deliveries), rows)
	}
}

func TestPrune(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r, err := outbox.NewRelay(e.pool, e.js, schema, discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"old", "recent", "unpublished"} {
		e.write(t, t.Context(), message(t, "u1", text))
	}
	if _, err := e.pool.Exec(t.Context(), `UPDATE outbox SET published_at = CASE
		WHEN seq = 1 THEN now() - interval '25 hours'
		WHEN seq = 2 THEN now() - interval '1 hour' END
		WHERE seq IN (1, 2)`); err != nil {
		t.Fatal(err)
	}
	n, err := r.Prune(t.Context(), 24*time.Hour)
	if err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want 1 row", n, err)
	}
	var left []int64
	rows, _ := e.pool.Query(t.Context(), "SELECT seq FROM outbox ORDER BY seq")
	if left, err = pgx.CollectRows(rows, pgx.RowTo[int64]); err != nil {
		t.Fatal(err)
	}
	if len(left) != 2 || left[0] != 2 || left[1] != 3 {
		t.Fatalf("rows left = %v, want [2 3]", left)
	}
}

func TestNewRelayValidates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name   string
		schema string
		opts   []outbox.RelayOption
	}{
		{"bad schema", "Bad", nil},
		{"zero batch", schema, []outbox.RelayOption{outbox.WithBatchSize(0)}},
		{"zero fallback", schema, []outbox.RelayOption{outbox.WithFallbackInterval(0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := outbox.NewRelay(e.pool, e.js, tt.schema, discard, tt.opts...); err == nil {
				t.Fatal("NewRelay accepted an invalid configuration")
			}
		})
	}
}

// Ephemeral rows (notification requests) leave the table once JetStream has them; the others
// stay as published, and no row reads as published before it was created (published_at is the
// wall clock at the ack, not the relay transaction's start).
func TestEphemeralRowsAreDeletedAndPublishedAtFollowsCreatedAt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// A replica holding the drain lock makes the relay's transaction start long before its ack:
	// with now() its rows would read as published before later rows were created.
	r := e.startRelay(t, nil)
	ctx := context.Background()
	lock, err := e.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", outbox.RelayLockKey(r)); err != nil {
		t.Fatal(err)
	}
	keep := message(t, "u1", "status")
	gone := message(t, "u1", "sealed request")
	gone.Ephemeral = true
	e.write(t, ctx, keep, gone)
	time.Sleep(200 * time.Millisecond) // the relay is now waiting for the lock
	e.write(t, ctx, message(t, "u1", "later"))
	if err := lock.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "every row published", func() bool { return e.unpublished(t) == 0 && e.streamMsgs(t) == 3 })

	var rows, early int
	if err := e.pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE published_at < created_at) FROM outbox`).Scan(&rows, &early); err != nil {
		t.Fatal(err)
	}
	if rows != 2 || early != 0 {
		t.Fatalf("%d rows kept (want 2: the ephemeral one deleted), %d published before created", rows, early)
	}
}

// A state change with several events writes them in one statement: each is still its own row
// and its own message, with its own id and headers, published in the order written.
func TestSeveralMessagesOfOneWriteArePublishedInOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.startRelay(t, nil)
	ctx := t.Context()
	texts := []string{"completed", "voucher", "sms", "receipt"}
	var msgs []outbox.Message
	for i, text := range texts {
		m := message(t, "u1", text)
		m.ID = uuid.Must(uuid.NewV7())
		m.Headers = map[string]string{"Thumela-Step": text}
		m.Ephemeral = i == 2
		msgs = append(msgs, m)
	}
	e.write(t, ctx, msgs...)
	eventually(t, 10*time.Second, "every message on the stream", func() bool { return e.streamMsgs(t) == uint64(len(texts)) })

	s, err := e.js.Stream(ctx, bus.StreamEvents)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range msgs {
		got, err := s.GetMsg(ctx, uint64(i+1))
		if err != nil {
			t.Fatal(err)
		}
		var payload wrapperspb.StringValue
		if err := proto.Unmarshal(got.Data, &payload); err != nil || payload.GetValue() != texts[i] {
			t.Errorf("message %d = %q (%v), want %q", i+1, payload.GetValue(), err, texts[i])
		}
		if h := got.Header.Get(jetstream.MsgIDHeader); h != want.ID.String() {
			t.Errorf("message %d: Nats-Msg-Id = %q, want %s", i+1, h, want.ID)
		}
		if h := got.Header.Get("Thumela-Step"); h != texts[i] {
			t.Errorf("message %d: header = %q, want %q", i+1, h, texts[i])
		}
	}
	eventually(t, 5*time.Second, "the rows marked published", func() bool { return e.unpublished(t) == 0 })
	var kept int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM outbox`).Scan(&kept); err != nil {
		t.Fatal(err)
	}
	if kept != len(texts)-1 {
		t.Errorf("%d rows kept, want %d (the ephemeral one deleted)", kept, len(texts)-1)
	}
}
