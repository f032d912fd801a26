package grpcport_test

import (
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/fees/internal/testkit"
)

func TestListBanksReturnsTheSeededSchedules(t *testing.T) {
	t.Parallel()
	e := testkit.Start(t)
	res, err := e.Client.ListBanks(e.Ctx, &feesv1.ListBanksRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		bank feesv1.Bank
		name string
		base int64
		bps  int32
	}{
		{feesv1.Bank_BANK_STANDARD_BANK, "Standard Bank", 1095, 30},
		{feesv1.Bank_BANK_ABSA, "ABSA", 850, 30},
		{feesv1.Bank_BANK_FNB, "FNB", 1095, 30},
		{feesv1.Bank_BANK_NEDBANK, "Nedbank", 850, 30},
		{feesv1.Bank_BANK_CAPITEC, "Capitec", 1000, 30},
	}
	if len(res.GetBanks()) != len(want) {
		t.Fatalf("banks = %v", res.GetBanks())
	}
	for i, w := range want {
		b := res.GetBanks()[i]
		if b.GetBank() != w.bank || b.GetDisplayName() != w.name || b.GetBaseFeeCents() != w.base || b.GetPercentageFeeBps() != w.bps {
			t.Errorf("bank %d = %v, want %+v", i, b, w)
		}
	}
}

func TestQuote(t *testing.T) {
	t.Parallel()
	e := testkit.Start(t)
	tests := []struct {
		name                                  string
		bank                                  feesv1.Bank
		amount                                int64
		bankFee, platformFee, totalFee, total int64
		fallback                              bool
	}{
		{"Standard Bank R100", feesv1.Bank_BANK_STANDARD_BANK, 10000, 1095, 30, 1125, 11125, false},
		{"ABSA R100", feesv1.Bank_BANK_ABSA, 10000, 850, 30, 880, 10880, false},
		{"FNB R3000", feesv1.Bank_BANK_FNB, 300000, 1095, 900, 1995, 301995, false},
		{"Nedbank R1.67 rounds up", feesv1.Bank_BANK_NEDBANK, 167, 850, 1, 851, 1018, false},
		{"Capitec R1.66 rounds down", feesv1.Bank_BANK_CAPITEC, 166, 1000, 0, 1000, 1166, false},
		{"Capitec R3333.33", feesv1.Bank_BANK_CAPITEC, 333333, 1000, 1000, 2000, 335333, false},
		{"one cent", feesv1.Bank_BANK_CAPITEC, 1, 1000, 0, 1000, 1001, false},
		{"unspecified bank: fallback", feesv1.Bank_BANK_UNSPECIFIED, 10000, 1000, 30, 1030, 11030, true},
		{"unknown bank: fallback", feesv1.Bank(99), 100000, 1000, 300, 1300, 101300, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := e.Client.Quote(e.Ctx, &feesv1.QuoteRequest{Bank: tt.bank, AmountCents: tt.amount})
			if err != nil {
				t.Fatal(err)
			}
			q := res.GetQuote()
			got := []int64{q.GetAmountCents(), q.GetBankFeeCents(), q.GetPlatformFeeCents(), q.GetTotalFeeCents(), q.GetTotalAmountCents()}
			want := []int64{tt.amount, tt.bankFee, tt.platformFee, tt.totalFee, tt.total}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("quote (amount, bank, platform, total fee, total) = %v, want %v", got, want)
				}
			}
			if q.GetFallback() != tt.fallback || q.GetWaived() || q.GetWaivedFeeCents() != 0 {
				t.Fatalf("quote = %v, want fallback=%v and no waiver", q, tt.fallback)
			}
		})
	}
}

func TestQuoteRefusesBadAmounts(t *testing.T) {
	t.Parallel()
	e := testkit.Start(t)
	for _, amount := range []int64{0, -1, -100000, 100_000_001} {
		_, err := e.Client.Quote(e.Ctx, &feesv1.QuoteRequest{Bank: feesv1.Bank_BANK_ABSA, AmountCents: amount})
		st := status.Convert(err)
		if st.Code() != codes.InvalidArgument {
			t.Fatalf("Quote(%d) = %v, want InvalidArgument", amount, err)
		}
		var field string
		for _, d := range st.Details() {
			if br, ok := d.(*errdetails.BadRequest); ok && len(br.GetFieldViolations()) == 1 {
				field = br.GetFieldViolations()[0].GetField()
			}
		}
		if field != "amount_cents" {
			t.Fatalf("Quote(%d) violation field = %q, want amount_cents", amount, field)
		}
	}
}

// A bank whose row is gone, or a table that cannot be read, still gets a price: the fallback.
func TestQuoteFallsBackWhenTheLookupFails(t *testing.T) {
	t.Parallel()
	e := testkit.Start(t)
	if _, err := e.Pool.Exec(t.Context(), `DELETE FROM bank_fees WHERE bank = 'capitec'`); err != nil {
		t.Fatal(err)
	}
	res, err := e.Client.Quote(e.Ctx, &feesv1.QuoteRequest{Bank: feesv1.Bank_BANK_CAPITEC, AmountCents: 10000})
	if err != nil {
		t.Fatal(err)
	}
	if q := res.GetQuote(); !q.GetFallback() || q.GetBankFeeCents() != 1000 || q.GetTotalFeeCents() != 1030 {
		t.Fatalf("missing row: quote = %v, want the fallback", q)
	}

	if _, err := e.Pool.Exec(t.Context(), `ALTER TABLE bank_fees RENAME TO bank_fees_unavailable`); err != nil {
		t.Fatal(err)
	}
	res, err = e.Client.Quote(e.Ctx, &feesv1.QuoteRequest{Bank: feesv1.Bank_BANK_ABSA, AmountCents: 10000})
	if err != nil {
		t.Fatal(err)
	}
	if q := res.GetQuote(); !q.GetFallback() || q.GetBankFeeCents() != 1000 || q.GetTotalAmountCents() != 11030 {
		t.Fatalf("failed lookup: quote = %v, want the fallback", q)
	}
	// Listing has no fallback: it fails, without leaking the cause.
	_, err = e.Client.ListBanks(e.Ctx, &feesv1.ListBanksRequest{})
	if st := status.Convert(err); st.Code() != codes.Internal || st.Message() != "internal error" {
		t.Fatalf("ListBanks without the table = %v, want a generic Internal", err)
	}
}

func TestCallsNeedAUserToken(t *testing.T) {
	t.Parallel()
	e := testkit.Start(t)
	if _, err := e.Client.ListBanks(t.Context(), &feesv1.ListBanksRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("ListBanks without a token: %v", err)
	}
	if _, err := e.Client.Quote(t.Context(), &feesv1.QuoteRequest{AmountCents: 100}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("Quote without a token: %v", err)
	}
}
