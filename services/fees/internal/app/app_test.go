package app_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
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
			q, err := app.New(tt.fees, discard).Quote(t.Context(), tt.bank, domain.Cents(10000))
			if err != nil {
				t.Fatal(err)
			}
			if q.BankFee.Cents() != tt.wantBankFee || q.Fallback != tt.wantFallback {
				t.Fatalf("quote = %+v, want bank fee %d fallback %v", q, tt.wantBankFee, tt.wantFallback)
			}
		})
	}
}

func TestQuoteRefusesBadAmountWithoutLookup(t *testing.T) {
	t.Parallel()
	_, err := app.New(fakeFees{err: errors.New("must not be called")}, discard).
		Quote(t.Context(), domain.ABSA, domain.Cents(0))
	if !errors.Is(err, domain.ErrInvalidAmount) {
		t.Fatalf("Quote(0) = %v, want ErrInvalidAmount", err)
	}
}

func TestListBanksInProductOrder(t *testing.T) {
	t.Parallel()
	banks, err := app.New(seeded, discard).ListBanks(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(banks) != 2 || banks[0].Bank != domain.ABSA || banks[1].Bank != domain.Capitec {
		t.Fatalf("ListBanks = %+v, want ABSA then Capitec", banks)
	}
}
