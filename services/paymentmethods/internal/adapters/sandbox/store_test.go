package sandbox_test

import (
	"testing"

	"github.com/thumela/thumela/services/paymentmethods/internal/adapters/postgres"
	"github.com/thumela/thumela/services/paymentmethods/internal/adapters/sandbox"
	"github.com/thumela/thumela/services/paymentmethods/internal/app"
	"github.com/thumela/thumela/services/paymentmethods/internal/domain"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/pgtest"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
)

// The sandbox's books in PostgreSQL: a saved record is found by its kind and key, a second save
// of the key (another process racing, or a restart) keeps and answers the first, and a key of
// another kind or none at all is not found.
func TestPostgresStoreKeepsTheFirstRecordOfAKey(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool, err := platformpg.Open(ctx, pgtest.NewDatabase(t), "paymentmethods", platformpg.WithMaxConns(2))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if err := platformpg.Migrate(ctx, pool, "paymentmethods", outbox.Migrations, postgres.Migrations); err != nil {
		t.Fatal(err)
	}
	store := sandbox.NewPostgresStore(pool)

	first := sandbox.Record{
		ProcessorRecord: app.ProcessorRecord{IdempotencyKey: "transfer-1", Kind: app.RecordCharge, Status: domain.StatusApproved, Amount: domain.Cents(1_500)},
		Reference:       "ch_sbx_1", Signature: "4242|12/30|1500",
	}
	saved, err := store.Save(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Reference != "ch_sbx_1" || saved.Signature != first.Signature || saved.CreatedAt.IsZero() {
		t.Fatalf("saved = %+v", saved)
	}
	second := first
	second.Reference, second.Signature = "ch_sbx_2", "4242|12/30|9900"
	kept, err := store.Save(ctx, second)
	if err != nil {
		t.Fatal(err)
	}
	if kept.Reference != "ch_sbx_1" || kept.Signature != first.Signature || !kept.CreatedAt.Equal(saved.CreatedAt) {
		t.Fatalf("a second save of the key answered %+v, want the first record", kept)
	}

	got, ok, err := store.Get(ctx, app.RecordCharge, "transfer-1")
	if err != nil || !ok || got.Reference != "ch_sbx_1" {
		t.Fatalf("Get = %+v, %v, %v", got, ok, err)
	}
	for _, miss := range []struct {
		kind app.ProcessorRecordKind
		key  string
	}{{app.RecordRefund, "transfer-1"}, {app.RecordCharge, "transfer-2"}} {
		if r, ok, err := store.Get(ctx, miss.kind, miss.key); err != nil || ok {
			t.Errorf("Get(%s, %s) = %+v, %v, %v; want none", miss.kind, miss.key, r, ok, err)
		}
	}
	// A key named twice is answered once; a key without a record adds nothing.
	found, err := store.Find(ctx, []string{"transfer-1", "transfer-2", "transfer-1"})
	if err != nil || len(found) != 1 || found[0].Reference != "ch_sbx_1" {
		t.Fatalf("Find = %+v, %v; want the one record of transfer-1", found, err)
	}
}
