package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/thumela/thumela/services/platform/outbox"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/events"
)

// The recurring sends (migration 0011): schedules, and schedule_occurrences, one row per date
// a schedule handled. Every change writes SchedulesChanged to the outbox in its transaction.

const scheduleColumns = `id, user_id, idempotency_key, request_hash, recipient_name, recipient_phone, bank, amount_cents,
	payment_method_id, payment_method_name, payment_method_last_four, payment_method_token, bank_fee_cents, platform_fee_cents,
	frequency, start_date, end_date, state, next_date, sender_first_name, sender_last_name, sender_email,
	recipient_known_confirmed, created_at, updated_at, fee_schedule_version`

func scanSchedule(row pgx.CollectableRow) (*domain.Schedule, error) {
	var (
		d                         domain.ScheduleData
		phone, bank, freq, state  string
		amount, bankFee, platform int64
		feeVersion                int64
		start                     time.Time
		end, next                 *time.Time
	)
	if err := row.Scan(&d.ID, &d.UserID, &d.IdempotencyKey, &d.RequestHash, &d.RecipientName, &phone, &bank, &amount,
		&d.PaymentMethod.ID, &d.PaymentMethod.Name, &d.PaymentMethod.LastFour, &d.PaymentMethod.Token, &bankFee, &platform,
		&freq, &start, &end, &state, &next, &d.SenderFirstName, &d.SenderLastName, &d.SenderEmail,
		&d.RecipientKnownConfirmed, &d.CreatedAt, &d.UpdatedAt, &feeVersion); err != nil {
		return nil, err
	}
	d.RecipientPhone, d.Bank, d.Amount = domain.PhoneFromE164(phone), domain.Bank(bank), domain.Cents(amount)
	d.Quote = domain.Quote{BankFee: domain.Cents(bankFee), PlatformFee: domain.Cents(platform), ScheduleVersion: feeVersion}
	d.Frequency, d.State, d.Start = domain.Frequency(freq), domain.ScheduleState(state), domain.DateFromTime(start)
	if end != nil {
		d.End = domain.DateFromTime(*end)
	}
	if next != nil {
		d.Next = domain.DateFromTime(*next)
	}
	return domain.RestoreSchedule(d), nil
}

func nullUUID(id uuid.UUID) *uuid.UUID {
	if id == uuid.Nil {
		return nil
	}
	return &id
}

// nullDate is a date column's value: SQL NULL for the zero Date.
func nullDate(d domain.Date) *time.Time {
	if d.IsZero() {
		return nil
	}
	t := d.Time()
	return &t
}

func (r *Transfers) oneSchedule(ctx context.Context, q querier, sql string, args ...any) (*domain.Schedule, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("read schedule: %w", err)
	}
	s, err := pgx.CollectExactlyOneRow(rows, scanSchedule)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, domain.ErrScheduleNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read schedule: %w", err)
	}
	return s, nil
}

// FindScheduleByKey implements app.ScheduleRepository.
func (r *Transfers) FindScheduleByKey(ctx context.Context, userID uuid.UUID, key string) (*domain.Schedule, error) {
	return r.oneSchedule(ctx, r.pool, `SELECT `+scheduleColumns+` FROM schedules WHERE user_id = $1 AND idempotency_key = $2`, userID, key)
}

// CreateSchedule implements app.ScheduleRepository: the user's key is unique, so of two
// concurrent creates with one key the second finds the first's schedule.
func (r *Transfers) CreateSchedule(ctx context.Context, s *domain.Schedule) (*domain.Schedule, bool, error) {
	d := s.Data()
	var (
		out      *domain.Schedule
		replayed bool
	)
	err := platformpg.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO schedules (`+scheduleColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26)
			ON CONFLICT ON CONSTRAINT schedules_user_key DO NOTHING`,
			d.ID, d.UserID, d.IdempotencyKey, d.RequestHash, d.RecipientName, d.RecipientPhone.E164(), string(d.Bank), d.Amount.Cents(),
			d.PaymentMethod.ID, d.PaymentMethod.Name, d.PaymentMethod.LastFour, d.PaymentMethod.Token, d.Quote.BankFee.Cents(),
			d.Quote.PlatformFee.Cents(), string(d.Frequency), d.Start.Time(), nullDate(d.End), string(d.State), nullDate(d.Next),
			d.SenderFirstName, d.SenderLastName, d.SenderEmail, d.RecipientKnownConfirmed, d.CreatedAt, d.UpdatedAt, d.Quote.ScheduleVersion)
		if err != nil {
			return fmt.Errorf("insert schedule: %w", err)
		}
		if tag.RowsAffected() == 0 {
			out, err = r.oneSchedule(ctx, tx, `SELECT `+scheduleColumns+` FROM schedules WHERE user_id = $1 AND idempotency_key = $2`,
				d.UserID, d.IdempotencyKey)
			replayed = true
			return err
		}
		out = s
		return schedulesChanged(ctx, tx, d.UserID, d.CreatedAt)
	})
	if err != nil {
		return nil, false, err
	}
	return out, replayed, nil
}

