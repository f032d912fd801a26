package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/thumela/thumela/services/platform/outbox"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/events"
)

// The saved recipients (migration 0009): one row per sender and phone, saved by the
// transaction that completes a transfer, edited and deleted from /recipients. Every change
// writes RecipientsChanged to the outbox in its own transaction, so the tabs never miss one.

const recipientColumns = `id, user_id, name, phone, bank, created_at, updated_at, last_paid_at`

func scanRecipient(row pgx.CollectableRow) (domain.Recipient, error) {
	var (
		r           domain.Recipient
		phone, bank string
		paid        *time.Time
	)
	if err := row.Scan(&r.ID, &r.UserID, &r.Name, &phone, &bank, &r.CreatedAt, &r.UpdatedAt, &paid); err != nil {
		return domain.Recipient{}, err
	}
	r.Phone, r.Bank, r.LastPaidAt = domain.PhoneFromE164(phone), domain.Bank(bank), deref(paid)
	return r, nil
}

// saveRecipientOnCompletion saves the recipient of a transfer that has just completed (was is
// the state it was locked in) unless the sender unticked it, with its RecipientsChanged event,
// in the completing transaction: a completion is never committed without its recipient. A
// repeat payment to the phone updates the name, the bank and last_paid_at, unless the row was
// already paid later (two completions committing out of order keep the newer details).
func (r *Transfers) saveRecipientOnCompletion(ctx context.Context, tx pgx.Tx, t *domain.Transfer, was domain.State) error {
	b := &pgx.Batch{}
	if err := queueRecipientOnCompletion(ctx, tx, b, t, was); err != nil || b.Len() == 0 {
		return err
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("save recipient: %w", err)
	}
	return nil
}

// queueRecipientOnCompletion is saveRecipientOnCompletion queued on b, which the caller sends
// on tx (the worker's completion sends it with the transfer's own update: one round trip).
func queueRecipientOnCompletion(ctx context.Context, tx pgx.Tx, b *pgx.Batch, t *domain.Transfer, was domain.State) error {
	if was.Status == domain.StatusCompleted {
		return nil // not the completion itself (a later change of the voucher)
	}
	rec, ok := t.SavedRecipient()
	if !ok {
		return nil
	}
	b.Queue(`INSERT INTO recipients (id, user_id, name, phone, bank, created_at, updated_at, last_paid_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6, $6)
		ON CONFLICT ON CONSTRAINT recipients_user_phone_key DO UPDATE
		SET name = EXCLUDED.name, bank = EXCLUDED.bank, last_paid_at = EXCLUDED.last_paid_at, updated_at = EXCLUDED.updated_at
		WHERE recipients.last_paid_at IS NULL OR recipients.last_paid_at <= EXCLUDED.last_paid_at`,
		uuid.New(), rec.UserID, rec.Name, rec.Phone.E164(), string(rec.Bank), rec.LastPaidAt)
	msg, err := events.RecipientsChanged(rec.UserID, events.RecipientSavedID(t), rec.LastPaidAt)
	if err != nil {
		return err
	}
	return outbox.Queue(ctx, tx, b, msg)
}

