package postgres

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// usageSQL reads the sender's ($1) running totals of the current day ($2), month ($3) and year
// ($4) (usage_totals, kept by the transfers_track_usage trigger, 0008) and tells whether they
// have any transfer that has not failed (the first-transfer waiver is used), in one round trip.
// Three primary-key probes and one EXISTS that stops at the first row: the cost does not grow
// with the sender's history.
const usageSQL = `SELECT
	coalesce(sum(used_cents) FILTER (WHERE period = 'day'), 0),
	coalesce(sum(used_cents) FILTER (WHERE period = 'month'), 0),
	coalesce(sum(used_cents) FILTER (WHERE period = 'year'), 0),
	` + hasTransferredSQL + `
	FROM usage_totals WHERE user_id = $1 AND (
		(period = 'day' AND period_start = $2::date) OR
		(period = 'month' AND period_start = $3::date) OR
		(period = 'year' AND period_start = $4::date))`

// hasTransferredSQL: the sender ($1) has a transfer that has not failed, so their
// first-transfer waiver is used. One rule for the create (usageSQL) and the quote.
const hasTransferredSQL = `EXISTS (SELECT 1 FROM transfers WHERE user_id = $1 AND status <> 'failed')`

// usageArgs are usageSQL's arguments. The periods' starts go as Johannesburg calendar dates,
// spelled out, so that no driver conversion of a time.Time to a date can pick another zone.
func usageArgs(userID uuid.UUID, p domain.Periods) []any {
	const day = "2006-01-02"
	return []any{userID,
		p.DayStart.In(domain.Johannesburg).Format(day),
		p.MonthStart.In(domain.Johannesburg).Format(day),
		p.YearStart.In(domain.Johannesburg).Format(day)}
}

func scanUsage(row pgx.Row) (app.UserState, error) {
	var (
		day, month, year int64
		st               app.UserState
	)
	if err := row.Scan(&day, &month, &year, &st.HasTransferred); err != nil {
		return app.UserState{}, fmt.Errorf("usage: %w", err)
	}
	st.Usage = domain.Usage{Day: domain.Cents(day), Month: domain.Cents(month), Year: domain.Cents(year)}
	return st, nil
}

// Usage implements app.Repository.
func (r *Transfers) Usage(ctx context.Context, userID uuid.UUID, p domain.Periods) (domain.Usage, error) {
	st, err := scanUsage(r.pool.QueryRow(ctx, usageSQL, usageArgs(userID, p)...))
	return st.Usage, err
}

// HasTransferred implements app.Repository.
func (r *Transfers) HasTransferred(ctx context.Context, userID uuid.UUID) (bool, error) {
	var has bool
	if err := r.pool.QueryRow(ctx, `SELECT `+hasTransferredSQL, userID).Scan(&has); err != nil {
		return false, fmt.Errorf("has transferred: %w", err)
	}
	return has, nil
}

// Uncollected implements app.Repository: one probe of transfers_uncollected_idx (0008).
func (r *Transfers) Uncollected(ctx context.Context, userID uuid.UUID) (domain.Money, int, error) {
	var (
		cents int64
		n     int
	)
	if err := r.pool.QueryRow(ctx, `SELECT coalesce(sum(amount_cents), 0), count(*) FROM transfers
		WHERE user_id = $1 AND collection_status = 'awaiting_collection'`, userID).Scan(&cents, &n); err != nil {
		return domain.Money{}, 0, fmt.Errorf("uncollected vouchers: %w", err)
	}
	return domain.Cents(cents), n, nil
}
