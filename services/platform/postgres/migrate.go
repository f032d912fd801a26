package postgres

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// MigrationSet is a named, ordered collection of SQL migrations, usually embedded with
// a go:embed directive. Files are named NNNN_description.sql (four or more digits) at the root of FS and
// are applied in version order, each in its own transaction (so a file cannot use
// CREATE INDEX CONCURRENTLY). Other files are ignored.
//
// Several sets can share one schema (a service's own tables, the outbox, …); each is tracked
// separately by Name, so their version numbers never collide.
type MigrationSet struct {
	Name string
	FS   fs.FS
}

// ErrChecksumMismatch is matched (errors.Is) by *ChecksumMismatchError.
var ErrChecksumMismatch = errors.New("postgres: applied migration was changed")

// ChecksumMismatchError reports an already-applied migration whose file no longer has the
// content that was applied. Migrate refuses to go on: the database and the code disagree about
// what the schema is, and silently continuing would hide a bad edit or a bad merge. Add a new
// migration instead of editing an applied one.
type ChecksumMismatchError struct {
	Set      string
	Version  int64
	File     string
	Applied  string // sha256 (hex) recorded when it was applied
	Computed string // sha256 (hex) of the file now
}

func (e *ChecksumMismatchError) Error() string {
	return fmt.Sprintf("postgres: migration %s/%s (version %d) was changed after it was applied: sha256 %s, applied %s",
		e.Set, e.File, e.Version, e.Computed, e.Applied)
}

// Is makes errors.Is(err, ErrChecksumMismatch) true.
func (e *ChecksumMismatchError) Is(target error) bool { return target == ErrChecksumMismatch }

// MigrationError wraps the failure of one migration file; its transaction was rolled back, and
// the migrations before it stay applied.
type MigrationError struct {
	Set  string
	File string
	Err  error
}

func (e *MigrationError) Error() string {
	return fmt.Sprintf("postgres: migration %s/%s: %v", e.Set, e.File, e.Err)
}

func (e *MigrationError) Unwrap() error { return e.Err }

var migrationName = regexp.MustCompile(`^([0-9]{4,})_[A-Za-z0-9_\-]+\.sql$`)

type migration struct {
	version  int64
	file     string
	sql      string
	checksum string
}

// Migrate applies the sets' pending migrations to schema (created if missing), recording each
// in <schema>.schema_migrations with its sha256. It is idempotent, and safe when several
// replicas start at once: all of them take a session advisory lock keyed by the schema, so
// one applies and the others then find nothing to do. Before applying anything it verifies
// every already-applied file and fails with *ChecksumMismatchError if one changed.
//
// Applied versions that no longer exist in a set are ignored, so rolling back to an older
// build does not block its start.
func Migrate(ctx context.Context, pool *pgxpool.Pool, schema string, sets ...MigrationSet) error {
	if err := ValidateSchema(schema); err != nil {
		return err
	}
	loaded, err := loadSets(sets)
	if err != nil {
		return err
	}

	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("postgres: migrate: acquire: %w", err)
	}
	// A session lock (not a transaction one) because each file commits on its own.
	key := AdvisoryKey("thumela.migrate." + schema)
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", key); err != nil {
		conn.Release()
		return fmt.Errorf("postgres: migrate: lock: %w", err)
	}
	defer func() {
		unlockCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
		defer cancel()
		if _, err := conn.Exec(unlockCtx, "SELECT pg_advisory_unlock($1)", key); err != nil {
			// Never hand a connection that still holds the lock back to the pool: closing it
			// releases the lock on the server.
			_ = conn.Hijack().Close(unlockCtx)
			return
		}
		conn.Release()
	}()

	if err := createSchema(ctx, conn, schema); err != nil {
		return err
	}
	table := pgx.Identifier{schema, "schema_migrations"}.Sanitize()
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+table+` (
		set_name   text        NOT NULL,
		version    bigint      NOT NULL,
		file       text        NOT NULL,
		checksum   text        NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (set_name, version)
	)`); err != nil {
		return fmt.Errorf("postgres: migrate: create %s: %w", table, err)
	}

	type appliedKey struct {
		set     string
		version int64
	}
	applied := map[appliedKey]string{}
	rows, err := conn.Query(ctx, "SELECT set_name, version, checksum FROM "+table)
	if err != nil {
		return fmt.Errorf("postgres: migrate: read %s: %w", table, err)
	}
	for rows.Next() {
		var k appliedKey
		var sum string
		if err := rows.Scan(&k.set, &k.version, &sum); err != nil {
			rows.Close()
			return fmt.Errorf("postgres: migrate: read %s: %w", table, err)
		}
		applied[k] = sum
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("postgres: migrate: read %s: %w", table, err)
	}

	// Verify everything first: a changed file must stop the start before any new change.
	for i, set := range sets {
		for _, m := range loaded[i] {
			if sum, ok := applied[appliedKey{set.Name, m.version}]; ok && sum != m.checksum {
				return &ChecksumMismatchError{Set: set.Name, Version: m.version, File: m.file, Applied: sum, Computed: m.checksum}
			}
		}
	}

	searchPath := "SET LOCAL search_path TO " + pgx.Identifier{schema}.Sanitize()
	insert := "INSERT INTO " + table + " (set_name, version, file, checksum) VALUES ($1, $2, $3, $4)"
	for i, set := range sets {
		for _, m := range loaded[i] {
			if _, ok := applied[appliedKey{set.Name, m.version}]; ok {
				continue
			}
			err := InTx(ctx, conn, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, searchPath); err != nil {
					return err
				}
				// No arguments: pgx uses the simple protocol, so a file may hold many statements.
				if _, err := tx.Exec(ctx, m.sql); err != nil {
					return err
				}
				_, err := tx.Exec(ctx, insert, set.Name, m.version, m.file, m.checksum)
				return err
			})
			if err != nil {
				return &MigrationError{Set: set.Name, File: m.file, Err: err}
			}
		}
	}
	return nil
}

