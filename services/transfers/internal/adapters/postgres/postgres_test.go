package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// The database refuses a status or collection step backwards, whatever code runs the UPDATE.
func TestDatabaseRefusesBackwardSteps(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	tr, err := e.App.CreateTransfer(e.Ctx(t, user), testkit.Caller(user), "", testkit.Input("k", pm, 50000))
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
	tr, err := e.App.CreateTransfer(e.Ctx(t, user), testkit.Caller(user), "", testkit.Input("k", pm, 50000))
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
		tr, err := e.App.CreateTransfer(e.Ctx(t, user), testkit.Caller(user), "", testkit.Input(key, pm, 50000))
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
