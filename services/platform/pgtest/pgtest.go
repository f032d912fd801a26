// Package pgtest gives each test its own freshly created PostgreSQL database, so repository
// tests run in parallel against the real server without seeing each other's rows, and a
// failed run leaves nothing that breaks the next one.
//
// The server is the one at TEST_DATABASE_URL (a postgres:// URL of a role allowed to
// CREATE DATABASE), or the local development server by default.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/thumela/thumela/services/platform/postgres"
)

// DefaultURL is used when TEST_DATABASE_URL is unset.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// Prefix starts the name of every database this package creates; nothing else is ever dropped.
const Prefix = "thumela_test_"

// leftoverAge is how old a database of an earlier, interrupted run must be before it is
// dropped: old enough that it cannot belong to a run still in progress.
const leftoverAge = time.Hour

var sweepOnce sync.Once

// AdminURL returns TEST_DATABASE_URL or DefaultURL.
func AdminURL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return DefaultURL
}

// NewDatabase creates an empty database named thumela_test_<unix time>_<random> and returns
// its URL. t.Cleanup drops it WITH (FORCE), so pools a test forgot to close do not block
// the drop. The first call in a process also drops leftovers older than an hour (best effort).
func NewDatabase(t testing.TB) string {
	t.Helper()
	admin := AdminURL()
	u, err := url.Parse(admin)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		t.Fatalf("pgtest: TEST_DATABASE_URL must be a postgres:// URL")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("pgtest: connect to %s: %v", u.Redacted(), err)
	}
	defer conn.Close(context.Background())

	sweepOnce.Do(func() { sweepLeftovers(ctx, conn) })

	name := newName(time.Now())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatalf("pgtest: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Errorf("pgtest: drop %s: connect: %v", name, err)
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})

	dbURL := *u
	dbURL.Path = "/" + name
	return dbURL.String()
}

// NewPool creates a database with NewDatabase, opens a small pool on it bound to schema, and
// applies sets. The pool is closed on cleanup, before the database is dropped.
func NewPool(t testing.TB, schema string, sets ...postgres.MigrationSet) *pgxpool.Pool {
	t.Helper()
	dbURL := NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// Small pools: many packages' tests share one server and its 100 connections.
	pool, err := postgres.Open(ctx, dbURL, schema, postgres.WithMaxConns(4), postgres.WithWait(10*time.Second))
	if err != nil {
		t.Fatalf("pgtest: open: %v", err)
	}
	t.Cleanup(pool.Close)
	if err := postgres.Migrate(ctx, pool, schema, sets...); err != nil {
		t.Fatalf("pgtest: migrate: %v", err)
	}
	return pool
}

func newName(now time.Time) string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return Prefix + strconv.FormatInt(now.Unix(), 10) + "_" + hex.EncodeToString(b[:])
}

// createdAt parses the creation time encoded in a name made by newName.
func createdAt(name string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(name, Prefix)
	if !ok {
		return time.Time{}, false
	}
	ts, _, ok := strings.Cut(rest, "_")
	if !ok {
		return time.Time{}, false
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(sec, 0), true
}

// sweepLeftovers drops databases that interrupted runs (a killed `go test`, a crash) could not
// clean up. Errors are ignored: another process may be dropping the same database.
func sweepLeftovers(ctx context.Context, conn *pgx.Conn) {
	rows, err := conn.Query(ctx, "SELECT datname FROM pg_database WHERE starts_with(datname, $1)", Prefix)
	if err != nil {
		return
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return
	}
	for _, name := range names {
		if at, ok := createdAt(name); ok && time.Since(at) > leftoverAge {
			_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
		}
	}
}
