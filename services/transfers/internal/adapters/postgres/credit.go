package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/thumela/thumela/services/platform/outbox"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/events"
)

// The credit ledger (migration 0012, docs/credit.md). move is the one function that writes it:
// a movement's two entries and both balances, in the caller's transaction, so a transfer's
// spend commits with its insert, its return with its failure, cancel or expiry, and a
// referrer's reward with the friend's completion.
//
// Lock order: a movement locks its two accounts in the order of their names, and every system
// account ("system:…") sorts before every user account ("user:…"). So every transaction that
// moves credit takes a system account's row first and queues there, and two of them (a spend
// and an expiry batch returning credit to several users) cannot hold each other's user rows.

// SetReferralReward sets what a referrer is paid when their friend's first transfer completes
// (TRANSFERS_REFERRAL_REWARD_CENTS; domain.DefaultReferralReward until set). Call it before
// the repository is used.
func (r *Transfers) SetReferralReward(m domain.Money) { r.referralReward = m }

// lockAccounts creates the accounts that do not exist yet (at zero) and locks them all, in the
// order of their names; it returns their balances.
func lockAccounts(ctx context.Context, tx pgx.Tx, at time.Time, accounts ...string) (map[string]int64, error) {
	accounts = slices.Clone(accounts)
	slices.Sort(accounts)
	accounts = slices.Compact(accounts)
	if _, err := tx.Exec(ctx, `INSERT INTO credit_accounts (account, balance_cents, updated_at)
		SELECT a, 0, $2 FROM unnest($1::text[]) WITH ORDINALITY AS u(a, n) ORDER BY n
		ON CONFLICT (account) DO NOTHING`, accounts, at); err != nil {
		return nil, fmt.Errorf("credit accounts: %w", err)
	}
	rows, err := tx.Query(ctx, `SELECT account, balance_cents FROM credit_accounts WHERE account = ANY($1)
		ORDER BY account FOR UPDATE`, accounts)
	if err != nil {
		return nil, fmt.Errorf("lock credit accounts: %w", err)
	}
	balances := make(map[string]int64, len(accounts))
	var (
		account string
		balance int64
	)
	if _, err := pgx.ForEachRow(rows, []any{&account, &balance}, func() error {
		balances[account] = balance
		return nil
	}); err != nil {
		return nil, fmt.Errorf("lock credit accounts: %w", err)
	}
	return balances, nil
}

// move writes the movement m in tx: its two entries (-Amount on m.From, +Amount on m.To) and
// both balances, and a CreditChanged event for m.User. A movement already written (its id is
// derived from what it is for) moves nothing again: moved is false. A user's balance that
// would go below zero is domain.ErrInsufficientCredit, and the database's CHECK refuses it
// whatever the caller checked.
func move(ctx context.Context, tx pgx.Tx, m domain.Movement) (moved bool, err error) {
	if m.Amount.Cents() <= 0 || m.From == m.To {
		return false, fmt.Errorf("credit movement %s: amount %s from %s to %s", m.ID, m.Amount, m.From, m.To)
	}
	if _, err := lockAccounts(ctx, tx, m.At, m.From, m.To); err != nil {
		return false, err
	}
	var transferID *uuid.UUID
	if m.TransferID != uuid.Nil {
		transferID = &m.TransferID
	}
	tag, err := tx.Exec(ctx, `INSERT INTO credit_entries (movement_id, account, amount_cents, kind, transfer_id, created_at)
		VALUES ($1, $2, $3, $5, $6, $7), ($1, $4, -$3::bigint, $5, $6, $7)
		ON CONFLICT ON CONSTRAINT credit_entries_movement_account_key DO NOTHING`,
		m.ID, m.To, m.Amount.Cents(), m.From, string(m.Kind), transferID, m.At)
	if err != nil {
		return false, fmt.Errorf("credit entries: %w", err)
	}
	switch tag.RowsAffected() {
	case 0:
		return false, nil // written before: a redelivery or a retry
	case 2:
	default:
		return false, fmt.Errorf("credit movement %s half written before", m.ID)
	}
	rows, err := tx.Query(ctx, `UPDATE credit_accounts SET balance_cents = balance_cents + d.delta, updated_at = $5
		FROM (VALUES ($1::text, $2::bigint), ($3::text, $4::bigint)) AS d(account, delta)
		WHERE credit_accounts.account = d.account
		RETURNING credit_accounts.account, credit_accounts.balance_cents`,
		m.To, m.Amount.Cents(), m.From, -m.Amount.Cents(), m.At)
	if err != nil {
		return false, creditError(err)
	}
	var (
		account string
		balance int64
		user    = domain.UserAccount(m.User)
		userBal *int64
		n       int
	)
	if _, err := pgx.ForEachRow(rows, []any{&account, &balance}, func() error {
		n++
		if account == user {
			b := balance
			userBal = &b
		}
		return nil
	}); err != nil {
		return false, creditError(err)
	}
	if n != 2 || userBal == nil {
		return false, fmt.Errorf("credit movement %s: %d balances updated", m.ID, n)
	}
	if err := creditChanged(ctx, tx, m.User, m.ID, domain.Cents(*userBal), m.At); err != nil {
		return false, err
	}
	return true, nil
}

