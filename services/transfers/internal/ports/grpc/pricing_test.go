package grpcport_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/feeschedule"
	"github.com/thumela/thumela/services/platform/natstest"
	"github.com/thumela/thumela/services/transfers/internal/adapters/cardcache"
	"github.com/thumela/thumela/services/transfers/internal/adapters/feeschedulekv"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/ports/events"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// localEnv is an Env wired as the binary is: the fee schedule watched from the KV bucket and
// the cards cached, both fed through an embedded NATS under the production permissions.
type localEnv struct {
	*testkit.Env
	srv   *natstest.Server
	fees  *feeschedulekv.Fees
	cards *cardcache.Cache
}

func startLocal(t *testing.T) *localEnv {
	t.Helper()
	l := &localEnv{srv: natstest.Start(t)}
	l.Env = testkit.New(t, testkit.Options{
		WrapFees: func(f app.Fees) app.Fees {
			l.fees = feeschedulekv.New(f, testkit.Discard)
			return l.fees
		},
		WrapPayments: func(p app.PaymentMethods) app.PaymentMethods {
			l.cards = cardcache.New(p)
			return l.cards
		},
	})
	_, js := l.srv.Connect(t, "transfers")
	if err := bus.EnsureStreams(t.Context(), js); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 2)
	go func() { _ = l.fees.Watch(ctx, js); done <- struct{}{} }()
	go func() { _ = events.FollowCardChanges(ctx, js, l.cards, testkit.Discard); done <- struct{}{} }()
	t.Cleanup(func() { cancel(); <-done; <-done })
	testkit.Eventually(t, 10*time.Second, "the card cache's feed is live", l.cards.Live)
	return l
}