// followPhoneChange moves the saved recipient of a completed transfer whose phone number the
// sender just changed (was holds the old one) to the new number, with its RecipientsChanged
// event, in the change's transaction: the sender changed it because the old one was wrong, and
// the next send from /recipients or the wizard's saved card would otherwise go to it again. A
// saved recipient already at the new number is left as it is (one row per number), as is a
// transfer whose sender chose not to save its recipient.
func (r *Transfers) followPhoneChange(ctx context.Context, tx pgx.Tx, t *domain.Transfer, was domain.State) error {
	s := t.State()
	if was.Status != domain.StatusCompleted || !s.SaveRecipient || was.RecipientPhone.E164() == s.RecipientPhone.E164() {
		return nil
	}
	tag, err := tx.Exec(ctx, `UPDATE recipients SET phone = $3, updated_at = $4
		WHERE user_id = $1 AND phone = $2
		AND NOT EXISTS (SELECT 1 FROM recipients WHERE user_id = $1 AND phone = $3)`,
		s.UserID, was.RecipientPhone.E164(), s.RecipientPhone.E164(), s.UpdatedAt)
	if err != nil {
		return fmt.Errorf("move saved recipient to the new phone: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return nil
	}
	msg, err := events.RecipientsChanged(s.UserID, events.RecipientPhoneChangedID(t), s.UpdatedAt)
	if err != nil {
		return err
	}
	return outbox.Write(ctx, tx, msg)
}

// ListRecipients implements app.RecipientRepository.
func (r *Transfers) ListRecipients(ctx context.Context, userID uuid.UUID, query string) ([]domain.Recipient, error) {
	where, args := []string{"user_id = $1"}, []any{userID}
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if query != "" {
		p := arg("%" + escapeLike(query) + "%")
		conds := []string{"name ILIKE " + p, "phone LIKE " + p}
		digits := onlyDigits(query)
		if digits != "" && digits != query {
			conds = append(conds, "phone LIKE "+arg("%"+digits+"%"))
		}
		if len(digits) > 1 && digits[0] == '0' {
			// National notation: "082…" is "+2782…".
			conds = append(conds, "phone LIKE "+arg("+27"+digits[1:]+"%"))
		}
		where = append(where, "("+strings.Join(conds, " OR ")+")")
	}
	rows, err := r.pool.Query(ctx, `SELECT `+recipientColumns+` FROM recipients WHERE `+strings.Join(where, " AND ")+
		` ORDER BY last_paid_at DESC NULLS LAST, name, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("list recipients: %w", err)
	}
	list, err := pgx.CollectRows(rows, scanRecipient)
	if err != nil {
		return nil, fmt.Errorf("list recipients: %w", err)
	}
	return list, nil
}

// UpdateRecipient implements app.RecipientRepository.
func (r *Transfers) UpdateRecipient(ctx context.Context, userID, id uuid.UUID, edit domain.RecipientEdit, at time.Time) (domain.Recipient, error) {
	var out domain.Recipient
	err := platformpg.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `UPDATE recipients SET name = $3, phone = $4, bank = $5, updated_at = $6
			WHERE id = $1 AND user_id = $2 RETURNING `+recipientColumns,
			id, userID, edit.Name, edit.Phone.E164(), string(edit.Bank), at)
		if err != nil {
			return fmt.Errorf("update recipient: %w", err)
		}
		out, err = pgx.CollectExactlyOneRow(rows, scanRecipient)
		if constraint, ok := platformpg.IsUniqueViolation(err); ok && constraint == "recipients_user_phone_key" {
			return domain.ErrRecipientPhoneTaken
		}
		if errors.Is(err, pgx.ErrNoRows) {
			return domain.ErrRecipientNotFound
		}
		if err != nil {
			return fmt.Errorf("update recipient: %w", err)
		}
		return r.recipientsChanged(ctx, tx, userID, at)
	})
	if err != nil {
		return domain.Recipient{}, err
	}
	return out, nil
}

// DeleteRecipient implements app.RecipientRepository.
func (r *Transfers) DeleteRecipient(ctx context.Context, userID, id uuid.UUID, at time.Time) error {
	return platformpg.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM recipients WHERE id = $1 AND user_id = $2`, id, userID)
		if err != nil {
			return fmt.Errorf("delete recipient: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return domain.ErrRecipientNotFound
		}
		return r.recipientsChanged(ctx, tx, userID, at)
	})
}

// recipientsChanged writes a RecipientsChanged event with a new id: each edit is its own.
func (r *Transfers) recipientsChanged(ctx context.Context, tx pgx.Tx, userID uuid.UUID, at time.Time) error {
	msg, err := events.RecipientsChanged(userID, uuid.Nil, at)
	if err != nil {
		return err
	}
	return outbox.Write(ctx, tx, msg)
}
