package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// The database refuses a status or collection step backwards, whatever code runs the UPDATE.
func TestDatabaseRefusesBackwardSteps(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	tr, err := e.App.CreateTransfer(e.Ctx(t, user), testkit.Caller(user), testkit.Input("k", pm, 50000))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	exec := func(sql string) error {
		_, err := e.Pool.Exec(ctx, sql, tr.ID())
		return err
	}
	steps := []struct {
		sql string
		ok  bool
	}{
		{`UPDATE transfers SET status = 'completed' WHERE id = $1`, false}, // skips processing
		{`UPDATE transfers SET status = 'processing' WHERE id = $1`, true},
		{`UPDATE transfers SET status = 'pending' WHERE id = $1`, false},
		{`UPDATE transfers SET status = 'completed', voucher_number = '1234567890', collection_status = 'awaiting_collection' WHERE id = $1`, true},
		{`UPDATE transfers SET status = 'processing' WHERE id = $1`, false},
		{`UPDATE transfers SET status = 'failed' WHERE id = $1`, false},
		{`UPDATE transfers SET collection_status = 'expired' WHERE id = $1`, true},
		{`UPDATE transfers SET collection_status = 'awaiting_collection' WHERE id = $1`, false},
		{`UPDATE transfers SET collection_status = 'cancelled' WHERE id = $1`, false},
	}
	for _, s := range steps {
		if err := exec(s.sql); (err == nil) != s.ok {
			t.Fatalf("%s: err = %v, want ok=%v", s.sql, err, s.ok)
		}
	}
}

// An update whose transfer changed status since it was read (impossible under the row lock,
// but guarded anyway) and a step the machine refuses both leave the row as it was.
func TestUpdateIsGuarded(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	tr, err := e.App.CreateTransfer(e.Ctx(t, user), testkit.Caller(user), testkit.Input("k", pm, 50000))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	now := e.Clock.Now()
	_, err = e.Repo.Update(ctx, uuid.Nil, tr.ID(), func(t *domain.Transfer) error { return t.Fail("x", now) })
	if !errors.Is(err, domain.ErrInvalidTransition) {
		t.Fatalf("pending → failed: %v", err)
	}
	// Another user's id cannot be updated through the scoped path.
	if _, err := e.Repo.Update(ctx, uuid.New(), tr.ID(), func(*domain.Transfer) error { return nil }); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("foreign update: %v", err)
	}
	// Nothing claimable while the lease holds; claimable again when it passes.
	if c, err := e.Repo.ClaimCharge(ctx, now, now.Add(time.Minute), nil); err != nil || c == nil || c.Status() != domain.StatusProcessing {
		t.Fatalf("claim: %v %v", c, err)
	}
	if c, err := e.Repo.ClaimCharge(ctx, now.Add(59*time.Second), now.Add(2*time.Minute), nil); err != nil || c != nil {
		t.Fatalf("claim under a live lease: %v %v", c, err)
	}
	if c, err := e.Repo.ClaimCharge(ctx, now.Add(time.Minute), now.Add(2*time.Minute), nil); err != nil || c == nil || c.Attempts() != 2 {
		t.Fatalf("claim after the lease: %v %v", c, err)
	}
}

// A voucher number already in use is reported so that the worker draws another.
func TestVoucherNumbersAreUnique(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	ctx := context.Background()
	now := e.Clock.Now()
	var ids []uuid.UUID
	for _, key := range []string{"a", "b"} {
		tr, err := e.App.CreateTransfer(e.Ctx(t, user), testkit.Caller(user), testkit.Input(key, pm, 50000))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Repo.ClaimCharge(ctx, now, now.Add(time.Minute), nil); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tr.ID())
	}
	v, err := domain.NewVoucher(e.PINs, ids[0], now, time.Hour) // one number for both: the second clashes
	if err != nil {
		t.Fatal(err)
	}
	complete := func(t *domain.Transfer) error { return t.Complete("ch", v, now) }
	if _, err := e.Repo.Update(ctx, uuid.Nil, ids[0], complete); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Repo.Update(ctx, uuid.Nil, ids[1], complete); !errors.Is(err, domain.ErrVoucherNumberTaken) {
		t.Fatalf("duplicate voucher number: %v", err)
	}
}

