package postgres_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/thumela/thumela/services/platform/pgtest"
	"github.com/thumela/thumela/services/platform/postgres"
)

// sent records what a pool sends: each message to the server as the SQL it carries, a batch
// as its statements joined by " ; ".
type sent struct {
	mu   sync.Mutex
	msgs []string
}

func (s *sent) add(m string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgs = append(s.msgs, m)
}

func (s *sent) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.msgs
	s.msgs = nil
	return out
}

func (s *sent) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	s.add(strings.ToLower(d.SQL))
	return ctx
}
func (s *sent) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (s *sent) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	var sqls []string
	for _, q := range d.Batch.QueuedQueries {
		sqls = append(sqls, strings.ToLower(q.SQL))
	}
	s.add(strings.Join(sqls, " ; "))
	return ctx
}
func (s *sent) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (s *sent) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// tracedPool is a one-connection pool on a new database whose messages rec records.
func tracedPool(t *testing.T) (*pgxpool.Pool, *sent) {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	rec := &sent{}
	cfg.ConnConfig.Tracer = rec
	cfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(t.Context(), `CREATE TABLE items (name text PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	rec.take()
	return pool, rec
}

// InTx's BEGIN goes with the transaction's first statement, whatever its form, and the
// statement is inside the transaction: what it wrote is rolled back with it, and committed
// with it; nothing else goes to the server on its own but COMMIT or ROLLBACK.
func TestInTxSendsBeginWithTheFirstStatement(t *testing.T) {
	t.Parallel()
	insert := `insert into items (name) values ($1)`
	firsts := map[string]func(ctx context.Context, tx pgx.Tx, name string) error{
		"Exec": func(ctx context.Context, tx pgx.Tx, name string) error {
			_, err := tx.Exec(ctx, insert, name)
			return err
		},
		"Query": func(ctx context.Context, tx pgx.Tx, name string) error {
			rows, err := tx.Query(ctx, insert+` returning name`, name)
			if err != nil {
				return err
			}
			got, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err == nil && !slices.Equal(got, []string{name}) {
				err = errors.New("Query returned " + strings.Join(got, ","))
			}
			return err
		},
		"QueryRow": func(ctx context.Context, tx pgx.Tx, name string) error {
			var got string
			if err := tx.QueryRow(ctx, insert+` returning name`, name).Scan(&got); err != nil {
				return err
			}
			if got != name {
				return errors.New("QueryRow returned " + got)
			}
			return nil
		},
		"SendBatch": func(ctx context.Context, tx pgx.Tx, name string) error {
			b := &pgx.Batch{}
			b.Queue(insert, name)
			return tx.SendBatch(ctx, b).Close()
		},
	}
	for form, first := range firsts {
		t.Run(form, func(t *testing.T) {
			t.Parallel()
			pool, rec := tracedPool(t)
			count := func(name string) (n int) {
				t.Helper()
				if err := pool.QueryRow(t.Context(), `SELECT count(*) FROM items WHERE name = $1`, name).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			errUndo := errors.New("undo")
			for _, tc := range []struct {
				name string
				err  error
				rows int
				end  string
			}{{"kept", nil, 1, "commit"}, {"undone", errUndo, 0, "rollback"}} {
				rec.take()
				err := postgres.InTx(t.Context(), pool, func(tx pgx.Tx) error {
					if err := first(t.Context(), tx, tc.name); err != nil {
						return err
					}
					var inside int // a second statement sees the first's row: the same transaction
					if err := tx.QueryRow(t.Context(), `SELECT count(*) FROM items WHERE name = $1`, tc.name).Scan(&inside); err != nil || inside != 1 {
						t.Errorf("%s: second statement saw %d rows (%v), want 1", tc.name, inside, err)
					}
					return tc.err
				})
				if !errors.Is(err, tc.err) {
					t.Fatalf("%s: InTx = %v, want %v", tc.name, err, tc.err)
				}
				msgs := rec.take()
				want := []string{"begin ; " + insert, "select count(*) from items where name = $1", tc.end}
				if form != "Exec" && form != "SendBatch" {
					want[0] += " returning name"
				}
				if !slices.Equal(msgs, want) {
					t.Fatalf("%s: sent %q, want %q", tc.name, msgs, want)
				}
				if n := count(tc.name); n != tc.rows {
					t.Fatalf("%s: %d rows after InTx, want %d", tc.name, n, tc.rows)
				}
			}
		})
	}
}

// A transaction that runs no statement sends nothing, and still runs its commit hooks; a
// first statement that fails ends the transaction, and the one connection is usable after.
func TestInTxWithoutStatementsOrWithAFailingFirst(t *testing.T) {
	t.Parallel()
	pool, rec := tracedPool(t)
	hooked := false
	if err := postgres.InTx(t.Context(), pool, func(tx pgx.Tx) error {
		postgres.OnCommit(tx, func() { hooked = true })
		return nil
	}); err != nil || !hooked {
		t.Fatalf("empty transaction: %v, hook ran %v", err, hooked)
	}
	if msgs := rec.take(); len(msgs) != 0 {
		t.Fatalf("an empty transaction sent %q", msgs)
	}

	if _, err := pool.Exec(t.Context(), `INSERT INTO items VALUES ('taken')`); err != nil {
		t.Fatal(err)
	}
	for _, form := range []string{"Exec", "Query", "SendBatch"} {
		err := postgres.InTx(t.Context(), pool, func(tx pgx.Tx) error {
			switch form {
			case "Exec":
				_, err := tx.Exec(t.Context(), `INSERT INTO items VALUES ('taken')`)
				return err
			case "Query":
				// As with pgx's Query, the statement's failure is the rows' to report.
				rows, err := tx.Query(t.Context(), `INSERT INTO items VALUES ('taken') RETURNING name`)
				if err != nil {
					return errors.New("Query reported the statement's failure itself: " + err.Error())
				}
				_, err = pgx.CollectExactlyOneRow(rows, pgx.RowTo[string])
				return err
			}
			b := &pgx.Batch{}
			b.Queue(`INSERT INTO items VALUES ('new')`)
			b.Queue(`INSERT INTO items VALUES ('taken')`)
			return tx.SendBatch(t.Context(), b).Close()
		})
		if _, dup := postgres.IsUniqueViolation(err); !dup {
			t.Fatalf("%s: InTx = %v, want the unique violation", form, err)
		}
	}
	// The pool's only connection is out of the failed transaction: new ones work, and the
	// batch's first insert was rolled back with it.
	var n int
	err := postgres.InTx(t.Context(), pool, func(tx pgx.Tx) error {
		return tx.QueryRow(t.Context(), `SELECT count(*) FROM items`).Scan(&n)
	})
	if err != nil || n != 1 {
		t.Fatalf("after the failures: %d rows (%v), want 1", n, err)
	}
}

// CommitWith puts the COMMIT on the transaction's last batch: a transaction of one batch is one
// message, BEGIN to COMMIT. The hooks run once it committed; a statement that fails takes the
// COMMIT with it (nothing is kept); and a COMMIT queued on a batch never sent commits nothing.
func TestCommitWithTheLastBatch(t *testing.T) {
	t.Parallel()
	pool, rec := tracedPool(t)
	count := func() (n int) {
		t.Helper()
		if err := pool.QueryRow(t.Context(), `SELECT count(*) FROM items`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	hooked := false
	err := postgres.InTx(t.Context(), pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(`insert into items (name) values ('one')`)
		b.Queue(`insert into items (name) values ('two')`)
		postgres.OnCommit(tx, func() { hooked = true })
		if !postgres.CommitWith(tx, b) {
			t.Fatal("CommitWith refused InTx's transaction")
		}
		return tx.SendBatch(t.Context(), b).Close()
	})
	want := []string{"begin ; insert into items (name) values ('one') ; insert into items (name) values ('two') ; commit"}
	if msgs := rec.take(); err != nil || !hooked || !slices.Equal(msgs, want) {
		t.Fatalf("InTx = %v, hook ran %v, sent %q; want nil, true, %q", err, hooked, msgs, want)
	}
	if n := count(); n != 2 {
		t.Fatalf("%d rows, want 2", n)
	}

	hooked = false
	err = postgres.InTx(t.Context(), pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(`insert into items (name) values ('three')`)
		b.Queue(`insert into items (name) values ('one')`) // taken
		postgres.OnCommit(tx, func() { hooked = true })
		postgres.CommitWith(tx, b)
		return tx.SendBatch(t.Context(), b).Close()
	})
	if _, dup := postgres.IsUniqueViolation(err); !dup || hooked || count() != 2 {
		t.Fatalf("a failing statement: InTx = %v, hook ran %v, %d rows; want the violation, no hook, 2 rows", err, hooked, count())
	}

	err = postgres.InTx(t.Context(), pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(t.Context(), `insert into items (name) values ('four')`); err != nil {
			return err
		}
		postgres.CommitWith(tx, &pgx.Batch{}) // queued, never sent
		return nil
	})
	if err == nil || count() != 2 {
		t.Fatalf("a COMMIT never sent: InTx = %v with %d rows, want an error and 2 rows", err, count())
	}

	tx, err := pool.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background()) //nolint:errcheck // cleanup
	b := &pgx.Batch{}
	if postgres.CommitWith(tx, b) || b.Len() != 0 {
		t.Fatal("CommitWith queued on a transaction InTx did not start")
	}
}
