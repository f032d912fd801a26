package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
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
	tx, err := db.BeginTx(ctx, txOpts)
	if err != nil {
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

	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		committed = true // pgx has already ended the transaction either way.
		return fmt.Errorf("postgres: commit: %w", err)
	}
	committed = true
	return nil
}
