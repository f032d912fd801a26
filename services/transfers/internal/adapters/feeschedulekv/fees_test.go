package feeschedulekv_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/feeschedule"
	"github.com/thumela/thumela/services/platform/natstest"
	"github.com/thumela/thumela/services/transfers/internal/adapters/feeschedulekv"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// seed is the fees service's seed schedule at version v, with Capitec's base fee capitec.
func seed(v, capitec int64) feeschedule.Schedule {
	return feeschedule.Schedule{Version: v, PublishedAt: time.Now(), Banks: []feeschedule.BankFee{
		{Bank: "standard_bank", DisplayName: "Standard Bank", BaseFeeCents: 1095, PercentageBps: 30},
		{Bank: "absa", DisplayName: "ABSA", BaseFeeCents: 850, PercentageBps: 30},
		{Bank: "fnb", DisplayName: "FNB", BaseFeeCents: 1095, PercentageBps: 30},
		{Bank: "nedbank", DisplayName: "Nedbank", BaseFeeCents: 850, PercentageBps: 30},
		{Bank: "capitec", DisplayName: "Capitec", BaseFeeCents: capitec, PercentageBps: 30},
	}}
}

// publisher writes the bucket as the fees service (its own NATS identity) does.
type publisher struct{ kv jetstream.KeyValue }

func newPublisher(t *testing.T, srv *natstest.Server) publisher {
	t.Helper()
	_, js := srv.Connect(t, "fees")
	kv, err := js.CreateOrUpdateKeyValue(t.Context(), bus.FeeScheduleBucket(1))
	if err != nil {
		t.Fatal(err)
	}
	return publisher{kv: kv}
}

func (p publisher) put(t *testing.T, data []byte) {
	t.Helper()
	if _, err := p.kv.Put(t.Context(), feeschedule.Key, data); err != nil {
		t.Fatal(err)
	}
}

func (p publisher) publish(t *testing.T, s feeschedule.Schedule) {
	t.Helper()
	data, err := feeschedule.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	p.put(t, data)
}

// watch runs f's watch as transfers until the test ends.
func watch(t *testing.T, srv *natstest.Server, f *feeschedulekv.Fees) {
	t.Helper()
	_, js := srv.Connect(t, "transfers")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.Watch(ctx, js) }()
	t.Cleanup(func() { cancel(); <-done }) //nolint:errcheck // the follower's error after cancel is the cancellation
}

func quote(t *testing.T, f *feeschedulekv.Fees, bank domain.Bank, amount int64) domain.Quote {
	t.Helper()
	q, err := f.Quote(t.Context(), bank, domain.Cents(amount))
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// Before any schedule (the bucket does not even exist: fees has not started) a quote is fees'
// Quote; once fees publishes, quotes are computed here with the schedule's version and fees is
// not called; a change is used from its version on.
func TestPricesFromTheScheduleOnceItArrives(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	remote := testkit.NewFakeFees()
	f := feeschedulekv.New(remote, testkit.Discard)
	watch(t, srv, f)

	if q := quote(t, f, domain.Capitec, 50000); q.ScheduleVersion != 0 || q.BankFee.Cents() != 1000 || remote.Calls() != 1 {
		t.Fatalf("before any schedule: %+v after %d calls, want fees' quote", q, remote.Calls())
	}
	if _, ok := f.LocalQuote(domain.Capitec, domain.Cents(50000)); ok {
		t.Fatal("a local quote before any schedule")
	}

	p := newPublisher(t, srv)
	p.publish(t, seed(1, 1000))
	testkit.Eventually(t, 10*time.Second, "schedule 1 held", func() bool { return f.Version() == 1 })
	for _, tt := range []struct {
		bank                    domain.Bank
		amount, bankFee, platfm int64
	}{
		{domain.Capitec, 50000, 1000, 150},
		{domain.ABSA, 10000, 850, 30},
		{domain.StandardBank, 167, 1095, 1},
		{domain.Bank("bogus"), 10000, 1000, 30}, // the fallback, as fees' Quote gives it
	} {
		q := quote(t, f, tt.bank, tt.amount)
		if q.BankFee.Cents() != tt.bankFee || q.PlatformFee.Cents() != tt.platfm || q.ScheduleVersion != 1 || q.Waived {
			t.Errorf("%s %d c = %+v, want %d + %d c at version 1", tt.bank, tt.amount, q, tt.bankFee, tt.platfm)
		}
	}
	if local, ok := f.LocalQuote(domain.Capitec, domain.Cents(50000)); !ok || local != quote(t, f, domain.Capitec, 50000) {
		t.Errorf("local quote = %+v, %v; want Quote's", local, ok)
	}
	if _, ok := f.LocalQuote(domain.Capitec, domain.Cents(-100)); ok {
		t.Error("a local quote for an amount the schedule cannot price")
	}
	if remote.Calls() != 1 {
		t.Fatalf("fees was called %d times, want only the first quote", remote.Calls())
	}

	p.publish(t, seed(2, 1200))
	testkit.Eventually(t, 10*time.Second, "schedule 2 held", func() bool { return f.Version() == 2 })
	if q := quote(t, f, domain.Capitec, 50000); q.BankFee.Cents() != 1200 || q.ScheduleVersion != 2 {
		t.Fatalf("after the change: %+v, want 1200 c at version 2", q)
	}

	// An older version (a lagging fees replica) and an unreadable value change nothing.
	p.publish(t, seed(1, 1000))
	p.put(t, []byte("not a schedule \xff"))
	p.publish(t, seed(3, 1300))
	testkit.Eventually(t, 10*time.Second, "schedule 3 held", func() bool { return f.Version() == 3 })
	if q := quote(t, f, domain.Capitec, 50000); q.BankFee.Cents() != 1300 {
		t.Fatalf("after 3: %+v", q)
	}

	// Withdrawn: back to fees' Quote.
	if err := p.kv.Delete(t.Context(), feeschedule.Key); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 10*time.Second, "schedule dropped", func() bool { return f.Version() == 0 })
	if q := quote(t, f, domain.Capitec, 50000); q.ScheduleVersion != 0 || remote.Calls() != 2 {
		t.Fatalf("after the withdrawal: %+v after %d calls", q, remote.Calls())
	}
}

// Set never goes back to an older version.
func TestSetKeepsTheNewest(t *testing.T) {
	t.Parallel()
	f := feeschedulekv.New(testkit.NewFakeFees(), testkit.Discard)
	if !f.Set(seed(5, 1000)) || f.Set(seed(4, 1000)) || f.Set(seed(5, 999)) || f.Version() != 5 {
		t.Fatalf("version %d", f.Version())
	}
}
