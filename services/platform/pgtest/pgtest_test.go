package pgtest_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/thumela/thumela/services/platform/pgtest"
	"github.com/thumela/thumela/services/platform/postgres"
)

func dbExists(t *testing.T, name string) bool {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), pgtest.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var exists bool
	if err := conn.QueryRow(context.Background(), "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	return exists
}

func TestNewDatabaseIsFreshAndDropped(t *testing.T) {
	t.Parallel()
	var name string
	t.Run("use", func(t *testing.T) {
		dbURL := pgtest.NewDatabase(t)
		u, err := url.Parse(dbURL)
		if err != nil {
			t.Fatal(err)
		}
		name = strings.TrimPrefix(u.Path, "/")
		if !strings.HasPrefix(name, pgtest.Prefix) {
			t.Fatalf("database %q lacks the prefix", name)
		}
		conn, err := pgx.Connect(t.Context(), dbURL)
		if err != nil {
			t.Fatal(err)
		}
		// Left open on purpose: the drop is WITH (FORCE).
		var n int
		if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Fatalf("fresh database has %d tables", n)
		}
	})
	if dbExists(t, name) {
		t.Fatalf("database %s still exists after its test ended", name)
	}
}

func TestNewDatabaseInParallel(t *testing.T) {
	t.Parallel()
	seen := make(chan string, 8)
	t.Run("group", func(t *testing.T) {
		for i := range 8 {
			t.Run(string(rune('a'+i)), func(t *testing.T) {
				t.Parallel()
				seen <- pgtest.NewDatabase(t)
			})
		}
	})
	close(seen)
	unique := map[string]bool{}
	for u := range seen {
		unique[u] = true
	}
	if len(unique) != 8 {
		t.Fatalf("got %d distinct databases, want 8", len(unique))
	}
}

func TestNewPoolIsMigrated(t *testing.T) {
	t.Parallel()
	set := postgres.MigrationSet{Name: "svc", FS: fstestFS("0001_t.sql", "CREATE TABLE t (x int)")}
	pool := pgtest.NewPool(t, "fees", set)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if _, err := pool.Exec(ctx, "INSERT INTO fees.t VALUES (1)"); err != nil {
		t.Fatalf("migrated table missing: %v", err)
	}
}

func fstestFS(name, body string) fstest.MapFS {
	return fstest.MapFS{name: {Data: []byte(body)}}
}