// loadSets reads and validates every set before the database is touched, so a malformed set
// (duplicate version, bad name) fails the same way on every replica and changes nothing.
func loadSets(sets []MigrationSet) ([][]migration, error) {
	seen := map[string]bool{}
	out := make([][]migration, len(sets))
	for i, set := range sets {
		if set.Name == "" || set.FS == nil {
			return nil, fmt.Errorf("postgres: migration set %d needs a Name and an FS", i)
		}
		if seen[set.Name] {
			return nil, fmt.Errorf("postgres: migration set %q given twice", set.Name)
		}
		seen[set.Name] = true

		entries, err := fs.ReadDir(set.FS, ".")
		if err != nil {
			return nil, fmt.Errorf("postgres: migration set %q: %w", set.Name, err)
		}
		versions := map[int64]string{}
		for _, e := range entries {
			if e.IsDir() || path.Ext(e.Name()) != ".sql" {
				continue
			}
			match := migrationName.FindStringSubmatch(e.Name())
			if match == nil {
				return nil, fmt.Errorf("postgres: migration set %q: %q is not named NNNN_description.sql", set.Name, e.Name())
			}
			version, err := strconv.ParseInt(match[1], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("postgres: migration set %q: %q: %w", set.Name, e.Name(), err)
			}
			if other, dup := versions[version]; dup {
				return nil, fmt.Errorf("postgres: migration set %q: %q and %q share version %d", set.Name, other, e.Name(), version)
			}
			versions[version] = e.Name()
			body, err := fs.ReadFile(set.FS, e.Name())
			if err != nil {
				return nil, fmt.Errorf("postgres: migration set %q: %w", set.Name, err)
			}
			sum := sha256.Sum256(body)
			out[i] = append(out[i], migration{version: version, file: e.Name(), sql: string(body), checksum: hex.EncodeToString(sum[:])})
		}
		slices.SortFunc(out[i], func(a, b migration) int { return cmp.Compare(a.version, b.version) })
	}
	return out, nil
}

// AdvisoryKey maps a name to the bigint key space of pg_advisory_lock. FNV-1a is stable
// across processes and versions, which is all that matters: every replica must compute the
// same key for the same name. Callers namespace their names ("thumela.migrate.<schema>",
// "thumela.outbox.<schema>") so different uses never collide.
func AdvisoryKey(name string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	return int64(h.Sum64()) //nolint:gosec // G115: the hash's 64 bits read as a signed key; wrapping is intended
}
