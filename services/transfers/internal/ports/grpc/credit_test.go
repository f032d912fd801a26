package grpcport_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

const waitFor = 15 * time.Second

// credit returns user's GetCredit answer.
func credit(t *testing.T, e *testkit.Env, user string) *transfersv1.GetCreditResponse {
	t.Helper()
	res, err := e.Client.GetCredit(e.Ctx(t, user), &transfersv1.GetCreditRequest{})
	if err != nil {
		t.Fatalf("GetCredit: %v", err)
	}
	return res
}

// refer makes friend a verified user who signed up with referrer's code, as identity's
// UserVerified tells it.
func refer(t *testing.T, e *testkit.Env, referrer, friend string) {
	t.Helper()
	code := credit(t, e, referrer).GetReferralCode()
	if err := e.App.ReferralWelcome(context.Background(), friend, code, e.Clock.Now()); err != nil {
		t.Fatalf("ReferralWelcome: %v", err)
	}
}

// sendWithCredit creates a transfer of amount cents for user with card pm.
func sendWithCredit(t *testing.T, e *testkit.Env, user, pm, key string, amount int64) *transfersv1.Transfer {
	t.Helper()
	req := testkit.Request(key, pm)
	req.AmountCents = amount
	res, err := e.Client.CreateTransfer(e.Ctx(t, user), req)
	if err != nil {
		t.Fatalf("CreateTransfer(%s): %v", key, err)
	}
	tr := res.GetTransfer()
	if tr.GetCreditAppliedCents()+tr.GetCardChargeCents() != tr.GetTotalAmountCents() {
		t.Fatalf("credit %d + card %d != total %d", tr.GetCreditAppliedCents(), tr.GetCardChargeCents(), tr.GetTotalAmountCents())
	}
	// Credit pays fees, never the amount: the cash at the ATM is always paid for by the card.
	if tr.GetCardChargeCents() < tr.GetAmountCents() {
		t.Fatalf("card %d < amount %d: credit paid cash", tr.GetCardChargeCents(), tr.GetAmountCents())
	}
	return tr
}

// fee is what t's fee came to (the total less the amount).
func fee(tr *transfersv1.Transfer) int64 { return tr.GetTotalAmountCents() - tr.GetAmountCents() }

// creditEvents counts the CreditChanged events written for user and returns the last balance.
func creditEvents(t *testing.T, e *testkit.Env, user string) (int, int64) {
	t.Helper()
	n, last := 0, int64(-1)
	for _, row := range e.Outbox(t) {
		if row.Subject != "thumela.transfers."+user+".credit" {
			continue
		}
		var ev transfersv1.CreditChanged
		if err := proto.Unmarshal(row.Payload, &ev); err != nil || ev.GetUserId() != user {
			t.Fatalf("CreditChanged %v, %v", &ev, err)
		}
		n, last = n+1, ev.GetBalanceCents()
	}
	return n, last
}

