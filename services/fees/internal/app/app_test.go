package app_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/thumela/thumela/services/fees/internal/app"
	"github.com/thumela/thumela/services/fees/internal/domain"
)

type fakeFees struct {
	rows map[domain.Bank]domain.BankFee
	err  error
}

func (f fakeFees) List(context.Context) ([]domain.BankFee, error) {
	var out []domain.BankFee
	for _, r := range f.rows {
		out = append(out, r)
	}
	return out, f.err
}

func (f fakeFees) Get(_ context.Context, b domain.Bank) (domain.BankFee, error) {
	if f.err != nil {
		return domain.BankFee{}, f.err
	}
	r, ok := f.rows[b]
	if !ok {
		return domain.BankFee{}, app.ErrBankNotFound
	}
	return r, nil
}

type fakeHistory struct {
	before bool
	err    error
}

func (h fakeHistory) HasTransferred(context.Context, string) (bool, error) { return h.before, h.err }

func (h fakeHistory) Record(context.Context, string, string, domain.TransferStatus) error {
	return h.err
}

var (
	discard = slog.New(slog.NewTextHandler(io.Discard, nil))
	seeded  = fakeFees{rows: map[domain.Bank]domain.BankFee{
		domain.Capitec: {Bank: domain.Capitec, DisplayName: "Capitec", BaseFee: domain.Cents(1000), PercentageBps: 30},
		domain.ABSA:    {Bank: domain.ABSA, DisplayName: "ABSA", BaseFee: domain.Cents(850), PercentageBps: 30},
	}}
)

func TestQuote(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		fees         fakeFees
		bank         domain.Bank
		wantBankFee  int64
		wantFallback bool
	}{
		{"known bank", seeded, domain.ABSA, 850, false},
		{"bank without a row", seeded, domain.FNB, 1000, true},
		{"unknown bank", seeded, domain.Bank("bogus"), 1000, true},
		{"unspecified bank", seeded, "", 1000, true},
		{"lookup fails", fakeFees{err: errors.New("connection refused")}, domain.ABSA, 1000, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			q, err := app.New(tt.fees, nil, discard).Quote(t.Context(), "u", tt.bank, domain.Cents(10000))
			if err != nil {
				t.Fatal(err)
			}
			if q.BankFee.Cents() != tt.wantBankFee || q.Fallback != tt.wantFallback || q.Waived {
				t.Fatalf("quote = %+v, want bank fee %d fallback %v, not waived", q, tt.wantBankFee, tt.wantFallback)
			}
		})
	}
}

func TestQuoteRefusesBadAmountWithoutLookup(t *testing.T) {
	t.Parallel()
	_, err := app.New(fakeFees{err: errors.New("must not be called")}, nil, discard).
		Quote(t.Context(), "u", domain.ABSA, domain.Cents(0))
	if !errors.Is(err, domain.ErrInvalidAmount) {
		t.Fatalf("Quote(0) = %v, want ErrInvalidAmount", err)
	}
}

func TestQuoteWaiverFromHistory(t *testing.T) {
	t.Parallel()
	first, err := app.New(seeded, fakeHistory{before: false}, discard).Quote(t.Context(), "u", domain.ABSA, domain.Cents(10000))
	if err != nil {
		t.Fatal(err)
	}
	if !first.Waived || first.TotalFee().Cents() != 0 || first.WaivedFee().Cents() != 880 {
		t.Fatalf("first transfer quote = %+v, want waived 880 c", first)
	}
	later, err := app.New(seeded, fakeHistory{before: true}, discard).Quote(t.Context(), "u", domain.ABSA, domain.Cents(10000))
	if err != nil {
		t.Fatal(err)
	}
	if later.Waived || later.TotalFee().Cents() != 880 {
		t.Fatalf("later transfer quote = %+v, want 880 c charged", later)
	}
	boom := errors.New("history down")
	if _, err := app.New(seeded, fakeHistory{err: boom}, discard).Quote(t.Context(), "u", domain.ABSA, domain.Cents(10000)); !errors.Is(err, boom) {
		t.Fatalf("Quote with failing history = %v, want its error", err)
	}
}

func TestListBanksInProductOrder(t *testing.T) {
	t.Parallel()
	banks, err := app.New(seeded, nil, discard).ListBanks(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(banks) != 2 || banks[0].Bank != domain.ABSA || banks[1].Bank != domain.Capitec {
		t.Fatalf("ListBanks = %+v, want ABSA then Capitec", banks)
	}
}

func TestRecordTransferRefusesWhatCanNeverBeRecorded(t *testing.T) {
	t.Parallel()
	svc := app.New(seeded, fakeHistory{}, discard)
	for _, tt := range []struct{ id, user, status string }{
		{"", "u", "pending"}, {"t", "", "pending"}, {"t", "u", ""}, {"t", "u", "refunded"},
	} {
		if err := svc.RecordTransfer(t.Context(), tt.id, tt.user, domain.TransferStatus(tt.status)); !errors.Is(err, app.ErrInvalidEvent) {
			t.Errorf("RecordTransfer(%+v) = %v, want ErrInvalidEvent", tt, err)
		}
	}
	if err := svc.RecordTransfer(t.Context(), "t", "u", domain.TransferCompleted); err != nil {
		t.Fatal(err)
	}
}

// writesHistory records what reaches the history's store.
type writesHistory struct {
	fakeHistory
	mu     sync.Mutex
	writes []string // "transfer status"
	fail   bool
}

func (h *writesHistory) Record(_ context.Context, transferID, _ string, status domain.TransferStatus) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fail {
		return errors.New("database down")
	}
	h.writes = append(h.writes, transferID+" "+string(status))
	return nil
}

// A transfer recorded as not failed is not written again for steps that change nothing the
// waiver reads; a failure always is, and so is a transfer the service does not remember: one it
// never saw pending, one whose write failed, or one it has forgotten for newer ones.
func TestRecordTransferWritesWhatCanChangeTheHistory(t *testing.T) {
	t.Parallel()
	h := &writesHistory{}
	svc := app.New(seeded, h, discard)
	record := func(id string, s domain.TransferStatus) {
		t.Helper()
		if err := svc.RecordTransfer(t.Context(), id, "u", s); err != nil {
			t.Fatal(err)
		}
	}
	record("t1", domain.TransferPending)
	record("t1", domain.TransferProcessing)
	record("t1", domain.TransferCompleted)
	record("t2", domain.TransferPending)
	record("t2", domain.TransferProcessing)
	record("t2", domain.TransferFailed)
	record("t3", domain.TransferCompleted) // its pending event was lost or is late
	record("t3", domain.TransferCompleted)
	want := []string{"t1 pending", "t2 pending", "t2 failed", "t3 completed"}
	if !slices.Equal(h.writes, want) {
		t.Fatalf("writes = %q, want %q", h.writes, want)
	}

	h.fail = true
	if err := svc.RecordTransfer(t.Context(), "t4", "u", domain.TransferPending); err == nil {
		t.Fatal("a failed write was not reported")
	}
	h.fail = false
	record("t4", domain.TransferProcessing) // not remembered: the pending write failed
	if last := h.writes[len(h.writes)-1]; last != "t4 processing" {
		t.Fatalf("last write = %q, want t4 processing", last)
	}
	for i := range 10_000 {
		record(fmt.Sprintf("other-%d", i), domain.TransferPending)
	}
	h.writes = nil
	record("t1", domain.TransferCompleted) // forgotten among 10,000 newer transfers
	if want := []string{"t1 completed"}; !slices.Equal(h.writes, want) {
		t.Fatalf("writes = %q, want %q", h.writes, want)
	}
}
