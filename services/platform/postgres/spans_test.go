package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/thumela/thumela/services/platform/pgtest"
	"github.com/thumela/thumela/services/platform/postgres"
)

// An on-call engineer reading a query's span sees which server, database and role it ran
// against, although the pool computes those once rather than per query.
func TestQuerySpansNameTheirConnection(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	want, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	pool, err := postgres.Open(t.Context(), url, "spans", postgres.WithTracerProvider(tp), postgres.WithMaxConns(2))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(pool.Close)

	ctx, parent := tp.Tracer("test").Start(context.Background(), "request")
	var one int
	if err := pool.QueryRow(ctx, `SELECT 1`).Scan(&one); err != nil {
		t.Fatal(err)
	}
	parent.End()

	var query sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == "SELECT" {
			query = s
		}
	}
	if query == nil {
		t.Fatalf("no SELECT span among %d spans", len(rec.Ended()))
	}
	got := map[attribute.Key]attribute.Value{}
	for _, kv := range query.Attributes() {
		got[kv.Key] = kv.Value
	}
	for key, value := range map[attribute.Key]string{
		"db.system.name": "postgresql",
		"server.address": want.Host,
		"db.namespace":   want.Database,
		"user.name":      want.User,
		"db.query.text":  "SELECT 1",
	} {
		if got[key].AsString() != value {
			t.Errorf("span attribute %s = %q, want %q", key, got[key].String(), value)
		}
	}
	if got["server.port"].AsInt64() != int64(want.Port) {
		t.Errorf("server.port = %s, want %d", got["server.port"].String(), want.Port)
	}
}