// TestReferralWelcomeAndReward: the friend's welcome credit pays their transfer's fee, the
// card is charged the amount, and the referrer is paid once, at the friend's first completion.
func TestReferralWelcomeAndReward(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	e.StartWorker(t, nil, e.WorkerConfig())
	referrer, _ := e.NewUser()
	friend, pm := e.NewUser()

	got := credit(t, e, referrer)
	if got.GetReferralCode() != domain.ReferralCode(uuid.MustParse(referrer)) || got.GetBalanceCents() != 0 ||
		got.GetFriendsJoined() != 0 || len(got.GetRecentMovements()) != 0 {
		t.Fatalf("a new user's credit = %v", got)
	}
	if again := credit(t, e, referrer); again.GetReferralCode() != got.GetReferralCode() {
		t.Fatalf("code changed: %s then %s", got.GetReferralCode(), again.GetReferralCode())
	}
	refer(t, e, referrer, friend)
	refer(t, e, referrer, friend) // identity's event redelivered
	fc := credit(t, e, friend)
	if fc.GetBalanceCents() != 5000 || len(fc.GetRecentMovements()) != 1 ||
		fc.GetRecentMovements()[0].GetKind() != transfersv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_REFERRAL_WELCOME ||
		fc.GetRecentMovements()[0].GetAmountCents() != 5000 {
		t.Fatalf("friend's credit = %v", fc)
	}
	if rc := credit(t, e, referrer); rc.GetFriendsJoined() != 1 || rc.GetFriendsRewarded() != 0 || rc.GetBalanceCents() != 0 {
		t.Fatalf("referrer's credit after the friend joined = %v", rc)
	}
	if n, _ := creditEvents(t, e, referrer); n != 1 {
		t.Fatalf("%d CreditChanged for the referrer after the friend joined, want 1", n)
	}

	// The first transfer is free: there is no fee for the credit to pay.
	first := sendWithCredit(t, e, friend, pm, "first", 50_000)
	if fee(first) != 0 || first.GetCreditAppliedCents() != 0 || first.GetCardChargeCents() != 50_000 {
		t.Fatalf("first transfer = credit %d, card %d of %d", first.GetCreditAppliedCents(), first.GetCardChargeCents(), first.GetTotalAmountCents())
	}
	if c := credit(t, e, friend); c.GetBalanceCents() != 5000 {
		t.Fatalf("friend's credit after a free transfer = %v", c)
	}
	e.WaitStatus(t, first.GetId(), domain.StatusCompleted, waitFor)
	if charged, ok := e.Payments.Charged(first.GetId()); !ok || charged.Cents() != first.GetCardChargeCents() {
		t.Fatalf("card charged %v (%v), want %d", charged, ok, first.GetCardChargeCents())
	}
	rc := credit(t, e, referrer)
	if rc.GetBalanceCents() != 10_000 || rc.GetFriendsRewarded() != 1 || rc.GetRewardsEarnedCents() != 10_000 ||
		rc.GetRecentMovements()[0].GetKind() != transfersv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_REFERRAL_REWARD {
		t.Fatalf("referrer's credit after the first completion = %v", rc)
	}

	// The second pays a fee, and the credit pays it.
	second := sendWithCredit(t, e, friend, pm, "second", 20_000)
	if fee(second) == 0 || second.GetCreditAppliedCents() != fee(second) || second.GetCardChargeCents() != 20_000 {
		t.Fatalf("second transfer = credit %d, card %d of %d", second.GetCreditAppliedCents(), second.GetCardChargeCents(), second.GetTotalAmountCents())
	}
	if c := credit(t, e, friend); c.GetBalanceCents() != 5000-fee(second) || c.GetRecentMovements()[0].GetAmountCents() != -fee(second) ||
		c.GetRecentMovements()[0].GetTransferId() != second.GetId() {
		t.Fatalf("friend's credit after spending = %v", c)
	}
	e.WaitStatus(t, second.GetId(), domain.StatusCompleted, waitFor)
	if rc := credit(t, e, referrer); rc.GetBalanceCents() != 10_000 || rc.GetRewardsEarnedCents() != 10_000 {
		t.Fatalf("referrer paid again on the second completion: %v", rc)
	}
	if n, last := creditEvents(t, e, referrer); n != 2 || last != 10_000 {
		t.Fatalf("referrer's CreditChanged: %d, last balance %d", n, last)
	}
	e.CheckLedger(t)
}

// TestReferralNotPaidOnFailedTransfer: a declined first transfer pays the referrer nothing; the
// first one that completes does. A declined transfer whose fee the credit paid returns it.
func TestReferralNotPaidOnFailedTransfer(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	e.StartWorker(t, nil, e.WorkerConfig())
	referrer, _ := e.NewUser()
	friend, declining := e.NewUser(testkit.TokenDecline)
	refer(t, e, referrer, friend)

	failed := sendWithCredit(t, e, friend, declining, "declined", 50_000)
	e.WaitStatus(t, failed.GetId(), domain.StatusFailed, waitFor)
	if charged := e.Payments.ProcessorCharges(failed.GetId()); charged != 1 {
		t.Fatalf("%d charges", charged)
	}
	if rc := credit(t, e, referrer); rc.GetBalanceCents() != 0 || rc.GetFriendsRewarded() != 0 {
		t.Fatalf("referrer paid for a failed transfer: %v", rc)
	}
	e.CheckLedger(t)

	card := uuid.NewString()
	e.Payments.AddCard(friend, card, "Everyday Visa", "4242", testkit.TokenApprove)
	ok := sendWithCredit(t, e, friend, card, "approved", 50_000)
	e.WaitStatus(t, ok.GetId(), domain.StatusCompleted, waitFor)
	if rc := credit(t, e, referrer); rc.GetBalanceCents() != 10_000 || rc.GetFriendsRewarded() != 1 {
		t.Fatalf("referrer after the friend's first completion = %v", rc)
	}

	again := sendWithCredit(t, e, friend, declining, "declined-with-fee", 50_000)
	if fee(again) == 0 || again.GetCreditAppliedCents() != fee(again) {
		t.Fatalf("credit applied %d to a fee of %d", again.GetCreditAppliedCents(), fee(again))
	}
	e.WaitStatus(t, again.GetId(), domain.StatusFailed, waitFor)
	fc := credit(t, e, friend)
	if fc.GetBalanceCents() != 5000 || fc.GetRecentMovements()[0].GetKind() != transfersv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_RETURNED ||
		fc.GetRecentMovements()[0].GetAmountCents() != fee(again) || fc.GetRecentMovements()[0].GetTransferId() != again.GetId() {
		t.Fatalf("friend's credit after a declined charge = %v", fc)
	}
	if rc := credit(t, e, referrer); rc.GetBalanceCents() != 10_000 {
		t.Fatalf("referrer paid twice: %v", rc)
	}
	e.CheckLedger(t)
}

