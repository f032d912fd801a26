package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// PgbenchConfig says how PostgreSQL's own limit is measured.
type PgbenchConfig struct {
	// ServerURL is any database URL of the server the stack uses; the baseline makes its own
	// database next to it and drops it afterwards.
	ServerURL string
	Clients   int
	Threads   int
	Duration  time.Duration
	// MaxClients is the most clients any run uses (TransferAt's per-level runs); each pgbench
	// client is one user with its own usage row. Default: Clients.
	MaxClients int
	// RowsPerUser seeds the history table so that the read has rows to page through.
	RowsPerUser int
	// WorkDir receives the scripts and pgbench's per-transaction logs.
	WorkDir string
	// Around, when set, is called before each run with the script's name ("transfer",
	// "history"); the function it returns is called after the run.
	Around func(name string) func()
}

// PgbenchResult is one pgbench run, computed from its per-transaction log.
type PgbenchResult struct {
	Script string `json:"script"`
	// Clients is pgbench's -c for this run.
	Clients int `json:"clients"`
	Summary
	// ReportedTPS is pgbench's own "tps = … (without initial connection time)", for comparison.
	ReportedTPS float64 `json:"reported_tps"`
	Command     string  `json:"command"`
	// Attempts is more than 1 when the server refused pgbench's connections at first.
	Attempts int `json:"attempts"`
}

// waitForSlots waits, up to timeout, until the server has room for n more connections.
func (p *Pgbench) waitForSlots(ctx context.Context, n int, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		var free int
		err := p.conn.QueryRow(ctx, `SELECT current_setting('max_connections')::int -
			(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int`).Scan(&free)
		if err != nil || free >= n {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// The baselines' schema: a transfer row, an outbox row and a per-user usage counter, shaped
// like the transfers service's (uuid keys, timestamps, a few hundred bytes of event payload).
const pgbenchSchema = `
CREATE TABLE bench_transfers (
    id             uuid        PRIMARY KEY,
    user_id        integer     NOT NULL,
    idempotency_key text       NOT NULL,
    recipient_name text        NOT NULL,
    amount_cents   bigint      NOT NULL,
    fee_cents      bigint      NOT NULL,
    status         text        NOT NULL,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL
);
CREATE INDEX bench_transfers_user_created_idx ON bench_transfers (user_id, created_at DESC);
CREATE TABLE bench_outbox (
    id           uuid        PRIMARY KEY,
    subject      text        NOT NULL,
    payload      bytea       NOT NULL,
    created_at   timestamptz NOT NULL,
    published_at timestamptz
);
CREATE TABLE bench_usage (
    user_id    integer PRIMARY KEY,
    used_cents bigint  NOT NULL
);
`

// The transfer-like transaction (a): each pgbench client is one user, as each stack client is.
const scriptTransfer = `\set u :client_id + 1
BEGIN;
INSERT INTO bench_transfers (id, user_id, idempotency_key, recipient_name, amount_cents, fee_cents, status, created_at, updated_at)
  VALUES (gen_random_uuid(), :u, md5(random()::text), 'Bench Recipient', 1000, 1050, 'pending', now(), now());
INSERT INTO bench_outbox (id, subject, payload, created_at)
  VALUES (gen_random_uuid(), 'thumela.transfers.' || :u || '.status', decode(repeat('ab', 300), 'hex'), now());
UPDATE bench_usage SET used_cents = used_cents + 1000 WHERE user_id = :u;
END;
`

// scriptTransferNotify is (a) plus the pg_notify with which the services' outboxes (and the
// transfers worker) are woken at commit: a diagnostic, not a target's baseline. PostgreSQL
// serialises the commits of every transaction that notified, across the whole server.
const scriptTransferNotify = `\set u :client_id + 1
BEGIN;
INSERT INTO bench_transfers (id, user_id, idempotency_key, recipient_name, amount_cents, fee_cents, status, created_at, updated_at)
  VALUES (gen_random_uuid(), :u, md5(random()::text), 'Bench Recipient', 1000, 1050, 'pending', now(), now());
INSERT INTO bench_outbox (id, subject, payload, created_at)
  VALUES (gen_random_uuid(), 'thumela.transfers.' || :u || '.status', decode(repeat('ab', 300), 'hex'), now());
UPDATE bench_usage SET used_cents = used_cents + 1000 WHERE user_id = :u;
SELECT pg_notify('bench_outbox', '');
END;
`

// The history read (b): the ten newest rows of one user, through the index.
const scriptHistory = `\set u random(1, %d)
SELECT id, recipient_name, amount_cents, fee_cents, status, created_at FROM bench_transfers WHERE user_id = :u ORDER BY created_at DESC LIMIT 10;
`

// PgbenchBinary finds pgbench: on the PATH, or with Debian's server binaries.
func PgbenchBinary() (string, error) {
	if p, err := exec.LookPath("pgbench"); err == nil {
		return p, nil
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pgbench")
	if len(matches) == 0 {
		return "", errors.New("pgbench not found (install Debian's postgresql-client or postgresql package)")
	}
	version := func(p string) int {
		v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(p))))
		return v
	}
	slices.SortFunc(matches, func(a, b string) int { return version(a) - version(b) })
	return matches[len(matches)-1], nil
}

