package outbox_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/pgtest"
	"github.com/thumela/thumela/services/platform/postgres"
)

// The relays in these tests never sweep (fallback interval of an hour), so a message reaches
// JetStream only through a wake-up; "promptly" means within the eventually timeouts, which
// are far shorter than the sweep.
const noSweep = time.Hour

// writeOutsideInTx writes msg in a transaction of its own that postgres.InTx did not start, so
// that it carries no commit hook and Write falls back to NOTIFY.
func writeOutsideInTx(ctx context.Context, db postgres.TxBeginner, msg outbox.Message) error {
	tx, err := db.BeginTx(ctx, pgx.TxOptions{})
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if err := outbox.Write(ctx, tx, msg); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// listen opens a connection of its own LISTENing on the outbox's channel, as a relay in
// another process would.
func (e *env) listen(tb testing.TB) *pgx.Conn {
	tb.Helper()
	conn, err := pgx.Connect(context.Background(), e.dbURL)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = conn.Close(context.Background()) })
	if _, err := conn.Exec(context.Background(), "LISTEN "+pgx.Identifier{outbox.Channel(schema)}.Sanitize()); err != nil {
		tb.Fatal(err)
	}
	return conn
}

// notified reports whether conn receives a notification within d.
func notified(tb testing.TB, conn *pgx.Conn, d time.Duration) bool {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	n, err := conn.WaitForNotification(ctx)
	if err != nil {
		if ctx.Err() == nil {
			tb.Fatalf("wait for notification: %v", err)
		}
		return false
	}
	if n.Channel != outbox.Channel(schema) {
		tb.Fatalf("notification on %q", n.Channel)
	}
	return true
}

func TestInTxWriteWakesRelayWithoutNotify(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	other := e.listen(t)
	e.startRelay(t, nil, outbox.WithFallbackInterval(noSweep))

	// Besides wake-ups, the relay drains on its own only twice: at start and when its LISTEN
	// connection is established. Each message is written after the previous one was
	// published, so those two drains can account for two messages at most; the others can
	// only have been published through Write's in-memory wake-up.
	const n = 5
	for i := range n {
		e.write(t, t.Context(), message(t, "u1", fmt.Sprint("m", i)))
		eventually(t, 10*time.Second, fmt.Sprintf("message %d on the stream", i+1), func() bool { return e.streamMsgs(t) == uint64(i+1) })
	}
	// And no NOTIFY was sent: the serialising commit-time lock was never taken. The
	// notifications would have been delivered at the writers' commits, long before the
	// publishes that were waited for; the window only leaves time for them to arrive.
	if notified(t, other, 300*time.Millisecond) {
		t.Fatal("a write through postgres.InTx sent a NOTIFY")
	}
	eventually(t, 5*time.Second, "the rows marked published", func() bool { return e.unpublished(t) == 0 })
}

func TestWriteOutsideInTxNotifies(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	other := e.listen(t)
	e.startRelay(t, nil, outbox.WithFallbackInterval(noSweep))

	// Transactions postgres.InTx did not start (or did not start at this level) cannot carry
	// a commit hook, so Write falls back to NOTIFY, which reaches every replica's LISTEN.
	tests := []struct {
		name  string
		write func(ctx context.Context, msg outbox.Message) error
	}{
		{"pool.Begin", func(ctx context.Context, msg outbox.Message) error { return writeOutsideInTx(ctx, e.pool, msg) }},
		{"savepoint inside InTx", func(ctx context.Context, msg outbox.Message) error {
			return postgres.InTx(ctx, e.pool, func(tx pgx.Tx) error {
				sp, err := tx.Begin(ctx)
				if err != nil {
					return err
				}
				if err := outbox.Write(ctx, sp, msg); err != nil {
					return err
				}
				return sp.Commit(ctx)
			})
		}},
	}
	for i, tt := range tests {
		if err := tt.write(t.Context(), message(t, "u1", tt.name)); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !notified(t, other, 10*time.Second) {
			t.Fatalf("%s: no NOTIFY on %s", tt.name, outbox.Channel(schema))
		}
		eventually(t, 10*time.Second, tt.name+": the message on the stream", func() bool { return e.streamMsgs(t) == uint64(i+1) })
	}
}

// Not parallel: it needs a process without any running relay, which holds while the other
// tests wait for the sequential ones to finish.
func TestWriteWithoutLocalRelayNotifies(t *testing.T) {
	e := newDBOnlyEnv(t)
	other := e.listen(t)
	// A service writing before its relay has started (or after it stopped): an in-memory
	// wake-up would reach nobody, so the other replicas must hear of the row through NOTIFY.
	e.write(t, t.Context(), message(t, "u1", "no relay here"))
	if !notified(t, other, 10*time.Second) {
		t.Fatal("a write in a process without a relay sent no NOTIFY")
	}
}

// newDBOnlyEnv is an env without NATS: enough for writing and listening.
func newDBOnlyEnv(tb testing.TB) *env {
	tb.Helper()
	e := &env{dbURL: pgtest.NewDatabase(tb)}
	e.pool = e.openPool(tb)
	if err := postgres.Migrate(context.Background(), e.pool, schema, outbox.Migrations); err != nil {
		tb.Fatal(err)
	}
	return e
}

func TestWokenReplicaWaitsForTheLockHolder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// This process's relay: the only one Write wakes here. The other replica is played by a
	// transaction holding the drain lock, which is all a replica in mid-batch is to this one
	// (a second Relay in this test process would be woken in memory as well).
	r := e.startRelay(t, nil, outbox.WithFallbackInterval(noSweep))

	// Three rounds: without wake-ups the relay drains on its own only twice (at start and
	// when its LISTEN connection is up), so those drains cannot carry all three.
	for round := 1; round <= 3; round++ {
		otherReplica, err := e.pool.Begin(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		// On failure, free the connection (and the lock), or closing the pool would hang.
		defer func() { _ = otherReplica.Rollback(context.Background()) }()
		if _, err := otherReplica.Exec(t.Context(), "SELECT pg_advisory_xact_lock($1)", outbox.RelayLockKey(r)); err != nil {
			t.Fatal(err)
		}
		// The other replica's batch SELECT ran before this commit, so only this relay can
		// publish the row, and only the in-memory wake-up tells it to.
		e.write(t, t.Context(), message(t, "u1", fmt.Sprint("round ", round)))
		eventually(t, 10*time.Second, "the woken relay queued for the drain lock", func() bool { return e.lockWaiters(t) == 1 })
		if got := e.streamMsgs(t); got != uint64(round-1) {
			t.Fatalf("round %d: %d messages published while another replica held the lock", round, got)
		}
		if err := otherReplica.Commit(t.Context()); err != nil {
			t.Fatal(err)
		}
		eventually(t, 10*time.Second, fmt.Sprintf("round %d's message once the lock was free", round),
			func() bool { return e.streamMsgs(t) == uint64(round) })
	}
}

// lockWaiters counts the sessions of the env's database waiting for an advisory lock.
func (e *env) lockWaiters(tb testing.TB) int {
	tb.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_locks l
		JOIN pg_database d ON d.oid = l.database
		WHERE l.locktype = 'advisory' AND NOT l.granted AND d.datname = current_database()`).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}