// TestReferralSelfAndUnknownCode: one's own code, a code nobody has, no code and a malformed
// user id pay nothing.
func TestReferralSelfAndUnknownCode(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, _ := e.NewUser()
	own := credit(t, e, user).GetReferralCode()
	ctx := context.Background()
	for _, code := range []string{own, "THU-00000000", ""} {
		if err := e.App.ReferralWelcome(ctx, user, code, e.Clock.Now()); err != nil {
			t.Fatalf("ReferralWelcome(%q): %v", code, err)
		}
	}
	stranger := uuid.NewString()
	if err := e.App.ReferralWelcome(ctx, stranger, "THU-00000000", e.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	if err := e.App.ReferralWelcome(ctx, "not-a-uuid", own, e.Clock.Now()); err == nil {
		t.Fatal("a malformed user id was accepted")
	}
	var referrals, entries int
	if err := e.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM referrals), (SELECT count(*) FROM credit_entries)`).
		Scan(&referrals, &entries); err != nil || referrals != 0 || entries != 0 {
		t.Fatalf("%d referrals and %d entries (%v)", referrals, entries, err)
	}
	if c := credit(t, e, user); c.GetBalanceCents() != 0 || c.GetFriendsJoined() != 0 {
		t.Fatalf("credit = %v", c)
	}
}

// TestCreditNeverPaysCash is the probe of 30 Nov 2026: a friend's welcome credit and the
// referrer's reward, spent on small transfers, pay their fees only; every rand a voucher pays
// out at an ATM was charged to a card, so throw-away accounts sharing one card turn into no
// cash. A cancel refunds the card the amount and gives the credit back.
func TestCreditNeverPaysCash(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	e.StartWorker(t, nil, e.WorkerConfig())
	referrer, referrerCard := e.NewUser()
	friend, pm := e.NewUser()
	refer(t, e, referrer, friend)
	first := sendWithCredit(t, e, friend, pm, "first", 5000) // free: nothing for the credit to pay
	e.WaitStatus(t, first.GetId(), domain.StatusCompleted, waitFor)

	small := sendWithCredit(t, e, friend, pm, "small", 5000) // R50: all the welcome credit's worth
	if fee(small) == 0 || small.GetCreditAppliedCents() != fee(small) || small.GetCardChargeCents() != 5000 {
		t.Fatalf("transfer = credit %d, card %d of %d", small.GetCreditAppliedCents(), small.GetCardChargeCents(), small.GetTotalAmountCents())
	}
	e.WaitStatus(t, small.GetId(), domain.StatusCompleted, waitFor)
	if charged, ok := e.Payments.Charged(small.GetId()); !ok || charged.Cents() != 5000 {
		t.Fatalf("card charged %v (%v), want the R50 the voucher pays", charged, ok)
	}
	if left := credit(t, e, friend).GetBalanceCents(); left != 5000-fee(small) {
		t.Fatalf("credit left %d", left)
	}

	// The referrer's R100 reward pays the fee of their next transfer, not its R80.
	if rc := credit(t, e, referrer); rc.GetBalanceCents() != 10_000 {
		t.Fatalf("referrer not rewarded: %v", rc)
	}
	own := sendWithCredit(t, e, referrer, referrerCard, "own-first", 1000) // the referrer's free first
	e.WaitStatus(t, own.GetId(), domain.StatusCompleted, waitFor)
	reward := sendWithCredit(t, e, referrer, referrerCard, "reward", 8000)
	if fee(reward) == 0 || reward.GetCreditAppliedCents() != fee(reward) || reward.GetCardChargeCents() != 8000 {
		t.Fatalf("referrer's transfer = credit %d, card %d of %d", reward.GetCreditAppliedCents(), reward.GetCardChargeCents(), reward.GetTotalAmountCents())
	}
	e.WaitStatus(t, reward.GetId(), domain.StatusCompleted, waitFor)
	if charged, ok := e.Payments.Charged(reward.GetId()); !ok || charged.Cents() != 8000 {
		t.Fatalf("referrer's card charged %v (%v), want R80", charged, ok)
	}

	if _, err := e.Client.CancelTransfer(e.Ctx(t, friend), &transfersv1.CancelTransferRequest{TransferId: small.GetId()}); err != nil {
		t.Fatal(err)
	}
	if c := credit(t, e, friend); c.GetBalanceCents() != 5000 {
		t.Fatalf("credit after the cancel = %d", c.GetBalanceCents())
	}
	testkit.Eventually(t, waitFor, "the card refund", func() bool {
		_, amount, ok := e.Payments.Refunded("refund-" + small.GetId())
		return ok && amount.Cents() == 5000
	})
	e.CheckLedger(t)
}

// TestPartCreditCancelAndExpiry: the card is charged and refunded only what the credit did not
// pay (the amount); a cancel and an expiry each return the credit.
func TestPartCreditCancelAndExpiry(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	e.StartWorker(t, nil, e.WorkerConfig())
	referrer, _ := e.NewUser()
	friend, pm := e.NewUser()
	refer(t, e, referrer, friend)
	first := sendWithCredit(t, e, friend, pm, "first", 1000) // free: nothing for the credit to pay
	e.WaitStatus(t, first.GetId(), domain.StatusCompleted, waitFor)

	cancelled := sendWithCredit(t, e, friend, pm, "cancel-me", 10_000)
	e.WaitStatus(t, cancelled.GetId(), domain.StatusCompleted, waitFor)
	if charged, _ := e.Payments.Charged(cancelled.GetId()); charged.Cents() != 10_000 || fee(cancelled) == 0 || cancelled.GetCreditAppliedCents() != fee(cancelled) {
		t.Fatalf("charged %v of total %d with R50 credit", charged, cancelled.GetTotalAmountCents())
	}
	if _, err := e.Client.CancelTransfer(e.Ctx(t, friend), &transfersv1.CancelTransferRequest{TransferId: cancelled.GetId()}); err != nil {
		t.Fatal(err)
	}
	if c := credit(t, e, friend); c.GetBalanceCents() != 5000 {
		t.Fatalf("credit after the cancel = %d", c.GetBalanceCents())
	}
	testkit.Eventually(t, waitFor, "the card refund", func() bool {
		_, amount, ok := e.Payments.Refunded("refund-" + cancelled.GetId())
		return ok && amount.Cents() == cancelled.GetCardChargeCents()
	})
	e.CheckLedger(t)

	expiring := sendWithCredit(t, e, friend, pm, "expire-me", 10_000)
	if fee(expiring) == 0 || expiring.GetCreditAppliedCents() != fee(expiring) {
		t.Fatalf("the returned credit was not spent again: %d", expiring.GetCreditAppliedCents())
	}
	e.WaitStatus(t, expiring.GetId(), domain.StatusCompleted, waitFor)
	e.Clock.Advance(domain.DefaultVoucherTTL + time.Hour)
	testkit.Eventually(t, waitFor, "the expiry's card refund", func() bool {
		_, amount, ok := e.Payments.Refunded("refund-" + expiring.GetId())
		return ok && amount.Cents() == expiring.GetCardChargeCents()
	})
	c := credit(t, e, friend)
	if c.GetBalanceCents() != 5000 || c.GetRecentMovements()[0].GetKind() != transfersv1.CreditMovementKind_CREDIT_MOVEMENT_KIND_RETURNED {
		t.Fatalf("credit after the expiry = %v", c)
	}
	e.CheckLedger(t)
}

// TestConcurrentSpendsOfOneUser: many creates at once share one balance: it is spent once,
// never below zero.
func TestConcurrentSpendsOfOneUser(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{MaxConns: 12})
	referrer, _ := e.NewUser()
	friend, pm := e.NewUser()
	refer(t, e, referrer, friend)

	const n = 10
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		applied int64
		credits int
	)
	for i := range n {
		wg.Go(func() {
			req := testkit.Request(fmt.Sprintf("race-%d", i), pm)
			req.AmountCents = 4000
			res, err := e.Client.CreateTransfer(e.Ctx(t, friend), req)
			if err != nil {
				t.Errorf("CreateTransfer: %v", err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			applied += res.GetTransfer().GetCreditAppliedCents()
			if res.GetTransfer().GetCreditAppliedCents() > 0 {
				credits++
			}
		})
	}
	wg.Wait()
	// Each create in turn spends what it can on its fee (R10.12; the first is free and spends
	// nothing), the fifth that spends the rest: R50 in all, never more.
	if applied != 5000 || credits != 5 {
		t.Fatalf("credit spent %d over %d transfers, want exactly the R50 there was", applied, credits)
	}
	if c := credit(t, e, friend); c.GetBalanceCents() != 0 {
		t.Fatalf("balance %d", c.GetBalanceCents())
	}
	e.CheckLedger(t)
}

// TestCreditIsPrivate: the token alone names the user, so a user sees only their own balance
// and movements; no token is Unauthenticated.
func TestCreditIsPrivate(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	referrer, _ := e.NewUser()
	friend, _ := e.NewUser()
	refer(t, e, referrer, friend)

	_, err := e.Client.GetCredit(context.Background(), &transfersv1.GetCreditRequest{})
	if status.Code(err) != codes.Unauthenticated {
		t.Fatalf("no token: %v", err)
	}
	if rc := credit(t, e, referrer); rc.GetBalanceCents() != 0 || len(rc.GetRecentMovements()) != 0 {
		t.Fatalf("the referrer sees the friend's movements: %v", rc)
	}
	if fc, err := e.Client.GetCredit(e.Ctx(t, friend), &transfersv1.GetCreditRequest{}); err != nil ||
		fc.GetBalanceCents() != 5000 {
		t.Fatalf("own credit = %v, %v", fc, err)
	}
}

// TestLedgerStaysBalanced runs random welcomes, transfers (approved, declined, cancelled,
// expired, several at once per user) through the real worker, and checks after each round that
// the ledger sums to zero and no balance is below zero.
func TestLedgerStaysBalanced(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{MaxConns: 12})
	e.StartWorker(t, nil, e.WorkerConfig())
	rng := rand.New(rand.NewPCG(15, 2))
	type person struct{ id, approve, decline string }
	people := make([]person, 6)
	for i := range people {
		id, approve := e.NewUser()
		decline := uuid.NewString()
		e.Payments.AddCard(id, decline, "Old Visa", "0002", testkit.TokenDecline)
		people[i] = person{id, approve, decline}
	}
	// Everyone but the first was referred by someone before them.
	for i := 1; i < len(people); i++ {
		refer(t, e, people[rng.IntN(i)].id, people[i].id)
	}
	var created []*transfersv1.Transfer
	for round := range 4 {
		var (
			wg sync.WaitGroup
			mu sync.Mutex
		)
		for i := range 12 {
			p := people[rng.IntN(len(people))]
			card := p.approve
			if rng.IntN(4) == 0 {
				card = p.decline
			}
			amount := int64(1000 * (1 + rng.IntN(9))) // R10 to R90: credit pays their fees
			wg.Go(func() {
				req := testkit.Request(fmt.Sprintf("r%d-%d", round, i), card)
				req.AmountCents = amount
				res, err := e.Client.CreateTransfer(e.Ctx(t, p.id), req)
				if err != nil {
					t.Errorf("CreateTransfer: %v", err)
					return
				}
				mu.Lock()
				created = append(created, res.GetTransfer())
				mu.Unlock()
			})
		}
		wg.Wait()
		testkit.Eventually(t, waitFor, "every charge to be done", func() bool {
			var open int
			_ = e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM transfers WHERE status IN ('pending', 'processing')`).Scan(&open)
			return open == 0
		})
		// Cancel some vouchers; expire the rest of a round now and then.
		for _, tr := range created {
			if rng.IntN(3) == 0 {
				_, _ = e.Client.CancelTransfer(e.Ctx(t, tr.GetUserId()), &transfersv1.CancelTransferRequest{TransferId: tr.GetId()})
			}
		}
		if round == 2 {
			e.Clock.Advance(domain.DefaultVoucherTTL + time.Hour)
			testkit.Eventually(t, waitFor, "the expiries", func() bool {
				var awaiting int
				_ = e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM transfers WHERE collection_status = 'awaiting_collection'`).Scan(&awaiting)
				return awaiting == 0
			})
		}
		// More friends join between rounds.
		id, approve := e.NewUser()
		refer(t, e, people[rng.IntN(len(people))].id, id)
		people = append(people, person{id, approve, approve})
		e.CheckLedger(t)
	}
	var spent, returned, rewards int
	if err := e.Pool.QueryRow(context.Background(), `SELECT
			count(*) FILTER (WHERE kind = 'spent'), count(*) FILTER (WHERE kind = 'returned'),
			count(*) FILTER (WHERE kind = 'referral_reward')
		FROM credit_entries WHERE account LIKE 'user:%'`).Scan(&spent, &returned, &rewards); err != nil {
		t.Fatal(err)
	}
	if spent == 0 || returned == 0 || rewards == 0 {
		t.Fatalf("the random run exercised too little: %d spends, %d returns, %d rewards", spent, returned, rewards)
	}
}
