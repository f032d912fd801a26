package app_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/profiles/internal/app"
	"github.com/thumela/thumela/services/profiles/internal/domain"
)

// fakeRepo is an in-memory Repository.
type fakeRepo struct {
	mu       sync.Mutex
	profiles map[uuid.UUID]domain.Profile
	saves    int
}

func newFake() *fakeRepo { return &fakeRepo{profiles: map[uuid.UUID]domain.Profile{}} }

func (f *fakeRepo) Get(_ context.Context, id uuid.UUID) (domain.Profile, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.profiles[id]
	if !ok {
		return domain.Profile{}, domain.ErrNotFound
	}
	return p, nil
}

func (f *fakeRepo) CreateIfMissing(_ context.Context, id uuid.UUID, first, last string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.profiles[id]; !ok {
		f.profiles[id] = domain.Profile{UserID: id, FirstName: first, LastName: last}
	}
	return nil
}

func (f *fakeRepo) Save(_ context.Context, id uuid.UUID, c domain.Change) (domain.Profile, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.saves++
	p := domain.Profile{UserID: id, FirstName: c.FirstName(), LastName: c.LastName(), Phone: c.Phone()}
	f.profiles[id] = p
	return p, nil
}

func (f *fakeRepo) Delete(_ context.Context, id uuid.UUID) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.profiles[id]; !ok {
		return domain.ErrNotFound
	}
	delete(f.profiles, id)
	return nil
}

func TestGetProfileCreatesFromTrimmedSignUpNames(t *testing.T) {
	t.Parallel()
	repo := newFake()
	id := uuid.New()
	p, err := app.New(repo).GetProfile(t.Context(), app.Caller{UserID: id.String(), GivenName: "  Thandi", FamilyName: "Nkosi  "})
	if err != nil {
		t.Fatal(err)
	}
	if p.FirstName != "Thandi" || p.LastName != "Nkosi" {
		t.Fatalf("profile = %+v", p)
	}
}

// A token whose subject is not a user id (a service's) has no profile: every call is
// ErrNotFound and nothing is stored.
func TestCallerWithoutAUserIDHasNoProfile(t *testing.T) {
	t.Parallel()
	caller := app.Caller{UserID: "transfers"}
	repo := newFake()
	svc := app.New(repo)
	if _, err := svc.GetProfile(t.Context(), caller); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("GetProfile = %v, want ErrNotFound", err)
	}
	if _, err := svc.UpdateProfile(t.Context(), caller, "A", "B", ""); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("UpdateProfile = %v, want ErrNotFound", err)
	}
	if err := svc.DeleteProfile(t.Context(), caller); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("DeleteProfile = %v, want ErrNotFound", err)
	}
	if len(repo.profiles) != 0 || repo.saves != 0 {
		t.Errorf("repository touched: %+v", repo)
	}
}

func TestUpdateProfileValidatesBeforeSaving(t *testing.T) {
	t.Parallel()
	repo := newFake()
	id := uuid.New()
	_, err := app.New(repo).UpdateProfile(t.Context(), app.Caller{UserID: id.String()}, "", "Nkosi", "")
	var verr *domain.ValidationError
	if !errors.As(err, &verr) || repo.saves != 0 {
		t.Fatalf("UpdateProfile = %v (saves %d), want a ValidationError and no save", err, repo.saves)
	}
}