// Pgbench runs the baselines in a database of their own on the stack's server.
type Pgbench struct {
	cfg   PgbenchConfig
	bin   string
	dbURL string
	drop  func()
	conn  *pgx.Conn
}

// NewPgbench makes the baselines' database, its tables and the seeded history; Close drops it.
func NewPgbench(ctx context.Context, cfg PgbenchConfig) (*Pgbench, error) {
	bin, err := PgbenchBinary()
	if err != nil {
		return nil, err
	}
	dbURL, drop, err := makeDatabase(ctx, cfg.ServerURL, "thumela_pgbench_"+randomHex(6))
	if err != nil {
		return nil, err
	}
	p := &Pgbench{cfg: cfg, bin: bin, dbURL: dbURL, drop: drop}
	if p.conn, err = pgx.Connect(ctx, dbURL); err != nil {
		p.Close()
		return nil, err
	}
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{pgbenchSchema, nil},
		{`INSERT INTO bench_usage SELECT g, 0 FROM generate_series(1, $1::int) g`, []any{max(cfg.Clients, cfg.MaxClients)}},
		{`INSERT INTO bench_transfers
		SELECT gen_random_uuid(), 1 + g % $1::int, md5(g::text), 'Bench Recipient', 1000, 1050, 'completed',
		       now() - g * interval '1 second', now() - g * interval '1 second'
		FROM generate_series(1, $1::int * $2::int) g`, []any{cfg.Clients, cfg.RowsPerUser}},
		{`VACUUM ANALYZE`, nil},
	} {
		if _, err := p.conn.Exec(ctx, q.sql, q.args...); err != nil {
			p.Close()
			return nil, fmt.Errorf("pgbench setup: %w", err)
		}
	}
	return p, nil
}

// Database is the name of the baselines' database.
func (p *Pgbench) Database() string {
	u, err := url.Parse(p.dbURL)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Path, "/")
}

// Close drops the baselines' database.
func (p *Pgbench) Close() {
	if p.conn != nil {
		_ = p.conn.Close(context.Background())
	}
	p.drop()
}

// Transfer runs the transfer-like transaction (a).
func (p *Pgbench) Transfer(ctx context.Context) (PgbenchResult, error) {
	return p.run(ctx, "transfer", scriptTransfer)
}

// TransferAt runs (a) with the given number of clients for the given time: the baseline of a
// load level other than the configured clients. Its name (for Around, and the directory of its
// logs) is "transfer_c<clients>".
func (p *Pgbench) TransferAt(ctx context.Context, clients int, d time.Duration) (PgbenchResult, error) {
	return p.runWith(ctx, fmt.Sprintf("transfer_c%d", clients), scriptTransfer, clients, d)
}

// TransferNotify runs (a) with a pg_notify in the transaction (a diagnostic).
func (p *Pgbench) TransferNotify(ctx context.Context) (PgbenchResult, error) {
	return p.run(ctx, "transfer_notify", scriptTransferNotify)
}

// History runs the 10-newest read (b), after refreshing the planner's statistics.
func (p *Pgbench) History(ctx context.Context) (PgbenchResult, error) {
	if _, err := p.conn.Exec(ctx, `VACUUM ANALYZE bench_transfers`); err != nil {
		return PgbenchResult{}, err
	}
	return p.run(ctx, "history", fmt.Sprintf(scriptHistory, p.cfg.Clients))
}

func (p *Pgbench) run(ctx context.Context, name, script string) (PgbenchResult, error) {
	return p.runWith(ctx, name, script, p.cfg.Clients, p.cfg.Duration)
}

