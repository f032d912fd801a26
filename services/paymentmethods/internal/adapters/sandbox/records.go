package sandbox

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/thumela/thumela/services/paymentmethods/internal/app"
	"github.com/thumela/thumela/services/paymentmethods/internal/domain"
)

// Record is one charge or refund in the sandbox's own books, like a real processor's record
// of it. No card data: the parameters are kept as Signature (last four, expiry, amount).
type Record struct {
	app.ProcessorRecord
	// Reference is the processor's id of this charge or refund (empty for a declined charge).
	Reference      string
	DeclineCode    string
	DeclineMessage string
	Signature      string
}

// Store keeps the sandbox's records. The sandbox writes a record for every charge it decided
// (approved or declined) and every refund it made, and answers a repeated key from it after a
// restart.
type Store interface {
	// Save records r unless a record of its kind and key exists; it returns the record kept.
	Save(ctx context.Context, r Record) (Record, error)
	// Get returns the record of one kind and key, if any: the lookup before every charge and
	// refund, by the table's primary key.
	Get(ctx context.Context, kind app.ProcessorRecordKind, key string) (Record, bool, error)
	// Find returns the records of the given keys (any kind).
	Find(ctx context.Context, keys []string) ([]Record, error)
}

// MemoryStore is a Store in memory (tests, and a sandbox without a database).
type MemoryStore struct {
	mu   sync.Mutex
	recs map[string]Record // kind + "\x00" + key
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{recs: map[string]Record{}} }

// Save implements Store.
func (m *MemoryStore) Save(_ context.Context, r Record) (Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := string(r.Kind) + "\x00" + r.IdempotencyKey
	if have, ok := m.recs[id]; ok {
		return have, nil
	}
	if r.CreatedAt.IsZero() {
		r.CreatedAt = time.Now()
	}
	m.recs[id] = r
	return r, nil
}

// Get implements Store.
func (m *MemoryStore) Get(_ context.Context, kind app.ProcessorRecordKind, key string) (Record, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.recs[string(kind)+"\x00"+key]
	return r, ok, nil
}

// Find implements Store.
func (m *MemoryStore) Find(_ context.Context, keys []string) ([]Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Record
	for _, r := range m.recs {
		if slices.Contains(keys, r.IdempotencyKey) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b Record) int { return a.CreatedAt.Compare(b.CreatedAt) })
	return out, nil
}

// Put overwrites a record (tests: a processor that disagrees).
func (m *MemoryStore) Put(r Record) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs[string(r.Kind)+"\x00"+r.IdempotencyKey] = r
}

// PostgresStore keeps the records in the table sandbox_processor_records of paymentmethods'
// database (migration 0003): the sandbox's own table, which nothing but the sandbox reads.
type PostgresStore struct{ pool *pgxpool.Pool }

// NewPostgresStore returns the store over pool (search_path = paymentmethods).
func NewPostgresStore(pool *pgxpool.Pool) *PostgresStore { return &PostgresStore{pool: pool} }

const recordColumns = `kind, idempotency_key, reference, charge_id, status, decline_code, decline_message, amount_cents, signature, created_at`

func scanRecord(row pgx.CollectableRow) (Record, error) {
	var (
		r            Record
		kind, status string
		cents        int64
	)
	err := row.Scan(&kind, &r.IdempotencyKey, &r.Reference, &r.ChargeID, &status, &r.DeclineCode, &r.DeclineMessage,
		&cents, &r.Signature, &r.CreatedAt)
	r.Kind, r.Status, r.Amount = app.ProcessorRecordKind(kind), domain.Status(status), domain.Cents(cents)
	return r, err
}

// Save implements Store, in one statement: the insert, or the record already kept when the
// key has one (a row the statement's own insert did not write is read from the table).
func (s *PostgresStore) Save(ctx context.Context, r Record) (Record, error) {
	rows, err := s.pool.Query(ctx, `WITH saved AS (
			INSERT INTO sandbox_processor_records
				(kind, idempotency_key, reference, charge_id, status, decline_code, decline_message, amount_cents, signature)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (kind, idempotency_key) DO NOTHING
			RETURNING `+recordColumns+`)
		SELECT `+recordColumns+` FROM saved
		UNION ALL
		SELECT `+recordColumns+` FROM sandbox_processor_records
			WHERE kind = $1 AND idempotency_key = $2 AND NOT EXISTS (SELECT FROM saved)`,
		string(r.Kind), r.IdempotencyKey, r.Reference, r.ChargeID, string(r.Status), r.DeclineCode, r.DeclineMessage,
		r.Amount.Cents(), r.Signature)
	if err != nil {
		return Record{}, err
	}
	return pgx.CollectExactlyOneRow(rows, scanRecord)
}

// Get implements Store.
func (s *PostgresStore) Get(ctx context.Context, kind app.ProcessorRecordKind, key string) (Record, bool, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+recordColumns+` FROM sandbox_processor_records
		WHERE kind = $1 AND idempotency_key = $2`, string(kind), key)
	if err != nil {
		return Record{}, false, err
	}
	r, err := pgx.CollectExactlyOneRow(rows, scanRecord)
	if errors.Is(err, pgx.ErrNoRows) {
		return Record{}, false, nil
	}
	return r, err == nil, err
}

// findSQL is Find's statement ($1 the keys): for each key (once, however often it is named) a
// probe of sandbox_processor_records_key_idx.
//
// Not "idempotency_key = ANY($1)": pgx prepares the statement, and the generic plan PostgreSQL
// made of that on a new, empty table (a fresh sandbox) was a sequential scan, an index probe per
// array element looking dearer than an assumed ten pages, and it was kept as the table grew by a
// row per charge and refund, for every page a reconciliation asks about. In a LATERAL subquery
// the key is a value of the outer row, and OFFSET 0 keeps the planner from merging the
// subquery into a join it could hash over a scan of the table (TestFindPlanProbesEachKey).
const findSQL = `SELECT r.* FROM (SELECT DISTINCT unnest($1::text[]) AS key) k
		CROSS JOIN LATERAL (SELECT ` + recordColumns + ` FROM sandbox_processor_records
			WHERE idempotency_key = k.key OFFSET 0) r
		ORDER BY r.created_at, r.kind, r.idempotency_key`

// Find implements Store.
func (s *PostgresStore) Find(ctx context.Context, keys []string) ([]Record, error) {
	rows, err := s.pool.Query(ctx, findSQL, keys)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanRecord)
}
