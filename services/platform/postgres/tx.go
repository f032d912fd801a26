package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TxBeginner starts transactions: *pgxpool.Pool, *pgxpool.Conn, *pgx.Conn, and pgx.Tx (which
// gives a savepoint) all satisfy it.
type TxBeginner interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// rollbackTimeout bounds a rollback issued after the caller's context was cancelled: the
// rollback must still reach the server, but must not hang a shutting-down service.
const rollbackTimeout = 5 * time.Second

// InTx runs fn in a READ COMMITTED transaction and commits if fn returns nil. It rolls back
// when fn returns an error or panics (the panic is re-raised after the rollback), so a
// repository never leaks an open transaction or returns a connection mid-transaction.
func InTx(ctx context.Context, db TxBeginner, fn func(pgx.Tx) error) error {
	return InTxWith(ctx, db, pgx.TxOptions{}, fn)
}

// InTxWith is InTx with explicit transaction options (isolation level, read-only, …).
func InTxWith(ctx context.Context, db TxBeginner, txOpts pgx.TxOptions, fn func(pgx.Tx) error) (err error) {
	var tx pgx.Tx
	if pool, ok := db.(*pgxpool.Pool); ok && txOpts == (pgx.TxOptions{}) {
		// The common case: BEGIN goes with the first statement (lazytx.go).
		lazy, err := beginLazy(ctx, pool)
		if err != nil {
			return fmt.Errorf("postgres: begin: %w", err)
		}
		defer lazy.release()
		tx = lazy
	} else if tx, err = db.BeginTx(ctx, txOpts); err != nil {
		return fmt.Errorf("postgres: begin: %w", err)
	}
	committed := false
	defer func() {
		if committed {
			return
		}
		// Roll back even if ctx is already cancelled: that is often why fn failed.
		rbCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
		defer cancel()
		_ = tx.Rollback(rbCtx) // fn's error (or the panic) is the one worth reporting.
	}()

	htx := &hookedTx{Tx: tx}
	if err := fn(htx); err != nil {
		return err
	}
	if htx.commitQueued {
		// fn's last batch carried the COMMIT (CommitWith) and its results were all read without
		// an error, so it committed; unless the batch never went, which the server's state says.
		if tx.Conn().PgConn().TxStatus() != 'I' {
			return errCommitNotSent
		}
	} else if err := tx.Commit(ctx); err != nil {
		committed = true // pgx has already ended the transaction either way.
		return fmt.Errorf("postgres: commit: %w", err)
	}
	committed = true
	for _, hook := range htx.onCommit {
		hook()
	}
	return nil
}

// hookedTx is the pgx.Tx InTx hands to fn: the real transaction plus the functions to run
// once it has committed.
type hookedTx struct {
	pgx.Tx
	onCommit     []func()
	commitQueued bool // CommitWith queued the COMMIT on fn's last batch
}

// errCommitNotSent: fn queued its COMMIT on a batch (CommitWith) but returned without sending
// it; the transaction is rolled back.
var errCommitNotSent = errors.New("postgres: COMMIT was queued on a batch that was not sent")

// CommitWith queues tx's COMMIT as the last statement of b, which must be the transaction's
// last batch, so that the commit travels with the writes instead of taking a round trip of its
// own. The caller sends b and reads all its results (its Close reads the COMMIT's); the
// transaction has committed when they all succeed, and InTx then only runs the commit hooks.
// If a statement of b fails, PostgreSQL skips the rest, COMMIT included, and InTx rolls back
// on fn's error as usual. It reports false, and queues nothing, when tx did not come from InTx
// or InTxWith (then InTx-less code commits as it always did).
func CommitWith(tx pgx.Tx, b *pgx.Batch) bool {
	h, ok := tx.(*hookedTx)
	if !ok {
		return false
	}
	b.Queue("commit")
	h.commitQueued = true
	return true
}

// OnCommit runs fn after tx commits, in the committing goroutine, and never if it rolls back.
// It is how a writer wakes an in-process consumer of what it wrote (the outbox relay, a work
// queue) without pg_notify, whose commit-time lock serialises every committing transaction
// of the server. It reports false, and registers nothing, when tx did not come from InTx or
// InTxWith; the caller then needs another way to signal (or the consumer's periodic sweep).
// Hooks must be quick and must not block: they run before InTx returns.
func OnCommit(tx pgx.Tx, fn func()) bool {
	h, ok := tx.(*hookedTx)
	if !ok {
		return false
	}
	h.onCommit = append(h.onCommit, fn)
	return true
}

// QueryUnder runs sql with args on tx after settings (SET LOCAL statements, which end with the
// transaction), all in one round trip, and collects the rows with scan. It is for a statement
// whose plan must not depend on the statistics PostgreSQL has when it first plans it: pgx
// prepares statements, and the generic plan made on a new, never-analysed table (a fresh deploy)
// may scan a table that then grows, and is kept. `SET LOCAL enable_seqscan = off` (and
// enable_sort) leaves the planner only the indexes.
func QueryUnder[T any](ctx context.Context, tx pgx.Tx, settings []string, sql string, args []any, scan pgx.RowToFunc[T]) ([]T, error) {
	b := &pgx.Batch{}
	for _, s := range settings {
		b.Queue(s)
	}
	b.Queue(sql, args...)
	br := tx.SendBatch(ctx, b)
	for range settings {
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			return nil, err
		}
	}
	rows, err := br.Query()
	if err != nil {
		_ = br.Close()
		return nil, err
	}
	out, err := pgx.CollectRows(rows, scan)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return out, err
}
