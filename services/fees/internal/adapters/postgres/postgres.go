// Package postgres stores the banks' fee schedules in the fees schema.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/thumela/thumela/services/fees/internal/app"
	"github.com/thumela/thumela/services/fees/internal/domain"
	"github.com/thumela/thumela/services/platform/feeschedule"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations is the fees schema's own migration set.
var Migrations = platformpg.MigrationSet{Name: "fees", FS: mustSub(migrationFiles, "migrations")}

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err) // embedded at build time
	}
	return sub
}

// BankFees implements app.BankFees.
type BankFees struct{ pool *pgxpool.Pool }

// NewBankFees returns the repository over pool (search_path = fees).
func NewBankFees(pool *pgxpool.Pool) *BankFees { return &BankFees{pool: pool} }

const columns = `bank, display_name, base_fee_cents, percentage_fee_bps`

func scan(row pgx.CollectableRow) (domain.BankFee, error) {
	var (
		f    domain.BankFee
		bank string
		base int64
	)
	if err := row.Scan(&bank, &f.DisplayName, &base, &f.PercentageBps); err != nil {
		return domain.BankFee{}, err
	}
	f.Bank, f.BaseFee = domain.Bank(bank), domain.Cents(base)
	return f, nil
}

// List returns every schedule.
func (r *BankFees) List(ctx context.Context) ([]domain.BankFee, error) {
	rows, err := r.pool.Query(ctx, `SELECT `+columns+` FROM bank_fees ORDER BY bank`)
	if err != nil {
		return nil, fmt.Errorf("list bank fees: %w", err)
	}
	fees, err := pgx.CollectRows(rows, scan)
	if err != nil {
		return nil, fmt.Errorf("list bank fees: %w", err)
	}
	return fees, nil
}

// Get returns bank's schedule or app.ErrBankNotFound.
func (r *BankFees) Get(ctx context.Context, bank domain.Bank) (domain.BankFee, error) {
	rows, err := r.pool.Query(ctx, `SELECT `+columns+` FROM bank_fees WHERE bank = $1`, string(bank))
	if err != nil {
		return domain.BankFee{}, fmt.Errorf("get bank fee: %w", err)
	}
	fee, err := pgx.CollectExactlyOneRow(rows, scan)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.BankFee{}, app.ErrBankNotFound
	}
	if err != nil {
		return domain.BankFee{}, fmt.Errorf("get bank fee: %w", err)
	}
	return fee, nil
}

var (
	_ app.BankFees       = (*BankFees)(nil)
	_ app.ScheduleSource = (*BankFees)(nil)
)

// ScheduleVersion returns the fee schedule's version (fee_schedule_version, bumped by a
// trigger with every change of bank_fees): a primary-key read, cheap enough to poll.
func (r *BankFees) ScheduleVersion(ctx context.Context) (int64, error) {
	var v int64
	if err := r.pool.QueryRow(ctx, `SELECT version FROM fee_schedule_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("read fee schedule version: %w", err)
	}
	return v, nil
}

// Schedule returns the whole schedule with its version, read in one statement (one snapshot),
// so the version always names exactly these rows.
func (r *BankFees) Schedule(ctx context.Context) (feeschedule.Schedule, error) {
	rows, err := r.pool.Query(ctx, `SELECT v.version, b.bank, b.display_name, b.base_fee_cents, b.percentage_fee_bps
		FROM fee_schedule_version v LEFT JOIN bank_fees b ON true ORDER BY b.bank`)
	if err != nil {
		return feeschedule.Schedule{}, fmt.Errorf("read fee schedule: %w", err)
	}
	defer rows.Close()
	var s feeschedule.Schedule
	for rows.Next() {
		var (
			bank, name *string
			base       *int64
			bps        *int32
		)
		if err := rows.Scan(&s.Version, &bank, &name, &base, &bps); err != nil {
			return feeschedule.Schedule{}, fmt.Errorf("read fee schedule: %w", err)
		}
		if bank == nil {
			continue // no bank has a schedule: every transfer gets the fallback
		}
		s.Banks = append(s.Banks, feeschedule.BankFee{Bank: *bank, DisplayName: *name, BaseFeeCents: *base, PercentageBps: *bps})
	}
	if err := rows.Err(); err != nil {
		return feeschedule.Schedule{}, fmt.Errorf("read fee schedule: %w", err)
	}
	if s.Version == 0 {
		return feeschedule.Schedule{}, errors.New("read fee schedule: no version row")
	}
	return s, nil
}
