package postgres_test

import (
	"io"
	"log/slog"
	"net"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/platform/postgres"
)

// The errors pgx really returns when PostgreSQL is out of reach or goes away mid-session are
// what grpcserver.Unexpected, which every service's ports layer calls for an error it has no code
// for, answers as Unavailable: the caller is told to try again, not that the service is broken.
func TestALostDatabaseIsUnavailableToCallers(t *testing.T) {
	t.Parallel()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	codeOf := func(err error) codes.Code {
		t.Helper()
		if err == nil {
			t.Fatal("expected an error")
		}
		return status.Code(grpcserver.Unexpected(t.Context(), logger, err))
	}

	t.Run("refused", func(t *testing.T) {
		t.Parallel()
		pool, err := pgxpool.New(t.Context(), "postgres://thumela@"+closedPort(t)+"/thumela?sslmode=disable")
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		err = postgres.InTx(t.Context(), pool, func(pgx.Tx) error { return nil })
		if got := codeOf(err); got != codes.Unavailable {
			t.Errorf("%v: answered %v, want Unavailable", err, got)
		}
	})

	t.Run("terminated mid-transaction", func(t *testing.T) {
		t.Parallel()
		pool := open(t, "transfers")
		err := postgres.InTx(t.Context(), pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(t.Context(), "SELECT 1"); err != nil {
				return err
			}
			// What a fast shutdown does to every session: FATAL 57P01, then the socket closes.
			if _, err := pool.Exec(t.Context(), "SELECT pg_terminate_backend($1)", tx.Conn().PgConn().PID()); err != nil {
				t.Fatal(err)
			}
			_, err := tx.Exec(t.Context(), "SELECT 1")
			return err
		})
		if got := codeOf(err); got != codes.Unavailable {
			t.Errorf("%v: answered %v, want Unavailable", err, got)
		}
	})

	t.Run("a query's own error stays internal", func(t *testing.T) {
		t.Parallel()
		pool := open(t, "transfers")
		_, err := pool.Exec(t.Context(), "SELECT 1/0")
		if got := codeOf(err); got != codes.Internal {
			t.Errorf("%v: answered %v, want Internal", err, got)
		}
	})
}

// closedPort returns a loopback host:port nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}
