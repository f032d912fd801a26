// Package postgres stores profiles in the profiles schema.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/thumela/thumela/services/platform/outbox"
	platformpg "github.com/thumela/thumela/services/platform/postgres"
	"github.com/thumela/thumela/services/profiles/internal/app"
	"github.com/thumela/thumela/services/profiles/internal/domain"
	"github.com/thumela/thumela/services/profiles/internal/events"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations is the profiles schema's own migration set.
var Migrations = platformpg.MigrationSet{Name: "profiles", FS: mustSub(migrationFiles, "migrations")}

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err) // embedded at build time
	}
	return sub
}

// Profiles implements app.Repository.
type Profiles struct{ pool *pgxpool.Pool }

// NewProfiles returns the repository over pool (search_path = profiles).
func NewProfiles(pool *pgxpool.Pool) *Profiles { return &Profiles{pool: pool} }

var _ app.Repository = (*Profiles)(nil)

const columns = `user_id, first_name, last_name, phone_number, created_at, updated_at`

func scan(row pgx.CollectableRow) (domain.Profile, error) {
	var (
		p     domain.Profile
		phone *string
	)
	if err := row.Scan(&p.UserID, &p.FirstName, &p.LastName, &phone, &p.CreatedAt, &p.UpdatedAt); err != nil {
		return domain.Profile{}, err
	}
	if phone != nil {
		p.Phone = domain.PhoneFromE164(*phone)
	}
	return p, nil
}

// nullable stores the zero Phone as NULL.
func nullable(p domain.Phone) *string {
	if p.IsZero() {
		return nil
	}
	s := p.E164()
	return &s
}

// Get implements app.Repository.
func (r *Profiles) Get(ctx context.Context, userID uuid.UUID) (domain.Profile, error) {
	rows, err := r.pool.Query(ctx, `SELECT `+columns+` FROM profiles WHERE user_id = $1`, userID)
	if err != nil {
		return domain.Profile{}, fmt.Errorf("get profile: %w", err)
	}
	p, err := pgx.CollectExactlyOneRow(rows, scan)
	if errors.Is(err, pgx.ErrNoRows) {
		return domain.Profile{}, domain.ErrNotFound
	}
	if err != nil {
		return domain.Profile{}, fmt.Errorf("get profile: %w", err)
	}
	return p, nil
}

// CreateIfMissing implements app.Repository. ON CONFLICT DO NOTHING makes concurrent first
// reads safe: one insert wins, the others wait for it and do nothing.
func (r *Profiles) CreateIfMissing(ctx context.Context, userID uuid.UUID, firstName, lastName string) error {
	_, err := r.pool.Exec(ctx, `INSERT INTO profiles (user_id, first_name, last_name) VALUES ($1, $2, $3)
		ON CONFLICT (user_id) DO NOTHING`, userID, firstName, lastName)
	if err != nil {
		return fmt.Errorf("create profile: %w", err)
	}
	return nil
}

// Save implements app.Repository: the upsert and its ProfileUpdated event commit together.
func (r *Profiles) Save(ctx context.Context, userID uuid.UUID, c domain.Change) (domain.Profile, error) {
	var saved domain.Profile
	err := platformpg.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `INSERT INTO profiles (user_id, first_name, last_name, phone_number)
			VALUES ($1, $2, $3, $4)
			ON CONFLICT (user_id) DO UPDATE SET
				first_name = EXCLUDED.first_name,
				last_name = EXCLUDED.last_name,
				phone_number = EXCLUDED.phone_number,
				updated_at = now()
			RETURNING `+columns,
			userID, c.FirstName(), c.LastName(), nullable(c.Phone()))
		if err != nil {
			return err
		}
		if saved, err = pgx.CollectExactlyOneRow(rows, scan); err != nil {
			return err
		}
		msg, err := events.Updated(saved)
		if err != nil {
			return err
		}
		return outbox.Write(ctx, tx, msg)
	})
	if err != nil {
		return domain.Profile{}, fmt.Errorf("save profile: %w", err)
	}
	return saved, nil
}

// Delete implements app.Repository.
func (r *Profiles) Delete(ctx context.Context, userID uuid.UUID) error {
	tag, err := r.pool.Exec(ctx, `DELETE FROM profiles WHERE user_id = $1`, userID)
	if err != nil {
		return fmt.Errorf("delete profile: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return domain.ErrNotFound
	}
	return nil
}
