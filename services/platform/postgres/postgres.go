package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/exaring/otelpgx"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	pgxuuid "github.com/vgarvardt/pgx-google-uuid/v5"
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
)

// ErrInvalidSchema is returned when a schema name is not a plain lower-case identifier.
// Schema names are interpolated into SQL (search_path, CREATE SCHEMA, LISTEN channels), so
// they are restricted to a safe alphabet instead of being escaped case by case.
var ErrInvalidSchema = errors.New("postgres: invalid schema name")

// ErrUnreachable is returned by Open when the database did not answer within the wait budget.
var ErrUnreachable = errors.New("postgres: database unreachable")

var schemaPattern = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// ValidateSchema reports whether schema is usable as a service schema: 1 to 63 characters
// of a-z, 0-9 and _, not starting with a digit, and not one of PostgreSQL's own schemas.
func ValidateSchema(schema string) error {
	if !schemaPattern.MatchString(schema) || strings.HasPrefix(schema, "pg_") ||
		schema == "information_schema" || schema == "public" {
		return fmt.Errorf("%w: %q", ErrInvalidSchema, schema)
	}
	return nil
}

// Defaults used when neither the URL (pool_max_conns, pool_min_conns, …) nor an Option says
// otherwise. They keep five services with a few replicas each well under PostgreSQL's default
// max_connections of 100.
const (
	DefaultMaxConns        = 10
	DefaultMinConns        = 1
	DefaultMaxConnIdleTime = 5 * time.Minute
	DefaultMaxConnLifetime = time.Hour
	DefaultWait            = 30 * time.Second
)

type options struct {
	maxConns int32
	minConns int32
	wait     time.Duration
	logger   *slog.Logger
	tp       trace.TracerProvider
}

// Option tunes Open.
type Option func(*options)

// WithMaxConns overrides the pool's maximum size (the URL's pool_max_conns wins over the
// default but not over this option).
func WithMaxConns(n int32) Option { return func(o *options) { o.maxConns = n } }

// WithMinConns overrides the number of connections kept open while idle.
func WithMinConns(n int32) Option { return func(o *options) { o.minConns = n } }

// WithWait sets how long Open keeps retrying the first ping (default 30 s). The dev stack
// starts PostgreSQL and the services together, so the first attempts are expected to fail.
func WithWait(d time.Duration) Option { return func(o *options) { o.wait = d } }

// WithLogger sets the logger for connection retries (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithTracerProvider sets the tracer provider for query spans (default: the global one).
func WithTracerProvider(tp trace.TracerProvider) Option { return func(o *options) { o.tp = tp } }

// Open returns a pool whose connections are traced with OpenTelemetry and whose search_path
// is schema alone, creating the schema if it does not exist. It retries the first ping with
// backoff for up to 30 s (see WithWait) and fails with ErrUnreachable after that.
//
// Pool sizes come from the URL's pool_* parameters when present, otherwise from the
// Default* constants; Options override both.
func Open(ctx context.Context, databaseURL, schema string, opts ...Option) (*pgxpool.Pool, error) {
	if err := ValidateSchema(schema); err != nil {
		return nil, err
	}
	o := options{wait: DefaultWait, logger: slog.Default()}
	for _, opt := range opts {
		opt(&o)
	}

	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		// The parse error may echo the URL, password included; keep only its kind.
		return nil, errors.New("postgres: cannot parse database URL")
	}
	if !strings.Contains(databaseURL, "pool_max_conns") {
		cfg.MaxConns = DefaultMaxConns
	}
	if !strings.Contains(databaseURL, "pool_min_conns") {
		cfg.MinConns = DefaultMinConns
	}
	if !strings.Contains(databaseURL, "pool_max_conn_idle_time") {
		cfg.MaxConnIdleTime = DefaultMaxConnIdleTime
	}
	if !strings.Contains(databaseURL, "pool_max_conn_lifetime") {
		cfg.MaxConnLifetime = DefaultMaxConnLifetime
	}
	if o.maxConns > 0 {
		cfg.MaxConns = o.maxConns
	}
	if o.minConns > 0 {
		cfg.MinConns = o.minConns
	}
	cfg.MinConns = min(cfg.MinConns, cfg.MaxConns)
	// The schema is validated above, so quoting is belt and braces; it keeps the name exact.
	cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{schema}.Sanitize()
	// Each service's connections say whose they are (pg_stat_activity, the server's log with
	// %a, the bench's CPU per service), unless the URL names them itself.
	if _, named := cfg.ConnConfig.RuntimeParams["application_name"]; !named {
		cfg.ConnConfig.RuntimeParams["application_name"] = schema
	}
	// Span names are the statement's first word (otelpgx's default), never the whole SQL.
	// otelpgx reads a span's connection attributes from a copy of the whole configuration
	// (TLS settings included) on every query and every pool acquire, which profiles showed at
	// 3–5 % of a service's CPU under load; they are the pool's and never change, so they are
	// computed here once and the per-span lookup is turned off.
	tracerOpts := []otelpgx.Option{
		otelpgx.WithDisableConnectionDetailsInAttributes(),
		otelpgx.WithTracerAttributes(connectionAttributes(cfg.ConnConfig)...),
	}
	if o.tp != nil {
		tracerOpts = append(tracerOpts, otelpgx.WithTracerProvider(o.tp))
	}
	cfg.ConnConfig.Tracer = otelpgx.NewTracer(tracerOpts...)

	cfg.AfterConnect = encodeUUIDsDirectly

	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: create pool: %w", err)
	}
	if err := pingWithRetry(ctx, pool, o.wait, o.logger); err != nil {
		pool.Close()
		return nil, err
	}
	if err := createSchema(ctx, pool, schema); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}

