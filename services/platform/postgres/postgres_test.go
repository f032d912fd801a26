package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/thumela/thumela/services/platform/pgtest"
	"github.com/thumela/thumela/services/platform/postgres"
)

func open(t *testing.T, schema string) *pgxpool.Pool {
	t.Helper()
	pool, err := postgres.Open(t.Context(), pgtest.NewDatabase(t), schema, postgres.WithMaxConns(6))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func TestValidateSchema(t *testing.T) {
	t.Parallel()
	tests := []struct {
		schema string
		ok     bool
	}{
		{"identity", true},
		{"payment_methods", true},
		{"_x1", true},
		{"", false},
		{"Identity", false},
		{"1abc", false},
		{"a-b", false},
		{`x"; DROP TABLE y; --`, false},
		{"pg_catalog", false},
		{"public", false},
		{"information_schema", false},
		{"a234567890123456789012345678901234567890123456789012345678901234", false}, // 64 chars
	}
	for _, tt := range tests {
		t.Run(tt.schema, func(t *testing.T) {
			t.Parallel()
			err := postgres.ValidateSchema(tt.schema)
			if (err == nil) != tt.ok {
				t.Fatalf("ValidateSchema(%q) = %v, want ok=%v", tt.schema, err, tt.ok)
			}
			if err != nil && !errors.Is(err, postgres.ErrInvalidSchema) {
				t.Fatalf("error %v is not ErrInvalidSchema", err)
			}
		})
	}
}

func TestOpenCreatesSchemaAndSetsSearchPath(t *testing.T) {
	t.Parallel()
	pool := open(t, "profiles")
	var current string
	if err := pool.QueryRow(t.Context(), "SELECT current_schema()").Scan(&current); err != nil {
		t.Fatal(err)
	}
	if current != "profiles" {
		t.Fatalf("current_schema() = %q, want profiles", current)
	}
	if got := pool.Config().MaxConns; got != 6 {
		t.Fatalf("MaxConns = %d, want 6", got)
	}
	// Unqualified names land in the service's schema.
	if _, err := pool.Exec(t.Context(), "CREATE TABLE t (x int)"); err != nil {
		t.Fatal(err)
	}
	var schema string
	if err := pool.QueryRow(t.Context(), "SELECT table_schema FROM information_schema.tables WHERE table_name = 't'").Scan(&schema); err != nil {
		t.Fatal(err)
	}
	if schema != "profiles" {
		t.Fatalf("table created in %q", schema)
	}
}

// A service's connections carry its name, unless the URL gives one.
func TestOpenNamesTheConnections(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	for _, tt := range []struct{ url, want string }{
		{url, "fees"},
		{url + "&application_name=fees-canary", "fees-canary"},
	} {
		pool, err := postgres.Open(t.Context(), tt.url, "fees")
		if err != nil {
			t.Fatal(err)
		}
		var name string
		err = pool.QueryRow(t.Context(), "SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid()").Scan(&name)
		pool.Close()
		if err != nil {
			t.Fatal(err)
		}
		if name != tt.want {
			t.Errorf("application_name = %q, want %q", name, tt.want)
		}
	}
}

func TestOpenPoolSizeFromURL(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t) + "&pool_max_conns=3"
	pool, err := postgres.Open(t.Context(), url, "fees")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if got := pool.Config().MaxConns; got != 3 {
		t.Fatalf("MaxConns = %d, want 3 from the URL", got)
	}
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, url, schema string
		want              error
	}{
		{"invalid schema", pgtest.DefaultURL, "Bad-Schema", postgres.ErrInvalidSchema},
		{"unreachable", "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable&connect_timeout=1", "fees", postgres.ErrUnreachable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			_, err := postgres.Open(t.Context(), tt.url, tt.schema, postgres.WithWait(500*time.Millisecond))
			if !errors.Is(err, tt.want) {
				t.Fatalf("Open = %v, want %v", err, tt.want)
			}
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Fatalf("Open took %s despite WithWait(500ms)", elapsed)
			}
		})
	}
}

