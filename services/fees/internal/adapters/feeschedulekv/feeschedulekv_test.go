package feeschedulekv_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/thumela/thumela/services/fees/internal/adapters/feeschedulekv"
	"github.com/thumela/thumela/services/fees/internal/adapters/postgres"
	"github.com/thumela/thumela/services/fees/internal/app"
	"github.com/thumela/thumela/services/fees/internal/testkit"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/feeschedule"
	"github.com/thumela/thumela/services/platform/natstest"
)

// waitSchedule waits until the bucket holds a schedule with a version above after.
func waitSchedule(t *testing.T, kv jetstream.KeyValue, after int64) feeschedule.Schedule {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if e, err := kv.Get(t.Context(), feeschedule.Key); err == nil {
			s, err := feeschedule.Decode(e.Value())
			if err != nil {
				t.Fatal(err)
			}
			if s.Version > after {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no fee schedule newer than version %d was published", after)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Fees publishes the whole schedule at its start, under its own NATS credentials, and again
// with a higher version after bank_fees changes; a second replica never puts an older version
// back.
func TestFeeSchedulePublishedAtStartAndOnChange(t *testing.T) {
	t.Parallel()
	pool := testkit.NewPool(t)
	srv := natstest.Start(t)
	_, feesJS := srv.Connect(t, "fees")
	_, transfersJS := srv.Connect(t, "transfers")
	run := func(ctx context.Context) chan error {
		p := &app.SchedulePublisher{Source: postgres.NewBankFees(pool), Writer: feeschedulekv.New(feesJS, 1, testkit.DiscardLogger),
			Interval: 50 * time.Millisecond, Logger: testkit.DiscardLogger}
		done := make(chan error, 1)
		go func() { done <- p.Run(ctx) }()
		return done
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := run(ctx)
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			cancel()
			<-done //nolint:errcheck // the watcher's error after cancel is the cancellation
		}
	})

	// Transfers reads the bucket as it will in production: with its own, read-only identity.
	var kv jetstream.KeyValue
	deadline := time.Now().Add(15 * time.Second)
	for {
		var err error
		if kv, err = transfersJS.KeyValue(t.Context(), bus.BucketFeeSchedule); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the bucket was not created: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	first := waitSchedule(t, kv, 0)
	if len(first.Banks) != 5 || first.PublishedAt.IsZero() {
		t.Fatalf("first schedule = %+v, want the five seeded banks", first)
	}
	if p, err := first.Price("absa", 10000); err != nil || p.BankFeeCents != 850 || p.PlatformFeeCents != 30 {
		t.Fatalf("ABSA R100 = %+v %v, want 850 + 30 c", p, err)
	}

	if _, err := pool.Exec(t.Context(), `UPDATE bank_fees SET base_fee_cents = 900 WHERE bank = 'absa'`); err != nil {
		t.Fatal(err)
	}
	second := waitSchedule(t, kv, first.Version)
	if second.Version != first.Version+1 {
		t.Fatalf("version after one change = %d, want %d", second.Version, first.Version+1)
	}
	if p, _ := second.Price("absa", 10000); p.BankFeeCents != 900 {
		t.Fatalf("ABSA after the change = %+v, want 900 c", p)
	}

	// A restarted (or second) replica finds the same version there and writes nothing.
	cancel()
	<-done //nolint:errcheck // the watcher's error after cancel is the cancellation
	stopped = true
	before, err := kv.Get(t.Context(), feeschedule.Key)
	if err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	done2 := run(ctx2)
	time.Sleep(300 * time.Millisecond)
	cancel2()
	<-done2 //nolint:errcheck // the watcher's error after cancel is the cancellation
	after, err := kv.Get(t.Context(), feeschedule.Key)
	if err != nil {
		t.Fatal(err)
	}
	if after.Revision() != before.Revision() {
		t.Fatalf("a replica republished an unchanged schedule (revision %d -> %d)", before.Revision(), after.Revision())
	}
}