func (p *Pgbench) runWith(ctx context.Context, name, script string, clients int, d time.Duration) (PgbenchResult, error) {
	cfg := p.cfg
	clients = max(1, clients)
	secs := max(1, int(math.Ceil(d.Seconds())))
	dir := filepath.Join(cfg.WorkDir, "pgbench-"+name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return PgbenchResult{}, err
	}
	path := filepath.Join(dir, name+".sql")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		return PgbenchResult{}, err
	}
	// pgbench refuses more threads than clients.
	threads := min(max(1, cfg.Threads), clients)
	args := []string{"-n", "-c", strconv.Itoa(clients), "-j", strconv.Itoa(threads),
		"-T", strconv.Itoa(secs), "-f", path, "-M", "prepared", "--log", "--log-prefix=" + filepath.Join(dir, "log")}
	// On a shared server other clients may hold most connections: wait for room for ours, and
	// try again when pgbench was refused anyway ("too many clients").
	var out []byte
	var err error
	attempts := 0
	for {
		attempts++
		p.waitForSlots(ctx, clients+2, time.Minute)
		logs, _ := filepath.Glob(filepath.Join(dir, "log.*"))
		for _, l := range logs {
			_ = os.Remove(l)
		}
		cmd := exec.CommandContext(ctx, p.bin, append(args, p.dbURL)...)
		cmd.Dir = dir
		var after func()
		if cfg.Around != nil {
			after = cfg.Around(name)
		}
		out, err = cmd.CombinedOutput()
		if after != nil {
			after()
		}
		if err == nil || attempts >= 4 || ctx.Err() != nil || !strings.Contains(string(out), "too many clients") {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
		}
	}
	if err != nil {
		return PgbenchResult{}, fmt.Errorf("pgbench %s (attempt %d): %w\n%s", name, attempts, err, out)
	}
	res, err := parsePgbenchLogs(dir)
	if err != nil {
		return PgbenchResult{}, fmt.Errorf("pgbench %s: %w", name, err)
	}
	res.Attempts = attempts
	res.Clients = clients
	res.Script = strings.TrimSpace(script)
	res.Command = "pgbench " + strings.Join(args, " ") + " <database>"
	if m := reportedTPS.FindSubmatch(out); m != nil {
		res.ReportedTPS, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	return res, nil
}

var reportedTPS = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)

// parsePgbenchLogs reads every per-transaction log pgbench wrote in dir (one per thread):
// "client_id transaction_no time script_no time_epoch time_us [schedule_lag]", time being the
// transaction's latency in microseconds and time_epoch.time_us its end. The window runs from the
// first transaction's start to the last one's end.
func parsePgbenchLogs(dir string) (PgbenchResult, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "log.*"))
	if len(files) == 0 {
		return PgbenchResult{}, errors.New("pgbench wrote no transaction log")
	}
	var lat []time.Duration
	var failed int
	var first, last int64 = math.MaxInt64, 0
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return PgbenchResult{}, err
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 6 {
				continue
			}
			us, err := strconv.ParseInt(fields[2], 10, 64)
			if err != nil { // "failed" or "skipped"
				failed++
				continue
			}
			epoch, err1 := strconv.ParseInt(fields[4], 10, 64)
			frac, err2 := strconv.ParseInt(fields[5], 10, 64)
			if err1 != nil || err2 != nil {
				continue
			}
			end := epoch*1_000_000 + frac
			first = min(first, end-us)
			last = max(last, end)
			lat = append(lat, time.Duration(us)*time.Microsecond)
		}
		fh.Close() //nolint:errcheck // the file is only read; its Close error says nothing
		if err := sc.Err(); err != nil {
			return PgbenchResult{}, err
		}
	}
	if len(lat) == 0 {
		return PgbenchResult{}, errors.New("pgbench logged no successful transaction")
	}
	window := time.Duration(last-first) * time.Microsecond
	return PgbenchResult{Summary: Summarize(lat, window, failed, nil)}, nil
}

// makeDatabase creates a database on the server of serverURL and returns its URL and a function
// that drops it.
func makeDatabase(ctx context.Context, serverURL, name string) (string, func(), error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return "", nil, err
	}
	admin := *u
	admin.Path = "/postgres"
	conn, err := pgx.Connect(ctx, admin.String())
	if err != nil {
		return "", nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	defer conn.Close(ctx) //nolint:errcheck // CREATE DATABASE has committed or failed already
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", nil, err
	}
	u.Path = "/" + name
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, admin.String())
		if err != nil {
			return
		}
		defer c.Close(ctx) //nolint:errcheck // the drop is best effort, as its Exec is
		_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	}
	return u.String(), drop, nil
}
