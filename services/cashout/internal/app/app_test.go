package app_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/thumela/thumela/services/cashout/internal/app"
	"github.com/thumela/thumela/services/cashout/internal/domain"
)

// transfers is a hand-written fake: collect answers with collectRes/collectErr; reverse fails
// failReversals times, then succeeds.
type transfers struct {
	mu            sync.Mutex
	collectRes    domain.Collection
	collectErr    error
	failReversals int
	reversals     []domain.Reversal
	reversed      chan struct{} // closed at the first acknowledged reversal
	once          sync.Once
}

func (f *transfers) CollectVoucher(_ context.Context, _ domain.Withdrawal) (domain.Collection, error) {
	return f.collectRes, f.collectErr
}

func (f *transfers) ReverseCollection(_ context.Context, r domain.Reversal) (domain.ReversalResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reversals = append(f.reversals, r)
	if f.failReversals > 0 {
		f.failReversals--
		return domain.ReversalResult{}, domain.Unavailable(errors.New("down"))
	}
	if f.reversed != nil {
		f.once.Do(func() { close(f.reversed) })
	}
	return domain.ReversalResult{Reversed: true}, nil
}

func (f *transfers) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reversals)
}

func withdrawal() domain.Withdrawal {
	return domain.Withdrawal{Bank: domain.BankFNB, Amount: 50000, STAN: "000123", RRN: "632908000123"}
}

func newService(t *testing.T, f *transfers) *app.Service {
	t.Helper()
	svc, err := app.New(f, app.Config{Timeout: time.Second, StandInRetry: 10 * time.Millisecond, StandInWindow: 5 * time.Second}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func wait(t *testing.T, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("no stand-in reversal")
	}
}

func TestUnknownOutcomeIsReversedUntilAcknowledged(t *testing.T) {
	t.Parallel()
	f := &transfers{collectErr: domain.Unavailable(context.DeadlineExceeded), failReversals: 2, reversed: make(chan struct{})}
	svc := newService(t, f)
	_, err := svc.Withdraw(t.Context(), withdrawal())
	if !errors.Is(err, domain.ErrIssuerUnavailable) {
		t.Fatalf("Withdraw = %v", err)
	}
	wait(t, f.reversed)
	if n := f.count(); n != 3 {
		t.Errorf("%d attempts, want 3 (two failed, one acknowledged)", n)
	}
	f.mu.Lock()
	first := f.reversals[0]
	f.mu.Unlock()
	if r := first; r != withdrawal().Reversal() {
		t.Errorf("reversal %+v", r)
	}
	if err := svc.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func TestAnotherAmountApprovedIsReversedAndRefused(t *testing.T) {
	t.Parallel()
	f := &transfers{collectRes: domain.Collection{TransferID: "t1", Amount: 60000}, reversed: make(chan struct{})}
	svc := newService(t, f)
	_, err := svc.Withdraw(t.Context(), withdrawal())
	var refused *domain.RefusedError
	if !errors.As(err, &refused) || refused.Reason != domain.ReasonWrongAmount {
		t.Fatalf("Withdraw = %v, want a wrong-amount refusal", err)
	}
	wait(t, f.reversed)
}

func TestRefusalsAndApprovalsAreNotReversed(t *testing.T) {
	t.Parallel()
	for _, f := range []*transfers{
		{collectErr: domain.Refused(domain.ReasonWrongCredentials)},
		{collectErr: errors.New("internal")},
		{collectRes: domain.Collection{TransferID: "t1", Amount: 50000}},
	} {
		svc := newService(t, f)
		_, _ = svc.Withdraw(t.Context(), withdrawal())
		if err := svc.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		if n := f.count(); n != 0 {
			t.Errorf("%d reversals after %v", n, f.collectErr)
		}
	}
}

// At shutdown the gateway waits for stand-in reversals until its deadline, then abandons them.
func TestCloseAbandonsAtTheDeadline(t *testing.T) {
	t.Parallel()
	f := &transfers{collectErr: domain.Unavailable(errors.New("down")), failReversals: 1 << 30}
	svc := newService(t, f)
	_, _ = svc.Withdraw(t.Context(), withdrawal())
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := svc.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Close took %v", took)
	}
	// After Close, an unknown outcome is not retried in the background.
	before := f.count()
	_, _ = svc.Withdraw(t.Context(), withdrawal())
	time.Sleep(50 * time.Millisecond)
	if f.count() != before {
		t.Errorf("a stand-in reversal started after Close")
	}
}
