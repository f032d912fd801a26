package postgres_test

import (
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/fees/internal/adapters/postgres"
	"github.com/thumela/thumela/services/fees/internal/app"
	"github.com/thumela/thumela/services/fees/internal/domain"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/pgtest"
)

func TestTransferHistory(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t, "fees", outbox.Migrations, postgres.Migrations)
	h := postgres.NewTransferHistory(pool)
	ctx := t.Context()
	user, first, second := uuid.NewString(), uuid.NewString(), uuid.NewString()
	has := func() bool {
		t.Helper()
		ok, err := h.HasTransferred(ctx, user)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	record := func(id string, s domain.TransferStatus) {
		t.Helper()
		if err := h.Record(ctx, id, user, s); err != nil {
			t.Fatal(err)
		}
	}
	if has() {
		t.Fatal("a new user has transferred")
	}
	record(first, domain.TransferPending)
	if !has() {
		t.Fatal("a pending transfer does not count")
	}
	record(first, domain.TransferProcessing)
	record(first, domain.TransferFailed)
	if has() {
		t.Fatal("a failed transfer counts")
	}
	// Redelivered older events do not bring it back.
	record(first, domain.TransferPending)
	record(first, domain.TransferProcessing)
	if has() {
		t.Fatal("a redelivered pending event undid the failure")
	}
	record(second, domain.TransferProcessing) // its pending event was lost or is late
	version := func() (xmin string) {
		t.Helper()
		if err := pool.QueryRow(ctx, `SELECT xmin::text FROM sender_transfers WHERE transfer_id = $1`, second).Scan(&xmin); err != nil {
			t.Fatal(err)
		}
		return xmin
	}
	before := version()
	record(second, domain.TransferCompleted)
	record(second, domain.TransferCompleted) // and again
	if !has() {
		t.Fatal("a completed transfer does not count")
	}
	// Completion changes nothing the waiver reads: the row is not written again.
	if after := version(); after != before {
		t.Errorf("the row was rewritten by its completion (xmin %s → %s)", before, after)
	}
	if ok, err := h.HasTransferred(ctx, "service:transfers"); ok || err != nil {
		t.Fatalf("a non-user subject: %v %v", ok, err)
	}
	if err := h.Record(ctx, "nope", user, domain.TransferPending); !errors.Is(err, app.ErrInvalidEvent) {
		t.Fatalf("bad transfer id: %v", err)
	}
}
