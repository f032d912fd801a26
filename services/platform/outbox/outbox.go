// Package outbox is Thumela's transactional outbox, the reason no event is ever lost: a
// service writes its events in the same transaction as the state change they describe
// (Write), and a Relay publishes them to JetStream after commit, with the event id as
// Nats-Msg-Id so that a re-publish after a crash is dropped by JetStream. NATS being down
// delays events and never blocks or fails the business transaction.
//
// A service applies Migrations to its own schema, calls Write inside its repository
// transactions (postgres.InTx, so the relay is woken in memory after commit rather than by
// pg_notify), runs one Relay per process, and consumes with Consume. The relay and the
// consumers export OpenTelemetry metrics (thumela.outbox.*, thumela.consumer.*; see
// WithMeterProvider).
package outbox

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"google.golang.org/protobuf/proto"

	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/postgres"
)

// HeaderEventType carries the payload's proto full name (e.g. thumela.transfers.v1.…), so a
// consumer of a subject with several event kinds knows what to unmarshal.
const HeaderEventType = "Thumela-Event-Type"

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations creates the outbox table; apply it with postgres.Migrate next to the service's
// own set. It lands in the schema Migrate is given.
var Migrations = postgres.MigrationSet{Name: "outbox", FS: mustSub(migrationFiles, "migrations")}

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err) // the directory is embedded at build time
	}
	return sub
}

// Channel is the LISTEN/NOTIFY channel of the outbox in schema. Write notifies it (on its
// fallback path) through current_schema(), so it matches as long as the transaction's
// search_path starts with the service's schema, which postgres.Open guarantees.
func Channel(schema string) string { return "outbox_" + schema }

// ErrNoPayload is returned by Write for a Message without a Payload.
var ErrNoPayload = errors.New("outbox: message has no payload")

// Message is one event to publish.
type Message struct {
	// ID identifies the event everywhere: the outbox row, Nats-Msg-Id, and consumers'
	// idempotency checks. Zero means a new UUIDv7 (time-ordered, so the unique index stays
	// append-mostly). Set it to derive the id from the business operation when a retried
	// operation must not emit a second event.
	ID      uuid.UUID
	Subject string // usually from bus.Subject
	Payload proto.Message
	Headers map[string]string // optional; copied, never modified
	// Ephemeral rows are deleted as soon as JetStream has acknowledged them instead of being
	// kept (published_at) until the prune: for messages that must not linger in the service's
	// database once delivered to the bus, such as notification requests with sealed secrets.
	Ephemeral bool
}

// Write stores msgs in the outbox within tx and arranges for the relay to wake once tx
// commits; if tx rolls back, nothing is published. The current trace context (traceparent)
// and HeaderEventType are added to each message's headers. A subject that could never be
// published (wildcards, empty tokens) fails here, inside the business transaction, rather than
// later in the relay.
//
// When tx comes from postgres.InTx or InTxWith and a Relay runs in this process, the wake-up
// is in memory, after the commit (see wake.go): no pg_notify, whose commit-time lock would
// serialise every committing transaction of the server. Otherwise (a transaction from
// pool.Begin, a savepoint, a process without a relay) Write falls back to pg_notify on the
// outbox's channel, which PostgreSQL delivers to the relays' LISTEN at commit.
func Write(ctx context.Context, tx pgx.Tx, msgs ...Message) error {
	if len(msgs) == 0 {
		return nil
	}
	batch := &pgx.Batch{}
	if err := Queue(ctx, tx, batch, msgs...); err != nil {
		return err
	}
	if err := tx.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("outbox: write: %w", err)
	}
	return nil
}