// ListSchedules implements app.ScheduleRepository: the schedules, then their latest
// occurrences in one more statement (a window per schedule).
func (r *Transfers) ListSchedules(ctx context.Context, userID uuid.UUID) ([]*domain.Schedule, error) {
	rows, err := r.pool.Query(ctx, `SELECT `+scheduleColumns+` FROM schedules WHERE user_id = $1
		ORDER BY CASE state WHEN 'active' THEN 0 WHEN 'paused' THEN 1 ELSE 2 END, created_at DESC, id`, userID)
	if err != nil {
		return nil, fmt.Errorf("list schedules: %w", err)
	}
	list, err := pgx.CollectRows(rows, scanSchedule)
	if err != nil {
		return nil, fmt.Errorf("list schedules: %w", err)
	}
	if len(list) == 0 {
		return list, nil
	}
	ids := make([]uuid.UUID, len(list))
	for i, s := range list {
		ids[i] = s.ID()
	}
	// With each made transfer's status and reason: a declined card fails the transfer after the
	// occurrence was recorded, and the sender must not read that one as sent.
	rows, err = r.pool.Query(ctx, `SELECT recent.schedule_id, recent.date, recent.transfer_id, recent.failure_reason,
			recent.created_at, coalesce(t.status, ''), coalesce(t.failure_reason, '') FROM (
			SELECT o.*, row_number() OVER (PARTITION BY schedule_id ORDER BY date DESC) AS n
			FROM schedule_occurrences o WHERE schedule_id = ANY($1)) recent
			LEFT JOIN transfers t ON t.id = recent.transfer_id AND t.user_id = $3
		WHERE recent.n <= $2 ORDER BY recent.schedule_id, recent.date DESC`, ids, app.RecentOccurrences, userID)
	if err != nil {
		return nil, fmt.Errorf("list occurrences: %w", err)
	}
	recent := map[uuid.UUID][]domain.Occurrence{}
	var (
		sid        uuid.UUID
		date       time.Time
		transferID *uuid.UUID
		status     string
		o          domain.Occurrence
	)
	_, err = pgx.ForEachRow(rows, []any{&sid, &date, &transferID, &o.FailureReason, &o.CreatedAt, &status, &o.TransferFailure}, func() error {
		occ := o
		occ.TransferStatus = domain.Status(status)
		occ.Date = domain.DateFromTime(date)
		if transferID != nil {
			occ.TransferID = *transferID
		}
		recent[sid] = append(recent[sid], occ)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list occurrences: %w", err)
	}
	for i, s := range list {
		d := s.Data()
		d.Recent = recent[d.ID]
		list[i] = domain.RestoreSchedule(d)
	}
	return list, nil
}

// saveSchedule writes the mutable fields of s.
func saveSchedule(ctx context.Context, tx pgx.Tx, s *domain.Schedule) error {
	d := s.Data()
	if _, err := tx.Exec(ctx, `UPDATE schedules SET state = $2, next_date = $3, updated_at = $4 WHERE id = $1`,
		d.ID, string(d.State), nullDate(d.Next), d.UpdatedAt); err != nil {
		return fmt.Errorf("update schedule: %w", err)
	}
	return nil
}

// UpdateSchedule implements app.ScheduleRepository. A change that changes nothing (pausing a
// paused schedule) writes nothing and publishes nothing.
func (r *Transfers) UpdateSchedule(ctx context.Context, userID, id uuid.UUID, at time.Time, fn func(*domain.Schedule) error) (*domain.Schedule, error) {
	var out *domain.Schedule
	err := platformpg.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		s, err := r.oneSchedule(ctx, tx, `SELECT `+scheduleColumns+` FROM schedules WHERE id = $1 AND user_id = $2 FOR UPDATE`, id, userID)
		if err != nil {
			return err
		}
		was := s.Data()
		if err := fn(s); err != nil {
			return err
		}
		out = s
		if now := s.Data(); now.State == was.State && now.Next == was.Next {
			return nil
		}
		if err := saveSchedule(ctx, tx, s); err != nil {
			return err
		}
		return schedulesChanged(ctx, tx, userID, at)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteSchedule implements app.ScheduleRepository. A scheduler running the schedule holds
// its row: the delete waits for that run to commit, so no occurrence is half recorded.
func (r *Transfers) DeleteSchedule(ctx context.Context, userID, id uuid.UUID, at time.Time) error {
	return platformpg.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM schedules WHERE id = $1 AND user_id = $2`, id, userID)
		if err != nil {
			return fmt.Errorf("delete schedule: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return domain.ErrScheduleNotFound
		}
		return schedulesChanged(ctx, tx, userID, at)
	})
}

// RenameScheduleSender implements app.ScheduleRepository. A schedule being run holds its row: the
// rename waits for that run, whose occurrences keep the names they were made with.
func (r *Transfers) RenameScheduleSender(ctx context.Context, userID uuid.UUID, firstName, lastName string, changedAt time.Time) (int64, error) {
	tag, err := r.pool.Exec(ctx, `UPDATE schedules SET sender_first_name = $2, sender_last_name = $3, sender_renamed_at = $4
		WHERE user_id = $1 AND state <> 'ended' AND created_at < $4 AND (sender_renamed_at IS NULL OR sender_renamed_at < $4)`,
		userID, firstName, lastName, changedAt)
	if err != nil {
		return 0, fmt.Errorf("rename schedules' sender: %w", err)
	}
	return tag.RowsAffected(), nil
}

// RunDueSchedule implements app.ScheduleRepository. The claim's transaction holds the
// schedule's row while run makes the occurrences' transfers (each in its own transaction,
// through Create, under the sender's lock); so a second scheduler skips it, and a pause or a
// delete waits for the run to be recorded.
func (r *Transfers) RunDueSchedule(ctx context.Context, today domain.Date, at time.Time, skip []uuid.UUID,
	run func(ctx context.Context, s *domain.Schedule) ([]domain.Occurrence, error)) (uuid.UUID, bool, error) {
	var (
		id    uuid.UUID
		found bool
	)
	if skip == nil {
		skip = []uuid.UUID{}
	}
	err := platformpg.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		s, err := r.oneSchedule(ctx, tx, `SELECT `+scheduleColumns+` FROM schedules
			WHERE state = 'active' AND next_date <= $1 AND NOT (id = ANY($2))
			ORDER BY next_date, id LIMIT 1 FOR UPDATE SKIP LOCKED`, today.Time(), skip)
		if errors.Is(err, domain.ErrScheduleNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		id, found = s.ID(), true
		occs, err := run(ctx, s)
		if err != nil {
			return err
		}
		for _, o := range occs {
			tag, err := tx.Exec(ctx, `INSERT INTO schedule_occurrences (schedule_id, date, transfer_id, failure_reason, created_at)
				VALUES ($1, $2, $3, $4, $5) ON CONFLICT (schedule_id, date) DO NOTHING`,
				id, o.Date.Time(), nullUUID(o.TransferID), o.FailureReason, o.CreatedAt)
			if err != nil {
				return fmt.Errorf("record occurrence: %w", err)
			}
			if tag.RowsAffected() == 0 || o.FailureReason == "" || o.TransferID != uuid.Nil {
				continue // recorded before, or a transfer (whose own events tell how it goes)
			}
			msg, ok, err := events.OccurrenceRefused(s, o.Date, o.FailureReason, at)
			if err != nil {
				return err
			}
			if ok {
				if err := outbox.Write(ctx, tx, msg); err != nil {
					return err
				}
			}
		}
		if err := saveSchedule(ctx, tx, s); err != nil {
			return err
		}
		return schedulesChanged(ctx, tx, s.UserID(), at)
	})
	return id, found, err
}

// schedulesChanged writes a SchedulesChanged event with a new id: each change is its own.
func schedulesChanged(ctx context.Context, tx pgx.Tx, userID uuid.UUID, at time.Time) error {
	msg, err := events.SchedulesChanged(userID, at)
	if err != nil {
		return err
	}
	return outbox.Write(ctx, tx, msg)
}
