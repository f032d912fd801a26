package domain

import (
	"errors"
	"time"

	"github.com/google/uuid"
)

// Transfer credit: money the service owes a user, spent on their transfers before their card.
// It lives in a double-entry ledger (docs/credit.md): every Movement takes an amount from one
// account and gives it to another, so the accounts always sum to zero, and a user's account
// never goes below zero.

// CreditKind is what a movement is for.
type CreditKind string

// The kinds of movement.
const (
	// CreditWelcome: a friend who signed up with a referral code is welcomed (R50).
	CreditWelcome CreditKind = "referral_welcome"
	// CreditReward: a referrer is paid when their friend's first transfer completes (R100).
	CreditReward CreditKind = "referral_reward"
	// CreditSpent: credit spent on a transfer, in the transaction that creates it.
	CreditSpent CreditKind = "spent"
	// CreditReturned: the credit a transfer spent is put back: its charge failed, or its voucher
	// was cancelled or expired.
	CreditReturned CreditKind = "returned"
)

// The system accounts: the promotions that pay welcomes and rewards (its balance is minus what
// they have paid out), and the credit spent on transfers (what returns come back from).
const (
	AccountReferralPromotions = "system:referral_promotions"
	AccountCreditSpent        = "system:credit_spent"
)

// Default amounts of the referral programme (TRANSFERS_REFERRAL_WELCOME_CENTS and
// TRANSFERS_REFERRAL_REWARD_CENTS).
var (
	DefaultReferralWelcome = Cents(5000)
	DefaultReferralReward  = Cents(10000)
)

// ErrInsufficientCredit: a movement would take a user's credit below zero. The spend takes at
// most the balance, so this means a concurrent change the lock should have prevented.
var ErrInsufficientCredit = errors.New("not enough credit")

// UserAccount is the ledger account of a user's credit.
func UserAccount(userID uuid.UUID) string { return "user:" + userID.String() }

// Movement moves Amount (positive) from the account From to the account To: two entries, -Amount
// on From and +Amount on To. Its ID is derived from what it is for, so that doing it again (a
// redelivered event, a retried transaction) finds it done.
type Movement struct {
	ID         uuid.UUID
	Kind       CreditKind
	From, To   string
	Amount     Money
	TransferID uuid.UUID // uuid.Nil for welcomes and rewards
	At         time.Time
	// User is the user whose credit moves (whose CreditChanged is published).
	User uuid.UUID
}

// movementID names the movement what of subject (a friend, a transfer): each happens once.
func movementID(subject uuid.UUID, what string) uuid.UUID {
	return uuid.NewSHA1(subject, []byte("credit/"+what))
}

// WelcomeMovement is friend's welcome credit: once per friend.
func WelcomeMovement(friend uuid.UUID, amount Money, at time.Time) Movement {
	return Movement{ID: movementID(friend, "welcome"), Kind: CreditWelcome, From: AccountReferralPromotions,
		To: UserAccount(friend), Amount: amount, At: at, User: friend}
}

// RewardMovement pays referrer for friend's first completed transfer: once per friend.
func RewardMovement(referrer, friend uuid.UUID, amount Money, at time.Time) Movement {
	return Movement{ID: movementID(friend, "reward"), Kind: CreditReward, From: AccountReferralPromotions,
		To: UserAccount(referrer), Amount: amount, At: at, User: referrer}
}

// SpendMovement is the credit t spends (its CreditApplied), in the transaction creating it.
func SpendMovement(t *Transfer) Movement {
	return Movement{ID: movementID(t.ID(), "spent"), Kind: CreditSpent, From: UserAccount(t.UserID()),
		To: AccountCreditSpent, Amount: t.CreditApplied(), TransferID: t.ID(), At: t.s.CreatedAt, User: t.UserID()}
}

// ReturnMovement puts back the credit t spent, at at.
func ReturnMovement(t *Transfer, at time.Time) Movement {
	return Movement{ID: movementID(t.ID(), "returned"), Kind: CreditReturned, From: AccountCreditSpent,
		To: UserAccount(t.UserID()), Amount: t.CreditApplied(), TransferID: t.ID(), At: at, User: t.UserID()}
}

// SignedFor is the movement's amount as account's balance sees it: negative when it leaves.
func (m Movement) SignedFor(account string) Money {
	if account == m.From {
		return Cents(-m.Amount.Cents())
	}
	return m.Amount
}

// CreditEntry is one of a user's movements as they see it: Amount is signed (spent is
// negative).
type CreditEntry struct {
	MovementID uuid.UUID
	Kind       CreditKind
	Amount     Money
	TransferID uuid.UUID
	At         time.Time
}

// Credit is a user's credit and referral figures (GetCredit).
type Credit struct {
	Balance         Money
	ReferralCode    string
	FriendsJoined   int
	FriendsRewarded int
	RewardsEarned   Money
	// Recent are the latest movements, newest first.
	Recent []CreditEntry
}

// MaxRecentCredit is how many movements GetCredit returns.
const MaxRecentCredit = 20

// ApplyCredit spends up to balance on the new transfer t's fee: min(balance, fee charged), so
// the card is charged the amount and the rest of the fee (CardCharge). Only a transfer not yet
// stored may take credit.
//
// Credit pays fees, never the amount sent: the amount leaves an ATM as cash, so credit that paid
// it would be cash. Promotional credit is granted per verified e-mail address and a card may be
// saved on any number of accounts, so credit that paid amounts let anyone turn throw-away
// accounts into ATM cash with no card charged (R50 per friend and R100 per reward, a probe of
// 30 Nov 2026; docs/credit.md). Fees are Thumela's own revenue: credit spent on them costs
// Thumela a discount, never cash.
func (t *Transfer) ApplyCredit(balance Money) {
	if t.s.Status != StatusPending || balance.Cents() <= 0 {
		return
	}
	applied := balance
	if fee := t.s.Fee.Charged(); fee.Less(applied) {
		applied = fee
	}
	t.s.CreditApplied = applied
}

// CreditApplied is the sender's credit spent on the transfer.
func (t *Transfer) CreditApplied() Money { return t.s.CreditApplied }

// CardCharge is what the sender's card is charged: the total less the credit applied. It is at
// least the amount (ApplyCredit); a zero charge (a state only Restore can build, from a row
// written before credit paid fees only) makes the worker call no processor and owes no card
// refund.
func (t *Transfer) CardCharge() Money { return t.Total().Sub(t.s.CreditApplied) }

// CreditReturnDue reports whether the change from was to t's current state gives the
// transfer's money back, so its credit returns: the charge failed, or the voucher was cancelled
// or expired. Exactly one change of a transfer's life is such a give-back.
func (t *Transfer) CreditReturnDue(was State) bool {
	if t.s.CreditApplied.IsZero() {
		return false
	}
	s := t.s
	failed := was.Status != StatusFailed && s.Status == StatusFailed
	ended := was.Voucher.Status == CollectionAwaiting &&
		(s.Voucher.Status == CollectionCancelled || s.Voucher.Status == CollectionExpired)
	return failed || ended
}

// Completed reports whether the change from was is the transfer's completion (the referrer's
// reward is decided then).
func (t *Transfer) Completed(was State) bool {
	return was.Status != StatusCompleted && t.s.Status == StatusCompleted
}