// Queue is Write into the caller's batch: one insert of every message, and the fallback's
// pg_notify, are queued on batch, which the caller sends on tx with its own statements, so
// that a state change and its events cost one round trip. The caller must send batch on tx,
// and treat an error of any of its results as the write's failure.
func Queue(ctx context.Context, tx pgx.Tx, batch *pgx.Batch, msgs ...Message) error {
	if len(msgs) == 0 {
		return nil
	}
	rows := outboxRows{}
	for i, m := range msgs {
		if err := bus.ValidateSubject(m.Subject); err != nil {
			return fmt.Errorf("outbox: message %d: %w", i, err)
		}
		if m.Payload == nil {
			return fmt.Errorf("outbox: message %d: %w", i, ErrNoPayload)
		}
		id := m.ID
		if id == uuid.Nil {
			var err error
			if id, err = uuid.NewV7(); err != nil {
				return fmt.Errorf("outbox: new id: %w", err)
			}
		}
		payload, err := proto.Marshal(m.Payload)
		if err != nil {
			return fmt.Errorf("outbox: message %d: marshal: %w", i, err)
		}
		headers := make(map[string]string, len(m.Headers)+3)
		maps.Copy(headers, m.Headers)
		headers[HeaderEventType] = string(m.Payload.ProtoReflect().Descriptor().FullName())
		otel.GetTextMapPropagator().Inject(ctx, propagation.MapCarrier(headers))
		if err := rows.add(id, m.Subject, payload, headers, m.Ephemeral); err != nil {
			return fmt.Errorf("outbox: message %d: %w", i, err)
		}
	}
	rows.queue(batch)
	// The hook is registered only when a local relay can receive it; a wake-up that would
	// reach nobody must go through PostgreSQL to the other replicas' LISTEN instead.
	if !localRelayRunning() || !postgres.OnCommit(tx, wakeLocalRelays) {
		// NOTIFY is delivered on COMMIT only, and PostgreSQL folds identical notifications of
		// one transaction into one, so a burst of writes wakes the relay once.
		batch.Queue(`SELECT pg_notify('outbox_' || current_schema(), '')`)
	}
	return nil
}

// outboxRows are the rows of one Queue call, column by column.
type outboxRows struct {
	ids               []uuid.UUID
	subjects, headers []string
	payloads          [][]byte
	ephemeral         []bool
}

func (r *outboxRows) add(id uuid.UUID, subject string, payload []byte, headers map[string]string, ephemeral bool) error {
	h, err := json.Marshal(headers)
	if err != nil {
		return fmt.Errorf("headers: %w", err)
	}
	r.ids, r.subjects, r.payloads = append(r.ids, id), append(r.subjects, subject), append(r.payloads, payload)
	r.headers, r.ephemeral = append(r.headers, string(h)), append(r.ephemeral, ephemeral)
	return nil
}

// queue queues the rows' insert on batch: one statement however many rows, so that a state
// change with several events (a voucher issued: its status, the voucher, the SMS and the
// e-mail) costs PostgreSQL one statement to parse, plan and execute instead of one per event.
// The rows are inserted in the order given (WITH ORDINALITY), so seq, and the relay's
// publishing order, follow it. One row keeps the plain insert, whose plan is the cheaper.
func (r *outboxRows) queue(batch *pgx.Batch) {
	if len(r.ids) == 1 {
		batch.Queue(`INSERT INTO outbox (id, subject, payload, headers, ephemeral) VALUES ($1, $2, $3, $4::jsonb, $5)`,
			r.ids[0], r.subjects[0], r.payloads[0], r.headers[0], r.ephemeral[0])
		return
	}
	batch.Queue(`INSERT INTO outbox (id, subject, payload, headers, ephemeral)
		SELECT id, subject, payload, headers::jsonb, ephemeral
		FROM unnest($1::uuid[], $2::text[], $3::bytea[], $4::text[], $5::boolean[])
			WITH ORDINALITY AS m (id, subject, payload, headers, ephemeral, n)
		ORDER BY n`, r.ids, r.subjects, r.payloads, r.headers, r.ephemeral)
}

// PermanentError marks a consumer error that retrying cannot fix (a payload that does not
// unmarshal, a reference to something that will never exist): Consume terminates the message
// instead of redelivering it forever.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return "permanent: " + e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent wraps err as a PermanentError; Permanent(nil) is nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &PermanentError{Err: err}
}

// IsPermanent reports whether err is, or wraps, a PermanentError.
func IsPermanent(err error) bool {
	var p *PermanentError
	return errors.As(err, &p)
}