// creditError translates a user balance going below zero.
func creditError(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.ConstraintName == "credit_accounts_user_not_negative" {
		return domain.ErrInsufficientCredit
	}
	return fmt.Errorf("credit balances: %w", err)
}

// creditChanged writes CreditChanged for user, whose balance is now balance, for the change
// what (a movement, a friend joining).
func creditChanged(ctx context.Context, tx pgx.Tx, user, what uuid.UUID, balance domain.Money, at time.Time) error {
	msg, err := events.CreditChanged(user, events.CreditChangedID(user, what), balance, at)
	if err != nil {
		return err
	}
	return outbox.Write(ctx, tx, msg)
}

// accountBalanceSQL reads an account's balance, 0 when it has none ($1 the account): the create
// reads it with the sender's other state, in the batch that takes the sender's lock.
const accountBalanceSQL = `SELECT coalesce((SELECT balance_cents FROM credit_accounts WHERE account = $1), 0)`

// spendCredit spends the sender's credit on the new transfer t (not yet inserted), in the
// transaction creating it: min(balance, fee) (domain.Transfer.ApplyCredit), the card charged
// the rest. balance is the sender's balance as read in the create's first batch
// (accountBalanceSQL): a sender without credit costs nothing more and locks nothing; one with
// credit locks their account (after the system account, see the lock order), reading the
// balance again under the lock, for the rest of the create, so two concurrent creates cannot
// spend the same rand (they are serialised by the sender's lock already; a scheduler's
// occurrence takes the same path).
func spendCredit(ctx context.Context, tx pgx.Tx, t *domain.Transfer, balance int64) error {
	if balance <= 0 {
		return nil
	}
	account := domain.UserAccount(t.UserID())
	balances, err := lockAccounts(ctx, tx, t.State().CreatedAt, domain.AccountCreditSpent, account)
	if err != nil {
		return err
	}
	t.ApplyCredit(domain.Cents(balances[account]))
	if t.CreditApplied().IsZero() {
		return nil
	}
	_, err = move(ctx, tx, domain.SpendMovement(t))
	return err
}

// lockCreditReturn locks the credit accounts a change of t from was returns credit to
// (system:credit_spent and the sender's) before the change's row is written, when it returns
// any. The row's write gives the sender's usage back (the usage trigger, migration 0008), and a
// create takes the same accounts before its insert adds to that usage: a return that took the
// usage rows first and the accounts second deadlocked with the sender's create (found by
// TestLedgerStaysBalanced once credit paid fees only and more transfers carried credit). Every
// transaction that moves credit and touches a sender's usage now takes the accounts first.
func lockCreditReturn(ctx context.Context, tx pgx.Tx, t *domain.Transfer, was domain.State) error {
	if !t.CreditReturnDue(was) {
		return nil
	}
	_, err := lockAccounts(ctx, tx, t.State().UpdatedAt, domain.AccountCreditSpent, domain.UserAccount(t.UserID()))
	return err
}

// creditOnSave is the credit's part of saving t, locked in tx in state was: the credit a
// failed, cancelled or expired transfer spent returns; and the completion of a referred
// friend's first transfer pays their referrer, once (rewarded_at is set under the referral
// row's lock, so two completions of the friend's transfers pay once).
func (r *Transfers) creditOnSave(ctx context.Context, tx pgx.Tx, t *domain.Transfer, was domain.State) error {
	at := t.State().UpdatedAt
	if t.CreditReturnDue(was) {
		if _, err := move(ctx, tx, domain.ReturnMovement(t, at)); err != nil {
			return err
		}
	}
	if !t.Completed(was) {
		return nil
	}
	var referrer uuid.UUID
	err := tx.QueryRow(ctx, `UPDATE referrals SET rewarded_at = $2 WHERE friend_id = $1 AND rewarded_at IS NULL
		RETURNING referrer_id`, t.UserID(), at).Scan(&referrer)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // not referred, or the referrer was paid for an earlier transfer
	}
	if err != nil {
		return fmt.Errorf("referral reward: %w", err)
	}
	return r.payReferrer(ctx, tx, t, referrer, at)
}

// payReferrer pays referrer the reward for their friend's first completed transfer t, whose
// referral row was marked rewarded in tx.
func (r *Transfers) payReferrer(ctx context.Context, tx pgx.Tx, t *domain.Transfer, referrer uuid.UUID, at time.Time) error {
	reward := r.referralReward
	if reward.IsZero() {
		reward = domain.DefaultReferralReward
	}
	_, err := move(ctx, tx, domain.RewardMovement(referrer, t.UserID(), reward, at))
	return err
}

// ReferrerOf implements app.CreditRepository.
func (r *Transfers) ReferrerOf(ctx context.Context, code string) (uuid.UUID, error) {
	var id uuid.UUID
	err := r.pool.QueryRow(ctx, `SELECT user_id FROM referral_codes WHERE code = $1`, code).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return uuid.Nil, domain.ErrNotFound
	}
	if err != nil {
		return uuid.Nil, fmt.Errorf("referral code: %w", err)
	}
	return id, nil
}

