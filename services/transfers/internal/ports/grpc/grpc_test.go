package grpcport_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	grpcport "github.com/thumela/thumela/services/transfers/internal/ports/grpc"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

func create(t *testing.T, ctx context.Context, e *testkit.Env, req *transfersv1.CreateTransferRequest) *transfersv1.Transfer {
	t.Helper()
	res, err := e.Client.CreateTransfer(ctx, req)
	if err != nil {
		t.Fatalf("CreateTransfer: %v", err)
	}
	return res.GetTransfer()
}

func rows(t *testing.T, e *testkit.Env, userID string) int {
	t.Helper()
	var n int
	if err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM transfers WHERE user_id = $1`, userID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCreateTransfer(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	req := testkit.Request("wizard-1", pm)
	req.WithdrawalLocation = &transfersv1.WithdrawalLocation{Name: "Sandton City", Type: "param"}
	tr := create(t, e.Ctx(t, user), e, req)

	if tr.GetStatus() != transfersv1.TransferStatus_TRANSFER_STATUS_PENDING || tr.GetUserId() != user {
		t.Fatalf("transfer = %v", tr)
	}
	if tr.GetReference() != tr.GetId()[:8] || uuid.MustParse(tr.GetId()).Version() != 4 {
		t.Fatalf("id %s reference %s", tr.GetId(), tr.GetReference())
	}
	if tr.GetRecipientName() != "Sipho Dlamini" || tr.GetRecipientPhone() != "+27821234567" || tr.GetBank() != feesv1.Bank_BANK_CAPITEC {
		t.Fatalf("recipient = %v", tr)
	}
	// The first transfer is free: the fee's components are kept, nothing is charged for them.
	if tr.GetAmountCents() != 50000 || tr.GetBankFeeCents() != 1000 || tr.GetPlatformFeeCents() != 150 ||
		tr.GetFeeCents() != 0 || tr.GetTotalAmountCents() != 50000 || !tr.GetFeeWaived() {
		t.Fatalf("money = %v", tr)
	}
	if tr.GetPaymentMethodId() != pm || tr.GetPaymentMethodName() != "Everyday Visa" || tr.GetPaymentMethodLastFour() != "4242" {
		t.Fatalf("payment method = %v", tr)
	}
	if loc := tr.GetWithdrawalLocation(); loc.GetName() != "Sandton City" || loc.GetType() != "param" {
		t.Fatalf("location = %v", loc)
	}
	if tr.GetVoucher() != nil || !tr.GetCreatedAt().AsTime().Equal(testkit.DefaultStart) {
		t.Fatalf("voucher %v created %v", tr.GetVoucher(), tr.GetCreatedAt().AsTime())
	}

	// The second is charged the fee; the default location applies.
	tr2 := create(t, e.Ctx(t, user), e, testkit.Request("wizard-2", pm))
	if tr2.GetFeeWaived() || tr2.GetFeeCents() != 1150 || tr2.GetTotalAmountCents() != 51150 {
		t.Fatalf("second transfer money = %v", tr2)
	}
	if loc := tr2.GetWithdrawalLocation(); loc.GetName() != "Nearest ATM" || loc.GetType() != "default" {
		t.Fatalf("default location = %v", loc)
	}

	// The transfer and its first event committed together.
	evs := e.StatusEvents(t, tr.GetId())
	if len(evs) != 1 || evs[0].GetTransfer().GetStatus() != transfersv1.TransferStatus_TRANSFER_STATUS_PENDING ||
		evs[0].GetPreviousStatus() != transfersv1.TransferStatus_TRANSFER_STATUS_UNSPECIFIED {
		t.Fatalf("events = %v", evs)
	}
	if subject := e.Outbox(t)[0].Subject; subject != "thumela.transfers."+user+".status" {
		t.Fatalf("subject = %s", subject)
	}

	got, err := e.Client.GetTransfer(e.Ctx(t, user), &transfersv1.GetTransferRequest{TransferId: tr.GetId()})
	if err != nil || got.GetTransfer().GetId() != tr.GetId() || got.GetTransfer().GetFeeWaived() != true {
		t.Fatalf("GetTransfer = %v, %v", got, err)
	}
}

func TestCreateTransferIsIdempotent(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	ctx := e.Ctx(t, user)
	first := create(t, ctx, e, testkit.Request("wizard-1", pm))
	quotes := e.Fees.Calls()

	// The same key and body, even in another notation of the same phone, is the first transfer.
	again := testkit.Request("wizard-1", pm)
	again.RecipientPhone = "+27 82 123 4567"
	if second := create(t, ctx, e, again); second.GetId() != first.GetId() {
		t.Fatalf("retry made %s, want %s", second.GetId(), first.GetId())
	}
	if rows(t, e, user) != 1 || e.Fees.Calls() != quotes {
		t.Fatalf("retry: %d rows, %d quotes (was %d)", rows(t, e, user), e.Fees.Calls(), quotes)
	}
	// The sender's e-mail comes from the token, not the body: a retry whose token carries
	// another address (changed meanwhile) is the same request, and the transfer keeps the first.
	if second := create(t, e.CtxWithEmail(t, user, "new-address@example.com"), e, testkit.Request("wizard-1", pm)); second.GetId() != first.GetId() {
		t.Fatalf("retry with another e-mail in the token made %s, want %s", second.GetId(), first.GetId())
	}
	var email, firstName string
	if err := e.Pool.QueryRow(context.Background(), `SELECT sender_email, sender_first_name FROM transfers WHERE id = $1`,
		first.GetId()).Scan(&email, &firstName); err != nil || email != testkit.SenderEmail || firstName != "Thandi" {
		t.Fatalf("stored sender %q %q (%v), want the first token's", email, firstName, err)
	}

	// The same key with a different body is refused.
	other := testkit.Request("wizard-1", pm)
	other.AmountCents += domain.NoteCents
	if _, err := e.Client.CreateTransfer(ctx, other); status.Code(err) != codes.AlreadyExists {
		t.Fatalf("different body under the same key: %v, want AlreadyExists", err)
	}

	// Keys are per user: another user's identical key is their own transfer.
	user2, pm2 := e.NewUser()
	theirs := create(t, e.Ctx(t, user2), e, testkit.Request("wizard-1", pm2))
	if theirs.GetId() == first.GetId() || rows(t, e, user2) != 1 {
		t.Fatalf("another user's key reused the transfer")
	}
}

// A retry is answered with its transfer even when the limits would refuse the request now: the
// sender's later transfers filled the day, but the retry is the transfer they already made, not
// another. (The create does not look the key up first; the key's constraint and the look-up
// after any refusal answer it: postgres.Transfers.Create.)
func TestARetryIsAnsweredWhenTheLimitsWouldNowRefuseIt(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	first := testkit.Request("morning", pm)
	first.AmountCents = 300_000
	made := create(t, e.Ctx(t, user), e, first)
	fill := testkit.Request("afternoon", pm)
	fill.AmountCents = 200_000 // the day's R5,000 reached
	create(t, e.Ctx(t, user), e, fill)
	res, err := e.Client.CreateTransfer(e.Ctx(t, user), first)
	if err != nil {
		t.Fatalf("the morning's retry at the daily limit: %v", err)
	}
	if res.GetTransfer().GetId() != made.GetId() || rows(t, e, user) != 2 {
		t.Fatalf("retry answered %s with %d rows, want %s and 2", res.GetTransfer().GetId(), rows(t, e, user), made.GetId())
	}
	// A new key with the same body is a new transfer, and over the limit.
	first.IdempotencyKey = "evening"
	if _, err := e.Client.CreateTransfer(e.Ctx(t, user), first); status.Code(err) != codes.FailedPrecondition {
		le, _ := limitDetail(t, err)
		t.Fatalf("a new transfer over the daily limit: %v (%v)", err, le)
	}
}

func TestConcurrentIdenticalCreatesMakeOneTransfer(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	ctx := e.Ctx(t, user)
	ids := make([]string, 10)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			res, err := e.Client.CreateTransfer(ctx, testkit.Request("double-click", pm))
			if err != nil {
				t.Errorf("create %d: %v", i, err)
				return
			}
			ids[i] = res.GetTransfer().GetId()
		})
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("ids = %v, want one", ids)
		}
	}
	if n := rows(t, e, user); n != 1 {
		t.Fatalf("%d rows, want 1", n)
	}
	if evs := e.StatusEvents(t, ids[0]); len(evs) != 1 {
		t.Fatalf("%d events, want 1", len(evs))
	}
}

func limitDetail(t *testing.T, err error) (*transfersv1.LimitExceeded, string) {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != codes.FailedPrecondition {
		t.Fatalf("err = %v, want FailedPrecondition", err)
	}
	for _, d := range st.Details() {
		if le, ok := d.(*transfersv1.LimitExceeded); ok {
			return le, st.Message()
		}
	}
	t.Fatalf("no LimitExceeded detail in %v", err)
	return nil, ""
}

// The limits count Johannesburg days, months and years: 22:00 UTC is already tomorrow. (The
// minimum is R20 here: at R10, the default, every amount ATMs can pay out is above it.)
func TestLimitsFollowTheJohannesburgCalendar(t *testing.T) {
	t.Parallel()
	jhb := domain.Johannesburg
	e := testkit.New(t, testkit.Options{Limits: domain.Limits{
		Minimum: domain.Cents(2000), PerTransfer: domain.Cents(10000), Daily: domain.Cents(15000),
		Monthly: domain.Cents(30000), Yearly: domain.Cents(50000),
	}})
	user, pm := e.NewUser()
	ctx := e.Ctx(t, user)
	steps := []struct {
		at        time.Time
		amount    int64
		kind      transfersv1.LimitKind // UNSPECIFIED = accepted
		remaining int64
		message   string
	}{
		{time.Date(2026, 1, 31, 10, 0, 0, 0, jhb), 10000, 0, 0, ""},
		{time.Date(2026, 1, 31, 23, 59, 59, 0, jhb), 10000, transfersv1.LimitKind_LIMIT_KIND_DAILY, 5000,
			"This transfer exceeds your daily limit of R150,00. You can still send R50,00 today."},
		{time.Date(2026, 1, 31, 23, 59, 59, 0, jhb), 5000, 0, 0, ""},
		{time.Date(2026, 1, 31, 23, 59, 59, 0, jhb), 2000, transfersv1.LimitKind_LIMIT_KIND_DAILY, 0,
			"You have reached your daily limit of R150,00. You can send again tomorrow."},
		// 22:00 UTC on 31 January is midnight of 1 February in Johannesburg: a new day and month.
		{time.Date(2026, 1, 31, 22, 0, 0, 0, time.UTC), 10000, 0, 0, ""},
		{time.Date(2026, 2, 1, 12, 0, 0, 0, jhb), 10000, transfersv1.LimitKind_LIMIT_KIND_DAILY, 5000, ""},
		{time.Date(2026, 2, 2, 8, 0, 0, 0, jhb), 11000, transfersv1.LimitKind_LIMIT_KIND_PER_TRANSFER, 10000, ""},
		{time.Date(2026, 2, 2, 8, 0, 0, 0, jhb), 1000, transfersv1.LimitKind_LIMIT_KIND_MINIMUM, 0, "The minimum transfer is R20,00."},
		{time.Date(2026, 2, 2, 8, 0, 0, 0, jhb), 10000, 0, 0, ""},
		{time.Date(2026, 2, 3, 8, 0, 0, 0, jhb), 10000, 0, 0, ""},
		{time.Date(2026, 2, 28, 23, 0, 0, 0, jhb), 2000, transfersv1.LimitKind_LIMIT_KIND_MONTHLY, 0,
			"You have reached your monthly limit of R300,00. You can send again next month."},
		// March: the month is new, the year is not (R450.00 of R500.00 used).
		{time.Date(2026, 3, 1, 0, 0, 0, 0, jhb), 10000, transfersv1.LimitKind_LIMIT_KIND_YEARLY, 5000,
			"This transfer exceeds your yearly limit of R500,00. You can still send R50,00 this year."},
		{time.Date(2026, 3, 1, 0, 0, 0, 0, jhb), 5000, 0, 0, ""},
		{time.Date(2026, 12, 31, 21, 59, 59, 0, time.UTC), 2000, transfersv1.LimitKind_LIMIT_KIND_YEARLY, 0, ""},
		{time.Date(2026, 12, 31, 22, 0, 0, 0, time.UTC), 10000, 0, 0, ""},
	}
	for i, s := range steps {
		e.Clock.Set(s.at)
		req := testkit.Request(fmt.Sprintf("step-%d", i), pm)
		req.AmountCents = s.amount
		_, err := e.Client.CreateTransfer(ctx, req)
		if s.kind == transfersv1.LimitKind_LIMIT_KIND_UNSPECIFIED {
			if err != nil {
				t.Fatalf("step %d (%v, %d c): %v", i, s.at, s.amount, err)
			}
			continue
		}
		le, msg := limitDetail(t, err)
		if le.GetKind() != s.kind || le.GetRemainingCents() != s.remaining {
			t.Fatalf("step %d (%v, %d c): refused by %v with %d left, want %v with %d", i, s.at, s.amount, le.GetKind(), le.GetRemainingCents(), s.kind, s.remaining)
		}
		if s.message != "" && msg != s.message {
			t.Fatalf("step %d: message %q, want %q", i, msg, s.message)
		}
	}
}

// Failed transfers and refunded vouchers do not count against the limits.
func TestFailedAndRefundedTransfersDoNotCount(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	ctx := e.Ctx(t, user)
	var ids []string
	for i, amount := range []int64{300000, 200000} {
		req := testkit.Request(fmt.Sprintf("k%d", i), pm)
		req.AmountCents = amount
		ids = append(ids, create(t, ctx, e, req).GetId())
	}
	if _, err := e.Client.CreateTransfer(ctx, testkit.Request("k-full", pm)); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("over the daily limit: %v", err)
	}
	// The first failed; the second's voucher was cancelled.
	for _, q := range []string{
		`UPDATE transfers SET status = 'processing' WHERE id = $1`,
		`UPDATE transfers SET status = 'failed' WHERE id = $1`,
	} {
		if _, err := e.Pool.Exec(ctx, q, ids[0]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Pool.Exec(ctx, `UPDATE transfers SET status = 'processing' WHERE id = $1`, ids[1]); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Pool.Exec(ctx, `UPDATE transfers SET status = 'completed', voucher_number = '0123456789',
		collection_status = 'awaiting_collection', charge_id = 'ch' WHERE id = $1`, ids[1]); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Pool.Exec(ctx, `UPDATE transfers SET collection_status = 'cancelled', refund_status = 'refunded' WHERE id = $1`, ids[1]); err != nil {
		t.Fatal(err)
	}
	limits, err := e.Client.GetLimits(ctx, &transfersv1.GetLimitsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range limits.GetLimits() {
		if l.GetKind() == transfersv1.LimitKind_LIMIT_KIND_DAILY && (l.GetUsedCents() != 0 || l.GetRemainingCents() != 500000) {
			t.Fatalf("daily usage = %v, want nothing counted", l)
		}
	}
	create(t, ctx, e, testkit.Request("k-again", pm))
}

func TestConcurrentCreatesCannotExceedTheDailyLimit(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	ctx := e.Ctx(t, user)
	var (
		wg                sync.WaitGroup
		mu                sync.Mutex
		accepted, refused int
	)
	for i := range 20 {
		wg.Go(func() {
			req := testkit.Request(fmt.Sprintf("burst-%d", i), pm)
			req.AmountCents = 100000 // R1,000.00: five fit in R5,000.00
			_, err := e.Client.CreateTransfer(ctx, req)
			mu.Lock()
			defer mu.Unlock()
			switch status.Code(err) {
			case codes.OK:
				accepted++
			case codes.FailedPrecondition:
				refused++
			default:
				t.Errorf("create %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	var sum int64
	if err := e.Pool.QueryRow(ctx, `SELECT coalesce(sum(amount_cents), 0) FROM transfers WHERE user_id = $1`, user).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	if accepted != 5 || refused != 15 || sum != 500000 {
		t.Fatalf("accepted %d, refused %d, sum %d c; want 5, 15, 500000", accepted, refused, sum)
	}
}

func TestGetLimits(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	ctx := e.Ctx(t, user)
	req := testkit.Request("k", pm)
	req.AmountCents = 380000 - 300000 // R800.00
	create(t, ctx, e, req)
	req = testkit.Request("k2", pm)
	req.AmountCents = 300000
	create(t, ctx, e, req)
	res, err := e.Client.GetLimits(ctx, &transfersv1.GetLimitsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[transfersv1.LimitKind][3]int64{
		transfersv1.LimitKind_LIMIT_KIND_PER_TRANSFER: {300000, 0, 120000},
		transfersv1.LimitKind_LIMIT_KIND_DAILY:        {500000, 380000, 120000},
		transfersv1.LimitKind_LIMIT_KIND_MONTHLY:      {2400000, 380000, 2020000},
		transfersv1.LimitKind_LIMIT_KIND_YEARLY:       {10000000, 380000, 9620000},
		transfersv1.LimitKind_LIMIT_KIND_MINIMUM:      {1000, 0, 0},
	}
	if len(res.GetLimits()) != len(want) {
		t.Fatalf("limits = %v", res.GetLimits())
	}
	for _, l := range res.GetLimits() {
		if w := want[l.GetKind()]; l.GetLimitCents() != w[0] || l.GetUsedCents() != w[1] || l.GetRemainingCents() != w[2] {
			t.Errorf("%v = %v, want %v", l.GetKind(), l, w)
		}
	}
}

func TestListTransfers(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{Limits: domain.Limits{
		Minimum: domain.Cents(100), PerTransfer: domain.Cents(1_000_000), Daily: domain.Cents(100_000_000),
		Monthly: domain.Cents(100_000_000), Yearly: domain.Cents(100_000_000),
	}})
	user, pm := e.NewUser()
	ctx := e.Ctx(t, user)
	recipients := []struct{ name, phone string }{
		{"Sipho Dlamini", "082 123 4567"},
		{"Thandiwe Mokoena", "083 555 0101"},
		{"Lerato Sithole", "071 222 3333"},
		{"sipho khumalo", "060 987 6543"},
		{"Johan van Wyk", "082 999 8888"},
		{"Nomsa Mthembu", "084 444 5555"}, // renamed below: the name rule refuses % and _
		{"Pieter Botha", "072 111 2222"},
	}
	var ids []string
	for i, r := range recipients {
		e.Clock.Advance(time.Minute)
		req := testkit.Request(fmt.Sprintf("k%d", i), pm)
		req.RecipientName, req.RecipientPhone, req.AmountCents = r.name, r.phone, int64(1000*(i+1))
		ids = append(ids, create(t, ctx, e, req).GetId())
	}
	// A name stored before the name rule (platform/personname), to prove that a search's % and _
	// are literal.
	if _, err := e.Pool.Exec(ctx, `UPDATE transfers SET recipient_name = 'Nomsa 50%_off' WHERE id = $1`, ids[5]); err != nil {
		t.Fatal(err)
	}
	// Two of them failed.
	for _, id := range []string{ids[1], ids[4]} {
		for _, s := range []string{"processing", "failed"} {
			if _, err := e.Pool.Exec(ctx, `UPDATE transfers SET status = $2 WHERE id = $1`, id, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	// The newest is being charged: the "pending" filter finds it too (the spec's filter has no
	// "processing", and shows both alike).
	if _, err := e.Pool.Exec(ctx, `UPDATE transfers SET status = 'processing' WHERE id = $1`, ids[6]); err != nil {
		t.Fatal(err)
	}
	// Another user's transfers never show.
	other, otherPM := e.NewUser()
	otherReq := testkit.Request("theirs", otherPM)
	create(t, e.Ctx(t, other), e, otherReq)

	newestFirst := slices.Clone(ids)
	slices.Reverse(newestFirst)
	tests := []struct {
		name     string
		req      *transfersv1.ListTransfersRequest
		want     []string
		wantTotl int32
	}{
		{"first page, default size 5, newest first", &transfersv1.ListTransfersRequest{}, newestFirst[:5], 7},
		{"second page", &transfersv1.ListTransfersRequest{Page: 2}, newestFirst[5:], 7},
		{"page past the end", &transfersv1.ListTransfersRequest{Page: 3}, nil, 7},
		{"page size 3, page 2", &transfersv1.ListTransfersRequest{Page: 2, PageSize: 3}, newestFirst[3:6], 7},
		{"page size above 50 is 50", &transfersv1.ListTransfersRequest{PageSize: 500}, newestFirst, 7},
		{"name, any case", &transfersv1.ListTransfersRequest{Query: "SIPHO"}, []string{ids[3], ids[0]}, 2},
		{"name substring", &transfersv1.ListTransfersRequest{Query: "okoen"}, []string{ids[1]}, 1},
		{"national prefix finds E.164", &transfersv1.ListTransfersRequest{Query: "082"}, []string{ids[4], ids[0]}, 2},
		{"spaced national number", &transfersv1.ListTransfersRequest{Query: "071 222"}, []string{ids[2]}, 1},
		{"E.164 fragment", &transfersv1.ListTransfersRequest{Query: "+2760"}, []string{ids[3]}, 1},
		{"digits in the middle", &transfersv1.ListTransfersRequest{Query: "5550"}, []string{ids[1]}, 1},
		{"wildcards are literal", &transfersv1.ListTransfersRequest{Query: "%_"}, []string{ids[5]}, 1},
		{"no match", &transfersv1.ListTransfersRequest{Query: "Zanele"}, nil, 0},
		{"status filter", &transfersv1.ListTransfersRequest{Status: transfersv1.TransferStatus_TRANSFER_STATUS_FAILED}, []string{ids[4], ids[1]}, 2},
		{"status and search", &transfersv1.ListTransfersRequest{Status: transfersv1.TransferStatus_TRANSFER_STATUS_PENDING, Query: "082"}, []string{ids[0]}, 1},
		{"status with no match", &transfersv1.ListTransfersRequest{Status: transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED}, nil, 0},
		{"pending finds what is in flight, processing too", &transfersv1.ListTransfersRequest{Status: transfersv1.TransferStatus_TRANSFER_STATUS_PENDING},
			[]string{ids[6], ids[5], ids[3], ids[2], ids[0]}, 5},
		{"processing alone", &transfersv1.ListTransfersRequest{Status: transfersv1.TransferStatus_TRANSFER_STATUS_PROCESSING}, []string{ids[6]}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, err := e.Client.ListTransfers(ctx, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tr := range res.GetTransfers() {
				got = append(got, tr.GetId())
				if tr.GetUserId() != user {
					t.Fatalf("another user's transfer listed")
				}
			}
			if !slices.Equal(got, tt.want) || res.GetTotalCount() != tt.wantTotl {
				t.Fatalf("got %v (total %d), want %v (total %d)", got, res.GetTotalCount(), tt.want, tt.wantTotl)
			}
		})
	}
}

func TestAnotherUsersTransferIsNotFound(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	owner, pm := e.NewUser()
	tr := create(t, e.Ctx(t, owner), e, testkit.Request("k", pm))
	intruder, _ := e.NewUser()
	ctx := e.Ctx(t, intruder)
	for name, id := range map[string]string{"another user's": tr.GetId(), "unknown": uuid.NewString(), "malformed": "not-a-uuid"} {
		_, err := e.Client.GetTransfer(ctx, &transfersv1.GetTransferRequest{TransferId: id})
		if st := status.Convert(err); st.Code() != codes.NotFound || st.Message() != grpcport.MsgTransferNotFound {
			t.Errorf("GetTransfer(%s) = %v", name, err)
		}
		_, err = e.Client.CancelTransfer(ctx, &transfersv1.CancelTransferRequest{TransferId: id})
		if st := status.Convert(err); st.Code() != codes.NotFound || st.Message() != grpcport.MsgTransferNotFound {
			t.Errorf("CancelTransfer(%s) = %v", name, err)
		}
	}
	// The other user's list holds none of the owner's; the owner still reads theirs.
	if list, err := e.Client.ListTransfers(ctx, &transfersv1.ListTransfersRequest{}); err != nil || len(list.GetTransfers()) != 0 {
		t.Errorf("another user's ListTransfers = %v, %v; want none", list.GetTransfers(), err)
	}
	if _, err := e.Client.GetTransfer(e.Ctx(t, owner), &transfersv1.GetTransferRequest{TransferId: tr.GetId()}); err != nil {
		t.Errorf("the owner's GetTransfer: %v", err)
	}
}

func violations(t *testing.T, err error) []string {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != codes.InvalidArgument {
		t.Fatalf("err = %v, want InvalidArgument", err)
	}
	var fields []string
	for _, d := range st.Details() {
		if br, ok := d.(*errdetails.BadRequest); ok {
			for _, v := range br.GetFieldViolations() {
				fields = append(fields, v.GetField()+": "+v.GetDescription())
			}
		}
	}
	return fields
}

func TestCreateTransferRefusesBadRequests(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	ctx := e.Ctx(t, user)

	_, err := e.Client.CreateTransfer(ctx, &transfersv1.CreateTransferRequest{IdempotencyKey: "k", RecipientPhone: "011 123 4567", AmountCents: 50000, PaymentMethodId: pm})
	got := violations(t, err)
	want := []string{
		"recipient_name: Please enter the recipient's name.",
		"recipient_phone: Please enter a valid South African mobile number.",
		"bank: Please choose the recipient's bank.",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("violations %v, want %v", got, want)
	}

	// A recipient's name that is a web address: the name rule's words.
	lure := testkit.Request("k", pm)
	lure.RecipientName = "Visit fnb-secure.co.za"
	_, err = e.Client.CreateTransfer(ctx, lure)
	if got := violations(t, err); !slices.Equal(got, []string{"recipient_name: Names can't contain a web address."}) {
		t.Fatalf("web address: %v", got)
	}

	// Another user's card, or one that does not exist, is not found.
	_, theirs := e.NewUser()
	for _, id := range []string{theirs, uuid.NewString()} {
		_, err := e.Client.CreateTransfer(ctx, testkit.Request("k", id))
		if got := violations(t, err); !slices.Equal(got, []string{"payment_method_id: " + grpcport.MsgPaymentMethodNotFound}) {
			t.Fatalf("foreign card: %v", got)
		}
	}
	// A bank account cannot pay yet.
	bank := uuid.NewString()
	e.Payments.AddBankAccount(user, bank)
	if _, err := e.Client.CreateTransfer(ctx, testkit.Request("k", bank)); status.Code(err) != codes.InvalidArgument ||
		!strings.Contains(status.Convert(err).Message(), "cannot be used") {
		t.Fatalf("bank account: %v", err)
	}
	// A fees outage is Unavailable, and nothing is stored.
	e.Fees.SetError(fmt.Errorf("boom: %w", errUnavailable()))
	if _, err := e.Client.CreateTransfer(ctx, testkit.Request("k", pm)); status.Code(err) != codes.Unavailable {
		t.Fatalf("fees down: %v", err)
	}
	if rows(t, e, user) != 0 {
		t.Fatal("a refused request stored a transfer")
	}
	if _, err := e.Client.ListTransfers(context.Background(), &transfersv1.ListTransfersRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("no token: %v", err)
	}
}

// The fees service learns of transfers from events, a moment late; the transfer decides the
// waiver under the sender's lock.
func TestFirstTransferWaiverIsEnforcedByTransfers(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	ctx := e.Ctx(t, user)

	// Fees has not heard of the user yet and says "not waived": the first transfer is free anyway.
	e.Fees.SetWaived(false)
	first := create(t, ctx, e, testkit.Request("k1", pm))
	if !first.GetFeeWaived() || first.GetFeeCents() != 0 {
		t.Fatalf("first transfer = %v, want waived", first)
	}
	// Fees has not heard of the first transfer yet and says "waived": the second pays.
	e.Fees.SetWaived(true)
	second := create(t, ctx, e, testkit.Request("k2", pm))
	if second.GetFeeWaived() || second.GetFeeCents() != 1150 || second.GetTotalAmountCents() != 51150 {
		t.Fatalf("second transfer = %v, want charged", second)
	}

	// A sender whose only transfer failed still has a free first transfer.
	user2, pm2 := e.NewUser()
	ctx2 := e.Ctx(t, user2)
	failed := create(t, ctx2, e, testkit.Request("k1", pm2))
	for _, s := range []string{"processing", "failed"} {
		if _, err := e.Pool.Exec(ctx, `UPDATE transfers SET status = $2 WHERE id = $1`, failed.GetId(), s); err != nil {
			t.Fatal(err)
		}
	}
	e.Fees.SetWaived(false)
	if again := create(t, ctx2, e, testkit.Request("k2", pm2)); !again.GetFeeWaived() {
		t.Fatalf("after a failed first transfer = %v, want waived", again)
	}
}