// pingWithRetry waits for the database with exponential backoff (100 ms doubling, capped at
// 2 s) so that a service started together with PostgreSQL does not crash-loop.
func pingWithRetry(ctx context.Context, pool *pgxpool.Pool, wait time.Duration, logger *slog.Logger) error {
	deadline := time.Now().Add(wait)
	delay := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := pool.Ping(pingCtx)
		cancel()
		if err == nil {
			if attempt > 1 {
				logger.InfoContext(ctx, "postgres reachable", "attempts", attempt)
			}
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %w", ErrUnreachable, ctx.Err())
		}
		if time.Now().Add(delay).After(deadline) {
			return fmt.Errorf("%w after %s: %w", ErrUnreachable, wait, err)
		}
		if attempt == 1 {
			logger.WarnContext(ctx, "postgres not reachable yet, retrying", "error", err, "wait", wait)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", ErrUnreachable, ctx.Err())
		case <-time.After(delay):
		}
		delay = min(delay*2, 2*time.Second)
	}
}

// dbExecer is the Exec method shared by pools, connections and transactions.
type dbExecer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// createSchema creates the service's schema if needed. Two replicas racing through
// CREATE SCHEMA IF NOT EXISTS can still collide on the catalog's unique index; the loser's
// error only means the schema now exists, so it is ignored.
func createSchema(ctx context.Context, db dbExecer, schema string) error {
	_, err := db.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize())
	if _, dup := IsUniqueViolation(err); dup || isCode(err, codeDuplicateSchema) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("postgres: create schema %s: %w", schema, err)
	}
	return nil
}

// connectionAttributes are the attributes otelpgx would give every span of a connection made
// with cfg: where the server is, and as whom and in which database the service works.
func connectionAttributes(cfg *pgx.ConnConfig) []attribute.KeyValue {
	return []attribute.KeyValue{
		semconv.ServerAddress(cfg.Host),
		semconv.ServerPort(int(cfg.Port)),
		semconv.UserName(cfg.User),
		semconv.DBNamespace(cfg.Database),
	}
}

// encodeUUIDsDirectly has the connection send a github.com/google/uuid value as the 16 bytes
// it is. Without it pgx takes the type's database/sql Valuer: the UUID formatted as a string,
// then parsed back into bytes, for every id of every statement (6 % of the transfers service's
// CPU in the bench's profile). Scanning is left as it was: a NULL scanned into a uuid.UUID
// stays the zero UUID, as the services' code expects.
func encodeUUIDsDirectly(_ context.Context, conn *pgx.Conn) error {
	m := conn.TypeMap()
	m.TryWrapEncodePlanFuncs = append([]pgtype.TryWrapEncodePlanFunc{pgxuuid.TryWrapUUIDEncodePlan}, m.TryWrapEncodePlanFuncs...)
	return nil
}
