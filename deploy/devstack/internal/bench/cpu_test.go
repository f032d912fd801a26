package bench

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/thumela/thumela/services/platform/pgtest"
	"github.com/thumela/thumela/services/platform/postgres"
)

// The meter counts a service's PostgreSQL backends under the service's name: platform/postgres
// names each connection after its schema, and the bench reads the name beside the backend's pid.
func TestCPUMeterNamesTheStacksBackendsByService(t *testing.T) {
	t.Parallel()
	dbURL := pgtest.NewDatabase(t)
	pool, err := postgres.Open(t.Context(), dbURL, "fees", postgres.WithMaxConns(1))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var pid int
	if err := pool.QueryRow(t.Context(), "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	names, err := openBackendNames(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer names.close()
	if got := names.group(pid); got != "postgres for fees" {
		t.Fatalf("the fees pool's backend is named %q", got)
	}
	// A backend of another database (pgbench's, in a run) keeps its database's group.
	other, err := postgres.Open(t.Context(), pgtest.NewDatabase(t), "pgbench", postgres.WithMaxConns(1))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var otherPID int
	if err := other.QueryRow(t.Context(), "SELECT pg_backend_pid()").Scan(&otherPID); err != nil {
		t.Fatal(err)
	}
	if got := names.group(otherPID); got != "" {
		t.Fatalf("another database's backend is named %q", got)
	}

	m := StartCPUMeter(nil, "test", map[string]string{databaseName(dbURL): StackDB}, names.group)
	if _, err := pool.Exec(t.Context(), "SELECT count(*) FROM generate_series(1, 200000)"); err != nil {
		t.Fatal(err)
	}
	usage := m.Stop()
	if _, ok := usage.Cores["postgres for fees"]; !ok {
		t.Fatalf("groups %v: no postgres for fees", usage.Cores)
	}
	if _, ok := usage.Cores[StackDB]; ok {
		t.Fatalf("groups %v: the fees backend was also counted as the stack's database", usage.Cores)
	}
}

// A machine kept busy never counts as quiet: Settle gives up at its timeout and says so.
func TestSettleWaitsWhileTheMachineIsBusy(t *testing.T) {
	var stop atomic.Bool
	defer stop.Store(true)
	for range 2 { // a core's worth at least, far above quietCores
		go func() {
			n := 0
			for !stop.Load() {
				n++ // busy on purpose
			}
			_ = n
		}()
	}
	waited, quiet, err := Settle(t.Context(), 1500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if quiet {
		t.Fatalf("Settle called a busy machine quiet after %s", waited)
	}
	if waited < 1500*time.Millisecond {
		t.Fatalf("Settle gave up after %s, before its timeout", waited)
	}
}
