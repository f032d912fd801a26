package pgtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestNameRoundTrip(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_760_000_000, 0)
	name := newName(now)
	if !strings.HasPrefix(name, Prefix) || len(name) > 63 {
		t.Fatalf("newName = %q: wrong prefix or longer than an identifier", name)
	}
	if newName(now) == name {
		t.Fatal("two names made in the same second are equal")
	}
	tests := []struct {
		name   string
		want   time.Time
		wantOK bool
	}{
		{name, now, true},
		{"thumela_test_abc", time.Time{}, false},
		{"thumela_test_x_abc", time.Time{}, false},
		{"other_1760000000_abc", time.Time{}, false},
	}
	for _, tt := range tests {
		got, ok := createdAt(tt.name)
		if ok != tt.wantOK || !got.Equal(tt.want) {
			t.Errorf("createdAt(%q) = %v, %v; want %v, %v", tt.name, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestSweepLeftoversDropsOnlyOldOnes(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) }) // after the drops below (LIFO)

	old := newName(time.Now().Add(-2 * leftoverAge))
	recent := newName(time.Now().Add(-leftoverAge / 2))
	for _, name := range []string{old, recent} {
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_, _ = conn.Exec(context.Background(), "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
		})
	}
	sweepLeftovers(ctx, conn)

	for name, want := range map[string]bool{old: false, recent: true} {
		var exists bool
		if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
			t.Fatal(err)
		}
		if exists != want {
			t.Errorf("database %s exists = %v, want %v", name, exists, want)
		}
	}
}