// publishSchedule writes the schedule as the fees service does (its identity, its bucket).
func (l *localEnv) publishSchedule(t *testing.T, version, capitecBase int64) {
	t.Helper()
	_, js := l.srv.Connect(t, "fees")
	kv, err := js.CreateOrUpdateKeyValue(t.Context(), bus.FeeScheduleBucket(1))
	if err != nil {
		t.Fatal(err)
	}
	data, err := feeschedule.Encode(feeschedule.Schedule{Version: version, Banks: []feeschedule.BankFee{
		{Bank: "capitec", DisplayName: "Capitec", BaseFeeCents: capitecBase, PercentageBps: 30},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(t.Context(), feeschedule.Key, data); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, 10*time.Second, "transfers holds the new schedule", func() bool { return l.fees.Version() == version })
}

// publishCardChange announces a change of the card as paymentmethods' relay does.
func (l *localEnv) publishCardChange(t *testing.T, user, id string, change paymentmethodsv1.PaymentMethodChange) {
	t.Helper()
	_, js := l.srv.Connect(t, "paymentmethods")
	data, err := proto.Marshal(&paymentmethodsv1.PaymentMethodChanged{UserId: user, PaymentMethodId: id, Change: change})
	if err != nil {
		t.Fatal(err)
	}
	subject, err := bus.Subject(bus.DomainPaymentMethods, user, "changed")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(t.Context(), subject, data); err != nil {
		t.Fatal(err)
	}
}

func storedScheduleVersion(t *testing.T, e *testkit.Env, id string) int64 {
	t.Helper()
	var v int64
	if err := e.Pool.QueryRow(t.Context(), `SELECT fee_schedule_version FROM transfers WHERE id = $1`, id).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// A create asks fees' Quote only until the schedule arrives; from then on it is priced locally
// and records the version, and after a change the next transfer is priced and stamped by the
// new version. The fee stored is the fee charged.
func TestCreatePricesFromThePublishedSchedule(t *testing.T) {
	t.Parallel()
	l := startLocal(t)
	user, pm := l.NewUser()
	ctx := l.Ctx(t, user)

	first := create(t, ctx, l.Env, testkit.Request("before-schedule", pm))
	if first.GetFeeScheduleVersion() != 0 || l.Fees.Calls() != 1 || first.GetBankFeeCents() != 1000 || first.GetPlatformFeeCents() != 150 {
		t.Fatalf("before any schedule: %v after %d quotes, want fees' quote (version 0)", first, l.Fees.Calls())
	}

	l.publishSchedule(t, 1, 1000)
	second := create(t, ctx, l.Env, testkit.Request("schedule-1", pm))
	if second.GetFeeScheduleVersion() != 1 || second.GetBankFeeCents() != 1000 || second.GetPlatformFeeCents() != 150 ||
		second.GetFeeCents() != 1150 || second.GetTotalAmountCents() != 51150 {
		t.Fatalf("at version 1: %v", second)
	}

	l.publishSchedule(t, 2, 1200)
	third := create(t, ctx, l.Env, testkit.Request("schedule-2", pm))
	if third.GetFeeScheduleVersion() != 2 || third.GetBankFeeCents() != 1200 || third.GetFeeCents() != 1350 || third.GetTotalAmountCents() != 51350 {
		t.Fatalf("at version 2: %v", third)
	}
	if l.Fees.Calls() != 1 {
		t.Fatalf("fees was asked %d times, want once (before the schedule)", l.Fees.Calls())
	}
	for id, want := range map[string]int64{first.GetId(): 0, second.GetId(): 1, third.GetId(): 2} {
		if got := storedScheduleVersion(t, l.Env, id); got != want {
			t.Errorf("transfer %s stored version %d, want %d", id, got, want)
		}
		res, err := l.Client.GetTransfer(ctx, &transfersv1.GetTransferRequest{TransferId: id})
		if err != nil || res.GetTransfer().GetFeeScheduleVersion() != want {
			t.Errorf("GetTransfer %s: version %d (%v), want %d", id, res.GetTransfer().GetFeeScheduleVersion(), err, want)
		}
	}
}

// The card is asked for once and then answered from the cache; its change event drops it; and
// another user's card id is refused every time, exactly as before.
func TestCreateCachesTheCard(t *testing.T) {
	t.Parallel()
	l := startLocal(t)
	l.publishSchedule(t, 1, 1000)
	alice, card := l.NewUser()
	bob, _ := l.NewUser()
	ctxA, ctxB := l.Ctx(t, alice), l.Ctx(t, bob)

	create(t, ctxA, l.Env, testkit.Request("a-1", card))
	create(t, ctxA, l.Env, testkit.Request("a-2", card))
	create(t, ctxA, l.Env, testkit.Request("a-3", card))
	if n := l.Payments.GetCalls(); n != 1 {
		t.Fatalf("%d ownership calls for three creates with one card, want 1", n)
	}
	if l.Fees.Calls() != 0 {
		t.Fatalf("fees asked %d times", l.Fees.Calls())
	}

	// Bob naming Alice's card (held in the cache) is refused as an unknown card, every time.
	for i := range 2 {
		_, err := l.Client.CreateTransfer(ctxB, testkit.Request("b-"+string(rune('1'+i)), card))
		if status.Code(err) != codes.InvalidArgument || rows(t, l.Env, bob) != 0 {
			t.Fatalf("Bob with Alice's card: %v, want InvalidArgument and nothing created", err)
		}
	}
	if n := l.Payments.GetCalls(); n != 3 {
		t.Fatalf("%d ownership calls, want 3 (Alice's fill, each of Bob's tries)", n)
	}

	// Alice deletes the card: the event drops it and the next create asks again, and is refused.
	l.Payments.DeleteMethod(card)
	l.publishCardChange(t, alice, card, paymentmethodsv1.PaymentMethodChange_PAYMENT_METHOD_CHANGE_DELETED)
	testkit.Eventually(t, 10*time.Second, "the deleted card is dropped", func() bool { return l.cards.Len() == 0 })
	if _, err := l.Client.CreateTransfer(ctxA, testkit.Request("a-4", card)); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("create with the deleted card: %v, want InvalidArgument", err)
	}
	if n := l.Payments.GetCalls(); n != 4 {
		t.Fatalf("%d ownership calls, want 4", n)
	}
}

// With the card and the price held, a create asks no service and looks its key up only in the
// insert's transaction (under the sender's lock): a retry is still the first transfer, the same
// key with another body is still refused, and once the card is gone a retry is still answered
// (the key looked up first, as for any create that must ask a service).
func TestRetriesWithTheCardAndPriceHeld(t *testing.T) {
	t.Parallel()
	l := startLocal(t)
	l.publishSchedule(t, 1, 1000)
	user, card := l.NewUser()
	ctx := l.Ctx(t, user)
	create(t, ctx, l.Env, testkit.Request("fill", card)) // fills the cache
	calls := l.Payments.GetCalls()

	first := create(t, ctx, l.Env, testkit.Request("held-1", card))
	for range 2 {
		if again := create(t, ctx, l.Env, testkit.Request("held-1", card)); again.GetId() != first.GetId() {
			t.Fatalf("retry made %s, want %s", again.GetId(), first.GetId())
		}
	}
	other := testkit.Request("held-1", card)
	other.AmountCents += 1000
	if _, err := l.Client.CreateTransfer(ctx, other); status.Code(err) != codes.AlreadyExists {
		t.Fatalf("the key with another amount: %v, want AlreadyExists", err)
	}
	if rows(t, l.Env, user) != 2 || l.Payments.GetCalls() != calls || l.Fees.Calls() != 0 {
		t.Fatalf("%d rows, %d card calls (was %d), %d quotes: want 2 rows and no call", rows(t, l.Env, user),
			l.Payments.GetCalls(), calls, l.Fees.Calls())
	}

	// The card is deleted: the retry is answered as made, and a new create is refused.
	l.Payments.DeleteMethod(card)
	l.publishCardChange(t, user, card, paymentmethodsv1.PaymentMethodChange_PAYMENT_METHOD_CHANGE_DELETED)
	testkit.Eventually(t, 10*time.Second, "the deleted card is dropped", func() bool { return l.cards.Len() == 0 })
	if again := create(t, ctx, l.Env, testkit.Request("held-1", card)); again.GetId() != first.GetId() {
		t.Fatalf("retry after the card was deleted made %s, want %s", again.GetId(), first.GetId())
	}
	if _, err := l.Client.CreateTransfer(ctx, testkit.Request("held-2", card)); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("a new create with the deleted card: %v, want InvalidArgument", err)
	}
}

func quoteFee(t *testing.T, ctx context.Context, e *testkit.Env, amount int64) *feesv1.Quote {
	t.Helper()
	res, err := e.Client.QuoteFee(ctx, &transfersv1.QuoteFeeRequest{Bank: feesv1.Bank_BANK_CAPITEC, AmountCents: amount})
	if err != nil {
		t.Fatalf("QuoteFee: %v", err)
	}
	return res.GetQuote()
}

// The wizard's quote decides the first-transfer waiver by the create's rule on the caller's own
// transfers: free until the caller has a transfer, whoever else has; and the create then charges
// exactly what the quote said. It prices from the schedule held, or asks fees before one arrived
// (whose guess at the waiver it does not take). A bad amount is refused with fees' words, and
// nobody is quoted without a user token.
func TestQuoteFeeDecidesTheWaiverAsTheCreateDoes(t *testing.T) {
	t.Parallel()
	l := startLocal(t)
	alice, card := l.NewUser()
	bob, _ := l.NewUser()
	ctxA, ctxB := l.Ctx(t, alice), l.Ctx(t, bob)

	// Before any schedule: fees' price, and fees' waiver guess (none, here) overruled.
	before := quoteFee(t, ctxA, l.Env, 50_000)
	if l.Fees.Calls() != 1 || !before.GetWaived() || before.GetTotalFeeCents() != 0 || before.GetWaivedFeeCents() != 1150 ||
		before.GetTotalAmountCents() != 50_000 || before.GetBankFeeCents() != 1000 || before.GetPlatformFeeCents() != 150 {
		t.Fatalf("first quote before a schedule: %v after %d fees calls, want R11.50 waived", before, l.Fees.Calls())
	}

	l.publishSchedule(t, 1, 1200)
	free := quoteFee(t, ctxA, l.Env, 50_000)
	want := &feesv1.Quote{AmountCents: 50_000, BankFeeCents: 1200, PlatformFeeCents: 150, TotalAmountCents: 50_000, Waived: true, WaivedFeeCents: 1350}
	if !proto.Equal(free, want) || l.Fees.Calls() != 1 {
		t.Fatalf("first quote from the schedule: %v, want %v and no call to fees", free, want)
	}
	first := create(t, ctxA, l.Env, testkit.Request("first", card))
	if first.GetFeeCents() != free.GetTotalFeeCents() || first.GetTotalAmountCents() != free.GetTotalAmountCents() {
		t.Fatalf("first transfer charged %d fee, %d total; the quote said %d, %d", first.GetFeeCents(), first.GetTotalAmountCents(),
			free.GetTotalFeeCents(), free.GetTotalAmountCents())
	}

	// Straight after the first transfer, the quote charges the fee: no event has to arrive first.
	paid := quoteFee(t, ctxA, l.Env, 50_000)
	if paid.GetWaived() || paid.GetTotalFeeCents() != 1350 || paid.GetWaivedFeeCents() != 0 || paid.GetTotalAmountCents() != 51_350 {
		t.Fatalf("quote after the first transfer: %v, want R13.50 charged", paid)
	}
	second := create(t, ctxA, l.Env, testkit.Request("second", card))
	if second.GetFeeCents() != paid.GetTotalFeeCents() || second.GetTotalAmountCents() != paid.GetTotalAmountCents() {
		t.Fatalf("second transfer charged %d fee; the quote said %d", second.GetFeeCents(), paid.GetTotalFeeCents())
	}
	// Alice's transfers do not use Bob's waiver.
	if q := quoteFee(t, ctxB, l.Env, 50_000); !q.GetWaived() {
		t.Fatalf("Bob's first quote: %v, want waived", q)
	}

	for amount, msg := range map[int64]string{0: "The amount must be greater than zero.", 100_000_001: "The amount must be at most R1\u00a0000\u00a0000,00."} {
		_, err := l.Client.QuoteFee(ctxA, &transfersv1.QuoteFeeRequest{Bank: feesv1.Bank_BANK_CAPITEC, AmountCents: amount})
		if status.Code(err) != codes.InvalidArgument || status.Convert(err).Message() != msg {
			t.Errorf("quote of %d cents: %v, want InvalidArgument %q", amount, err, msg)
		}
	}
	if _, err := l.Client.QuoteFee(context.Background(), &transfersv1.QuoteFeeRequest{Bank: feesv1.Bank_BANK_CAPITEC, AmountCents: 50_000}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("quote without a token: %v, want Unauthenticated", err)
	}
}

// A quote for a bank the create would refuse (none chosen, or a value outside the five) is
// refused in the create's words, rather than priced at the fees service's fallback.
func TestQuoteFeeRefusesABankTheCreateRefuses(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, _ := e.NewUser()
	ctx := e.Ctx(t, user)
	for _, bank := range []feesv1.Bank{feesv1.Bank_BANK_UNSPECIFIED, feesv1.Bank(99), feesv1.Bank(-1)} {
		_, err := e.Client.QuoteFee(ctx, &transfersv1.QuoteFeeRequest{Bank: bank, AmountCents: 50_000})
		if status.Code(err) != codes.InvalidArgument || status.Convert(err).Message() != domain.MsgChooseBank {
			t.Errorf("quote for bank %d: %v, want InvalidArgument %q", bank, err, domain.MsgChooseBank)
		}
	}
	quoteFee(t, ctx, e, 50_000) // and a known bank is still quoted
}