// Welcome implements app.CreditRepository: the referral row and the friend's welcome credit
// commit together, so a redelivered UserVerified finds the row and pays nothing again. The
// referrer's figures (friends joined) changed too: they get a CreditChanged.
func (r *Transfers) Welcome(ctx context.Context, friend, referrer uuid.UUID, code string, amount domain.Money, at time.Time) (bool, error) {
	welcomed := false
	err := platformpg.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		welcomed = false
		tag, err := tx.Exec(ctx, `INSERT INTO referrals (friend_id, referrer_id, code, joined_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (friend_id) DO NOTHING`, friend, referrer, code, at)
		if err != nil {
			return fmt.Errorf("record referral: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return nil // welcomed before
		}
		if !amount.IsZero() {
			if _, err := move(ctx, tx, domain.WelcomeMovement(friend, amount, at)); err != nil {
				return err
			}
		}
		var balance int64
		err = tx.QueryRow(ctx, `SELECT balance_cents FROM credit_accounts WHERE account = $1`, domain.UserAccount(referrer)).Scan(&balance)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("read credit: %w", err)
		}
		if err := creditChanged(ctx, tx, referrer, friend, domain.Cents(balance), at); err != nil {
			return err
		}
		welcomed = true
		return nil
	})
	if err != nil {
		return false, err
	}
	return welcomed, nil
}

// Credit implements app.CreditRepository. The user's referral code is stored the first time
// (the first candidate no other user holds); the figures are read in one snapshot.
func (r *Transfers) Credit(ctx context.Context, userID uuid.UUID, at time.Time) (domain.Credit, error) {
	code, err := r.referralCode(ctx, userID, at)
	if err != nil {
		return domain.Credit{}, err
	}
	out := domain.Credit{ReferralCode: code}
	account := domain.UserAccount(userID)
	snapshot := pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	err = platformpg.InTxWith(ctx, r.pool, snapshot, func(tx pgx.Tx) error {
		var balance, rewards int64
		if err := tx.QueryRow(ctx, `SELECT
				coalesce((SELECT balance_cents FROM credit_accounts WHERE account = $1), 0),
				(SELECT count(*) FROM referrals WHERE referrer_id = $2),
				(SELECT count(*) FROM referrals WHERE referrer_id = $2 AND rewarded_at IS NOT NULL),
				coalesce((SELECT sum(amount_cents) FROM credit_entries WHERE account = $1 AND kind = 'referral_reward'), 0)`,
			account, userID).Scan(&balance, &out.FriendsJoined, &out.FriendsRewarded, &rewards); err != nil {
			return fmt.Errorf("read credit: %w", err)
		}
		out.Balance, out.RewardsEarned = domain.Cents(balance), domain.Cents(rewards)
		rows, err := tx.Query(ctx, `SELECT movement_id, kind, amount_cents, transfer_id, created_at FROM credit_entries
			WHERE account = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, account, domain.MaxRecentCredit)
		if err != nil {
			return fmt.Errorf("read credit movements: %w", err)
		}
		out.Recent, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (domain.CreditEntry, error) {
			var (
				e          domain.CreditEntry
				kind       string
				amount     int64
				transferID *uuid.UUID
			)
			if err := row.Scan(&e.MovementID, &kind, &amount, &transferID, &e.At); err != nil {
				return e, err
			}
			e.Kind, e.Amount = domain.CreditKind(kind), domain.Cents(amount)
			if transferID != nil {
				e.TransferID = *transferID
			}
			return e, nil
		})
		if err != nil {
			return fmt.Errorf("read credit movements: %w", err)
		}
		return nil
	})
	if err != nil {
		return domain.Credit{}, err
	}
	return out, nil
}

// referralCode returns the user's stored referral code, storing it the first time: the first
// candidate (domain.ReferralCodeCandidate) that no other user holds.
func (r *Transfers) referralCode(ctx context.Context, userID uuid.UUID, at time.Time) (string, error) {
	var code string
	err := r.pool.QueryRow(ctx, `SELECT code FROM referral_codes WHERE user_id = $1`, userID).Scan(&code)
	if err == nil {
		return code, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("referral code: %w", err)
	}
	for attempt := range domain.MaxReferralCodeCandidates {
		// ON CONFLICT DO NOTHING covers both the user's own row (a concurrent first call) and
		// another user's code; the read after it tells which.
		if _, err := r.pool.Exec(ctx, `INSERT INTO referral_codes (user_id, code, created_at) VALUES ($1, $2, $3)
			ON CONFLICT DO NOTHING`, userID, domain.ReferralCodeCandidate(userID, attempt), at); err != nil {
			return "", fmt.Errorf("store referral code: %w", err)
		}
		err := r.pool.QueryRow(ctx, `SELECT code FROM referral_codes WHERE user_id = $1`, userID).Scan(&code)
		if err == nil {
			return code, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return "", fmt.Errorf("referral code: %w", err)
		}
	}
	return "", fmt.Errorf("no free referral code for user %s after %d candidates", userID, domain.MaxReferralCodeCandidates)
}
