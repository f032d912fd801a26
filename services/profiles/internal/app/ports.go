package app

import (
	"context"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/profiles/internal/domain"
)

// Repository stores profiles.
type Repository interface {
	// Get returns domain.ErrNotFound when there is no profile.
	Get(ctx context.Context, userID uuid.UUID) (domain.Profile, error)
	// CreateIfMissing inserts a profile with the given names unless one exists (concurrent
	// callers create one row).
	CreateIfMissing(ctx context.Context, userID uuid.UUID, firstName, lastName string) error
	// Save applies the change (creating the profile if needed) and records ProfileUpdated in
	// the outbox, in one transaction; it returns the profile as saved.
	Save(ctx context.Context, userID uuid.UUID, c domain.Change) (domain.Profile, error)
	// Delete returns domain.ErrNotFound when there is no profile.
	Delete(ctx context.Context, userID uuid.UUID) error
}