func TestInTx(t *testing.T) {
	t.Parallel()
	pool := open(t, "transfers")
	if _, err := pool.Exec(t.Context(), "CREATE TABLE items (name text PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	insert := func(tx pgx.Tx, name string) error {
		_, err := tx.Exec(context.Background(), "INSERT INTO items (name) VALUES ($1)", name)
		return err
	}
	errBoom := errors.New("boom")
	tests := []struct {
		name      string
		fn        func(tx pgx.Tx, name string) error
		wantErr   error
		wantPanic bool
		wantRows  int
	}{
		{"commit", func(tx pgx.Tx, n string) error { return insert(tx, n) }, nil, false, 1},
		{"error rolls back", func(tx pgx.Tx, n string) error { _ = insert(tx, n); return errBoom }, errBoom, false, 0},
		{"panic rolls back", func(tx pgx.Tx, n string) error { _ = insert(tx, n); panic(errBoom) }, nil, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var err error
			panicked := func() (p bool) {
				defer func() { p = recover() != nil }()
				err = postgres.InTx(t.Context(), pool, func(tx pgx.Tx) error { return tt.fn(tx, tt.name) })
				return false
			}()
			if panicked != tt.wantPanic {
				t.Fatalf("panicked = %v, want %v", panicked, tt.wantPanic)
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("InTx = %v, want %v", err, tt.wantErr)
			}
			var n int
			if err := pool.QueryRow(t.Context(), "SELECT count(*) FROM items WHERE name = $1", tt.name).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != tt.wantRows {
				t.Fatalf("rows = %d, want %d", n, tt.wantRows)
			}
		})
	}
	// After a panic the pool must still hand out usable connections (no leaked transaction).
	for range 10 {
		if err := postgres.InTx(t.Context(), pool, func(pgx.Tx) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOnCommit: hooks run once the transaction is visible to others, and never after a
// rollback; a transaction InTx did not start cannot take hooks.
func TestOnCommit(t *testing.T) {
	t.Parallel()
	pool := open(t, "profiles")
	if _, err := pool.Exec(t.Context(), "CREATE TABLE marks (name text PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	seen := func(name string) int {
		var n int
		if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM marks WHERE name = $1", name).Scan(&n); err != nil {
			t.Error(err)
		}
		return n
	}
	var ran []string
	err := postgres.InTx(t.Context(), pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(t.Context(), "INSERT INTO marks VALUES ('committed')"); err != nil {
			return err
		}
		if !postgres.OnCommit(tx, func() { ran = append(ran, fmt.Sprintf("first saw %d", seen("committed"))) }) {
			t.Error("OnCommit refused InTx's transaction")
		}
		postgres.OnCommit(tx, func() { ran = append(ran, "second") })
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(ran) != "[first saw 1 second]" {
		t.Fatalf("hooks after commit = %v, want [first saw 1 second]", ran)
	}

	ran = nil
	_ = postgres.InTx(t.Context(), pool, func(tx pgx.Tx) error {
		postgres.OnCommit(tx, func() { ran = append(ran, "rolled back") })
		return errors.New("boom")
	})
	if ran != nil {
		t.Fatalf("hook ran after a rollback: %v", ran)
	}

	tx, err := pool.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background()) //nolint:errcheck // cleanup
	if postgres.OnCommit(tx, func() {}) {
		t.Fatal("OnCommit accepted a transaction InTx did not start")
	}
}

func TestErrorHelpers(t *testing.T) {
	t.Parallel()
	pool := open(t, "identity")
	if _, err := pool.Exec(t.Context(), `
		CREATE TABLE users (id int PRIMARY KEY, email text CONSTRAINT users_email_key UNIQUE);
		CREATE TABLE sessions (id int PRIMARY KEY, user_id int CONSTRAINT sessions_user_fk REFERENCES users(id));
		INSERT INTO users VALUES (1, 'a@example.com');`); err != nil {
		t.Fatal(err)
	}
	exec := func(sql string) error {
		_, err := pool.Exec(t.Context(), sql)
		if err == nil {
			t.Fatalf("%s: expected an error", sql)
		}
		return fmt.Errorf("repository: %w", err) // helpers must see through wrapping
	}
	tests := []struct {
		name           string
		err            error
		wantUnique     string
		wantFK         string
		wantSerializer bool
	}{
		{"unique", exec("INSERT INTO users VALUES (2, 'a@example.com')"), "users_email_key", "", false},
		{"foreign key", exec("INSERT INTO sessions VALUES (1, 42)"), "", "sessions_user_fk", false},
		{"serialization", exec("DO $$ BEGIN RAISE EXCEPTION 'retry' USING ERRCODE = 'serialization_failure'; END $$"), "", "", true},
		{"other pg error", exec("SELECT 1/0"), "", "", false},
		{"not a pg error", errors.New("plain"), "", "", false},
		{"nil", nil, "", "", false},
		{"constructed", &pgconn.PgError{Code: "23505", ConstraintName: "x"}, "x", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, ok := postgres.IsUniqueViolation(tt.err)
			if ok != (tt.wantUnique != "") || c != tt.wantUnique {
				t.Errorf("IsUniqueViolation = %q, %v; want %q", c, ok, tt.wantUnique)
			}
			c, ok = postgres.IsForeignKeyViolation(tt.err)
			if ok != (tt.wantFK != "") || c != tt.wantFK {
				t.Errorf("IsForeignKeyViolation = %q, %v; want %q", c, ok, tt.wantFK)
			}
			if got := postgres.IsSerializationFailure(tt.err); got != tt.wantSerializer {
				t.Errorf("IsSerializationFailure = %v, want %v", got, tt.wantSerializer)
			}
		})
	}
}

