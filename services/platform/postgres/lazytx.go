package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A transaction whose BEGIN travels with its first statement.
//
// pgx's BeginTx sends BEGIN as a round trip of its own, and a service's transaction is often
// three or four round trips in all (BEGIN, a batch that reads, a batch that writes, COMMIT). In
// a CPU profile of the transfers service during creates, beginning transactions took 7 % of the
// process (the pool's BeginTx, its TLS write, the wait for the answer), and PostgreSQL read and
// answered one more message each time. pgx (5.12) can queue BEGIN as the first query of a batch
// (Batch.BeginTx) and hand back the transaction it began (BatchResults.Tx); lazyTx does that
// with the transaction's first statement, whatever form it takes (a batch, Exec, Query,
// QueryRow): one write and one answer for BEGIN and the statement. PostgreSQL runs them in
// order, so the statement is inside the transaction exactly as after a separate BEGIN. From
// then on every call is pgx's own transaction's. A transaction that runs no statement sends
// nothing at all, not even its COMMIT.

// lazyTx is a READ COMMITTED transaction on a connection acquired from the pool: InTx's when
// given a *pgxpool.Pool and default options.
type lazyTx struct {
	conn   *pgxpool.Conn
	tx     pgx.Tx // pgx's transaction, once the first statement has begun it
	closed bool   // ended before it began: nothing was sent
}

var _ pgx.Tx = (*lazyTx)(nil)

// beginLazy acquires a connection for a lazyTx. The caller ends the transaction (Commit or
// Rollback) and then calls release.
func beginLazy(ctx context.Context, pool *pgxpool.Pool) (*lazyTx, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	return &lazyTx{conn: conn}, nil
}

// release returns the connection to the pool, which closes rather than reuses one left inside
// a transaction (after a failed ROLLBACK).
func (t *lazyTx) release() { t.conn.Release() }

// sendBegun sends b with BEGIN queued first, and keeps the transaction it begins. The results'
// first is BEGIN's; afterBegin reads it before the caller's.
func (t *lazyTx) sendBegun(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	nb := &pgx.Batch{}
	nb.BeginTx(pgx.TxOptions{})
	nb.QueuedQueries = append(nb.QueuedQueries, b.QueuedQueries...)
	br := t.conn.SendBatch(ctx, nb)
	t.tx = br.Tx()
	return &afterBegin{BatchResults: br}
}

// begin sends BEGIN alone, for the calls that cannot carry it (a savepoint, CopyFrom, Prepare,
// large objects).
func (t *lazyTx) begin(ctx context.Context) (pgx.Tx, error) {
	if t.closed {
		return nil, pgx.ErrTxClosed
	}
	if t.tx == nil {
		if err := t.sendBegun(ctx, &pgx.Batch{}).Close(); err != nil {
			return nil, err
		}
	}
	return t.tx, nil
}

// SendBatch implements pgx.Tx: the first batch carries BEGIN.
func (t *lazyTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	switch {
	case t.tx != nil:
		return t.tx.SendBatch(ctx, b)
	case t.closed:
		return pgx.FailedBatchResults(b, pgx.ErrTxClosed)
	}
	return t.sendBegun(ctx, b)
}

// Exec implements pgx.Tx: the first statement carries BEGIN.
func (t *lazyTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if t.tx != nil {
		return t.tx.Exec(ctx, sql, args...)
	}
	b := &pgx.Batch{}
	b.Queue(sql, args...)
	br := t.SendBatch(ctx, b)
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag, err
}

// Query implements pgx.Tx: the first statement carries BEGIN, and its rows, once closed,
// close the batch they came in.
func (t *lazyTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if t.tx != nil {
		return t.tx.Query(ctx, sql, args...)
	}
	b := &pgx.Batch{}
	b.Queue(sql, args...)
	br := t.SendBatch(ctx, b)
	rows, err := br.Query()
	if rows == nil {
		_ = br.Close()
		return nil, err
	}
	// A batch reports the statement's failure at once; pgx's Query leaves it to the rows (as
	// callers expect: they read a constraint's violation from CollectRows). The rows carry it.
	return &batchRows{Rows: rows, br: br}, nil
}

