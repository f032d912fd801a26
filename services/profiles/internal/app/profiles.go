package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/profiles/internal/domain"
)

// Caller is the authenticated user making a request, from the verified access token.
type Caller struct {
	UserID string
	// GivenName and FamilyName are the sign-up names the token carries; a first read creates
	// the profile from them.
	GivenName, FamilyName string
}

// owner is the id of the profile the caller acts on: the access token's subject, which alone
// names the user. A subject that is not a user id has no profile.
func owner(caller Caller) (uuid.UUID, error) {
	id, err := uuid.Parse(caller.UserID)
	if err != nil {
		return uuid.Nil, domain.ErrNotFound
	}
	return id, nil
}

// GetProfile returns the caller's profile, creating it from the sign-up names on first read.
func (s *Service) GetProfile(ctx context.Context, caller Caller) (domain.Profile, error) {
	id, err := owner(caller)
	if err != nil {
		return domain.Profile{}, err
	}
	p, err := s.repo.Get(ctx, id)
	if !errors.Is(err, domain.ErrNotFound) {
		return p, err
	}
	// A profile deleted between the insert and the read is created again, a bounded number of
	// times; two rounds cover every race but a deliberate loop of deletes.
	for range 3 {
		if err := s.repo.CreateIfMissing(ctx, id, domain.SignUpName(caller.GivenName), domain.SignUpName(caller.FamilyName)); err != nil {
			return domain.Profile{}, err
		}
		p, err = s.repo.Get(ctx, id)
		if !errors.Is(err, domain.ErrNotFound) {
			return p, err
		}
	}
	return domain.Profile{}, fmt.Errorf("profile %s vanished after being created", id)
}

// UpdateProfile validates and saves the caller's names and phone number.
func (s *Service) UpdateProfile(ctx context.Context, caller Caller, firstName, lastName, phone string) (domain.Profile, error) {
	id, err := owner(caller)
	if err != nil {
		return domain.Profile{}, err
	}
	c, err := domain.NewChange(firstName, lastName, phone)
	if err != nil {
		return domain.Profile{}, err
	}
	return s.repo.Save(ctx, id, c)
}

// DeleteProfile removes the caller's profile (account closure).
func (s *Service) DeleteProfile(ctx context.Context, caller Caller) error {
	id, err := owner(caller)
	if err != nil {
		return err
	}
	return s.repo.Delete(ctx, id)
}