var (
	setA = postgres.MigrationSet{Name: "a", FS: fstest.MapFS{
		"0001_create.sql":   {Data: []byte("CREATE TABLE counter (n int NOT NULL);")},
		"0002_insert.sql":   {Data: []byte("INSERT INTO counter VALUES (1);")},
		"README.md":         {Data: []byte("ignored")},
		"sub/0003_skip.sql": {Data: []byte("garbage")},
	}}
	setB = postgres.MigrationSet{Name: "b", FS: fstest.MapFS{
		"0001_create.sql": {Data: []byte("CREATE TABLE other (x int); INSERT INTO counter VALUES (10);")},
	}}
)

func counter(t *testing.T, pool *pgxpool.Pool) (sum, rows int) {
	t.Helper()
	if err := pool.QueryRow(t.Context(), "SELECT coalesce(sum(n), 0), count(*) FROM counter").Scan(&sum, &rows); err != nil {
		t.Fatal(err)
	}
	return sum, rows
}

func TestMigrateIsIdempotent(t *testing.T) {
	t.Parallel()
	pool := open(t, "transfers")
	for range 2 {
		if err := postgres.Migrate(t.Context(), pool, "transfers", setA, setB); err != nil {
			t.Fatalf("Migrate: %v", err)
		}
	}
	if sum, rows := counter(t, pool); sum != 11 || rows != 2 {
		t.Fatalf("counter sum=%d rows=%d, want 11 and 2 (each migration once)", sum, rows)
	}
	var n int
	if err := pool.QueryRow(t.Context(), "SELECT count(*) FROM transfers.schema_migrations WHERE length(checksum) = 64").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Fatalf("schema_migrations rows = %d, want 3", n)
	}
}

func TestMigrateConcurrently(t *testing.T) {
	t.Parallel()
	pool := open(t, "transfers")
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() { errs <- postgres.Migrate(t.Context(), pool, "transfers", setA, setB) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("Migrate: %v", err)
		}
	}
	if sum, rows := counter(t, pool); sum != 11 || rows != 2 {
		t.Fatalf("counter sum=%d rows=%d, want 11 and 2 (each migration once)", sum, rows)
	}
}

func TestMigrateRefusesChangedChecksum(t *testing.T) {
	t.Parallel()
	pool := open(t, "transfers")
	if err := postgres.Migrate(t.Context(), pool, "transfers", setA); err != nil {
		t.Fatal(err)
	}
	changed := postgres.MigrationSet{Name: "a", FS: fstest.MapFS{
		"0001_create.sql": setA.FS.(fstest.MapFS)["0001_create.sql"],
		"0002_insert.sql": {Data: []byte("INSERT INTO counter VALUES (2);")},
		"0003_more.sql":   {Data: []byte("INSERT INTO counter VALUES (100);")},
	}}
	err := postgres.Migrate(t.Context(), pool, "transfers", changed)
	var mismatch *postgres.ChecksumMismatchError
	if !errors.As(err, &mismatch) || !errors.Is(err, postgres.ErrChecksumMismatch) {
		t.Fatalf("Migrate = %v, want *ChecksumMismatchError", err)
	}
	if mismatch.Set != "a" || mismatch.Version != 2 {
		t.Fatalf("mismatch = %+v, want set a version 2", mismatch)
	}
	if sum, _ := counter(t, pool); sum != 1 {
		t.Fatalf("counter sum = %d: the new migration 0003 ran despite the mismatch", sum)
	}
}