// The voucher's one way back, collected → awaiting collection, is open only to the reversal of
// the recorded request that collected it; its number changes only while it awaits collection.
func TestDatabaseAdmitsOnlyAReversalBack(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	tr, err := e.App.CreateTransfer(e.Ctx(t, user), testkit.Caller(user), testkit.Input("k", pm, 50000))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	exec := func(sql string) error {
		_, err := e.Pool.Exec(ctx, sql, tr.ID())
		return err
	}
	steps := []struct {
		sql string
		ok  bool
	}{
		{`UPDATE transfers SET status = 'processing' WHERE id = $1`, true},
		{`UPDATE transfers SET status = 'completed', voucher_number = '1234567890', collection_status = 'awaiting_collection' WHERE id = $1`, true},
		{`UPDATE transfers SET voucher_number = '1234567891' WHERE id = $1`, true}, // a re-issue
		{`UPDATE transfers SET collection_status = 'collected', collected_at = now(), collected_rrn = 'R1' WHERE id = $1`, true},
		{`UPDATE transfers SET voucher_number = '1234567892' WHERE id = $1`, false},
		// No recorded request collected it.
		{`UPDATE transfers SET collection_status = 'awaiting_collection', collected_at = NULL, collected_rrn = NULL WHERE id = $1`, false},
		{`INSERT INTO collection_requests (bank, retrieval_reference, stan, request_digest, transfer_id, outcome, amount_cents, atm_id, created_at)
			VALUES ('capitec', 'R1', '1', '\x00', $1, 'approved', 50000, 'ATM-1', now())`, true},
		// Recorded, not reversed.
		{`UPDATE transfers SET collection_status = 'awaiting_collection', collected_at = NULL, collected_rrn = NULL WHERE id = $1`, false},
		{`UPDATE collection_requests SET reversed_at = now() WHERE transfer_id = $1`, true},
		// Reversed, but the collection's traces kept, or the expiry moved.
		{`UPDATE transfers SET collection_status = 'awaiting_collection', collected_rrn = NULL WHERE id = $1`, false},
		{`UPDATE transfers SET collection_status = 'awaiting_collection', collected_at = NULL, collected_rrn = NULL,
			voucher_expires_at = now() + interval '30 days' WHERE id = $1`, false},
		{`UPDATE transfers SET collection_status = 'cancelled', collected_at = NULL, collected_rrn = NULL WHERE id = $1`, false},
		{`UPDATE transfers SET collection_status = 'awaiting_collection', collected_at = NULL, collected_rrn = NULL WHERE id = $1`, true},
		{`UPDATE transfers SET collection_status = 'expired' WHERE id = $1`, true},
		{`UPDATE transfers SET voucher_number = '1234567893' WHERE id = $1`, false},
		{`UPDATE transfers SET collection_status = 'awaiting_collection' WHERE id = $1`, false},
	}
	for _, s := range steps {
		if err := exec(s.sql); (err == nil) != s.ok {
			t.Fatalf("%s: err = %v, want ok=%v", s.sql, err, s.ok)
		}
	}
}

// The phone-history question every create asks (has the sender paid this phone?) is one
// probe of transfers_paid_phone_idx, not a walk through the sender's history: with thousands
// of the sender's completed transfers, and others', the planner reads the index alone.
func TestPaidPhoneLookupUsesItsIndex(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	tr, err := e.App.CreateTransfer(e.Ctx(t, user), testkit.Caller(user), testkit.Input("k", pm, 50000))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// History: 2,000 completed transfers of this sender to other phones, and 20,000 of other
	// senders, a few to this phone; copied from the first (no voucher: allowed for a bare row).
	if _, err := e.Pool.Exec(ctx, `INSERT INTO transfers SELECT r.*
		FROM transfers t, generate_series(2, 22000) g, LATERAL jsonb_populate_record(t, jsonb_build_object(
			'id', gen_random_uuid(), 'idempotency_key', 'h' || g, 'status', 'completed',
			'user_id', CASE WHEN g <= 2000 THEN t.user_id ELSE gen_random_uuid() END,
			'recipient_phone', CASE WHEN g > 2000 AND g % 1000 = 1 THEN t.recipient_phone ELSE '+2783' || lpad(g::text, 7, '0') END)) r
		WHERE t.id = $1`, tr.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Pool.Exec(ctx, `ANALYZE transfers`); err != nil {
		t.Fatal(err)
	}
	rows, err := e.Pool.Query(ctx, `EXPLAIN (FORMAT TEXT) SELECT EXISTS (SELECT 1 FROM transfers
		WHERE user_id = $1 AND recipient_phone = $2 AND status = 'completed')`, uuid.MustParse(user), "+27821234567")
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(lines, "\n")
	if !strings.Contains(plan, "transfers_paid_phone_idx") {
		t.Fatalf("the paid-phone look-up does not use its index:\n%s", plan)
	}
}