// QueryRow implements pgx.Tx.
func (t *lazyTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if t.tx != nil {
		return t.tx.QueryRow(ctx, sql, args...)
	}
	rows, err := t.Query(ctx, sql, args...)
	return &firstRow{rows: rows, err: err}
}

// Commit implements pgx.Tx. A transaction that sent nothing has nothing to commit.
func (t *lazyTx) Commit(ctx context.Context) error {
	if t.tx != nil {
		return t.tx.Commit(ctx)
	}
	if t.closed {
		return pgx.ErrTxClosed
	}
	t.closed = true
	return nil
}

// Rollback implements pgx.Tx; like pgx's, it answers pgx.ErrTxClosed once ended.
func (t *lazyTx) Rollback(ctx context.Context) error {
	if t.tx != nil {
		return t.tx.Rollback(ctx)
	}
	if t.closed {
		return pgx.ErrTxClosed
	}
	t.closed = true
	return nil
}

// Begin implements pgx.Tx: a savepoint, as pgx gives inside a transaction.
func (t *lazyTx) Begin(ctx context.Context) (pgx.Tx, error) {
	tx, err := t.begin(ctx)
	if err != nil {
		return nil, err
	}
	return tx.Begin(ctx)
}

// CopyFrom implements pgx.Tx.
func (t *lazyTx) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	tx, err := t.begin(ctx)
	if err != nil {
		return 0, err
	}
	return tx.CopyFrom(ctx, table, columns, src)
}

// Prepare implements pgx.Tx.
func (t *lazyTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	tx, err := t.begin(ctx)
	if err != nil {
		return nil, err
	}
	return tx.Prepare(ctx, name, sql)
}

// LargeObjects implements pgx.Tx. Large objects live in the transaction, which this begins
// (without a context of the caller's: pgx's signature has none). No service uses them.
func (t *lazyTx) LargeObjects() pgx.LargeObjects {
	tx, err := t.begin(context.Background())
	if err != nil {
		panic(fmt.Sprintf("postgres: large objects: %v", err))
	}
	return tx.LargeObjects()
}

// Conn implements pgx.Tx.
func (t *lazyTx) Conn() *pgx.Conn { return t.conn.Conn() }

// afterBegin is a batch's results with BEGIN's first: it is read (its error, if any, is
// reported) before the caller's first result.
type afterBegin struct {
	pgx.BatchResults
	read bool
	err  error
}

func (a *afterBegin) begin() error {
	if !a.read {
		a.read = true
		if _, err := a.BatchResults.Exec(); err != nil {
			a.err = fmt.Errorf("postgres: begin: %w", err)
		}
	}
	return a.err
}

func (a *afterBegin) Exec() (pgconn.CommandTag, error) {
	if err := a.begin(); err != nil {
		return pgconn.CommandTag{}, err
	}
	return a.BatchResults.Exec()
}

func (a *afterBegin) Query() (pgx.Rows, error) {
	if err := a.begin(); err != nil {
		return nil, err
	}
	return a.BatchResults.Query()
}

func (a *afterBegin) QueryRow() pgx.Row {
	if err := a.begin(); err != nil {
		return &firstRow{err: err}
	}
	return a.BatchResults.QueryRow()
}

func (a *afterBegin) Close() error {
	if err := a.begin(); err != nil {
		_ = a.BatchResults.Close()
		return err
	}
	return a.BatchResults.Close()
}

// batchRows are a statement's rows read from a batch: closing them closes the batch, and the
// batch's error on closing is theirs.
type batchRows struct {
	pgx.Rows
	br       pgx.BatchResults
	closed   bool
	closeErr error
}

func (r *batchRows) Close() {
	if r.closed {
		return
	}
	r.closed = true
	r.Rows.Close()
	r.closeErr = r.br.Close()
}

func (r *batchRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return err
	}
	return r.closeErr
}

// firstRow is pgx.Row over rows: the first row, or pgx.ErrNoRows.
type firstRow struct {
	rows pgx.Rows
	err  error
}

func (r *firstRow) Scan(dest ...any) error {
	if r.rows != nil {
		defer r.rows.Close()
	}
	if r.err != nil {
		return r.err
	}
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return pgx.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	r.rows.Close()
	return r.rows.Err()
}