func TestMigrateFailureRollsBackThatFileOnly(t *testing.T) {
	t.Parallel()
	pool := open(t, "transfers")
	bad := postgres.MigrationSet{Name: "a", FS: fstest.MapFS{
		"0001_create.sql": setA.FS.(fstest.MapFS)["0001_create.sql"],
		"0002_bad.sql":    {Data: []byte("INSERT INTO counter VALUES (5); SELECT no_such_function();")},
	}}
	err := postgres.Migrate(t.Context(), pool, "transfers", bad)
	var merr *postgres.MigrationError
	if !errors.As(err, &merr) || merr.File != "0002_bad.sql" {
		t.Fatalf("Migrate = %v, want *MigrationError for 0002_bad.sql", err)
	}
	if sum, rows := counter(t, pool); sum != 0 || rows != 0 {
		t.Fatalf("counter sum=%d rows=%d: the failed file was not rolled back", sum, rows)
	}
}

func TestMigrateRejectsMalformedSets(t *testing.T) {
	t.Parallel()
	pool := open(t, "transfers")
	ok := fstest.MapFS{"0001_x.sql": {Data: []byte("SELECT 1")}}
	tests := []struct {
		name string
		sets []postgres.MigrationSet
	}{
		{"bad file name", []postgres.MigrationSet{{Name: "a", FS: fstest.MapFS{"1_x.sql": {Data: []byte("SELECT 1")}}}}},
		{"duplicate version", []postgres.MigrationSet{{Name: "a", FS: fstest.MapFS{
			"0001_x.sql": {Data: []byte("SELECT 1")}, "0001_y.sql": {Data: []byte("SELECT 1")}}}}},
		{"duplicate set", []postgres.MigrationSet{{Name: "a", FS: ok}, {Name: "a", FS: ok}}},
		{"unnamed set", []postgres.MigrationSet{{FS: ok}}},
		{"nil fs", []postgres.MigrationSet{{Name: "a"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := postgres.Migrate(t.Context(), pool, "transfers", tt.sets...); err == nil {
				t.Fatal("Migrate accepted a malformed set")
			}
		})
	}
	if err := postgres.Migrate(t.Context(), pool, "Not Valid", setA); !errors.Is(err, postgres.ErrInvalidSchema) {
		t.Fatalf("Migrate with a bad schema = %v", err)
	}
}

// A github.com/google/uuid value goes to PostgreSQL as a uuid wherever one is expected, and as
// its text where text is: the direct encoding must not change what any statement receives.
func TestUUIDParameters(t *testing.T) {
	t.Parallel()
	pool := open(t, "uuids")
	ctx := t.Context()
	id := uuid.New()
	var asUUID uuid.UUID
	var asText string
	var same bool
	if err := pool.QueryRow(ctx, `SELECT $1::uuid, $2::text, $1::uuid = $3::text::uuid`, id, id, id.String()).Scan(&asUUID, &asText, &same); err != nil {
		t.Fatal(err)
	}
	if asUUID != id || asText != id.String() || !same {
		t.Fatalf("got %s, %q, %v; want %s as both", asUUID, asText, same, id)
	}
	if _, err := pool.Exec(ctx, `CREATE TABLE ids (id uuid PRIMARY KEY, label text NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO ids (id, label) VALUES ($1, $2)`, id, id); err != nil {
		t.Fatal(err)
	}
	var label string
	if err := pool.QueryRow(ctx, `SELECT label FROM ids WHERE id = $1`, id).Scan(&label); err != nil || label != id.String() {
		t.Fatalf("label = %q, %v", label, err)
	}
	var missing uuid.UUID
	if err := pool.QueryRow(ctx, `SELECT NULL::uuid`).Scan(&missing); err != nil || missing != uuid.Nil {
		t.Fatalf("NULL into a uuid.UUID = %s, %v; want the zero UUID as before", missing, err)
	}
}
