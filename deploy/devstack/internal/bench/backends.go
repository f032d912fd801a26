package bench

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// backendNames tells the stack's PostgreSQL backends apart by the service that holds each
// connection: every service names its connections after itself (application_name, set by
// platform/postgres), which pg_stat_activity shows beside the backend's pid. The CPU figures then
// split the stack's database into "postgres for transfers", "postgres for notifications", and so
// on, which is where a transfer's cost mostly is (docs/benchmarks.md).
type backendNames struct {
	mu    sync.Mutex
	conn  *pgx.Conn
	names map[int]string
}

// openBackendNames connects to the stack's database, naming its own connection thumela-bench.
func openBackendNames(ctx context.Context, databaseURL string) (*backendNames, error) {
	cfg, err := pgx.ParseConfig(databaseURL)
	if err != nil {
		return nil, err
	}
	cfg.RuntimeParams["application_name"] = "thumela-bench"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &backendNames{conn: conn, names: map[int]string{}}, nil
}

// group is the CPU group of the backend pid of the stack's database ("postgres for
// <application_name>"), or "" when it has no name, is gone or serves another database; the
// meter asks once per backend.
func (b *backendNames) group(pid int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if g, ok := b.names[pid]; ok {
		return g
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var app string
	// Only the stack's own database: pgbench's backends (application_name "pgbench") stay in
	// their database's group, which the baselines count.
	err := b.conn.QueryRow(ctx, `SELECT application_name FROM pg_stat_activity
		WHERE pid = $1 AND datname = current_database()`, pid).Scan(&app)
	if err != nil || app == "" {
		return ""
	}
	b.names[pid] = "postgres for " + app
	return b.names[pid]
}

func (b *backendNames) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	_ = b.conn.Close(context.Background()) //nolint:errcheck // a read-only connection at the end of the run
}
