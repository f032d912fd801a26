package app

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/paymentmethods/internal/domain"
)

// owner is the user whose methods the caller acts on: the access token's subject, which alone
// names the user. A subject that is not a user id owns nothing, so it finds nothing.
func owner(caller Caller) (uuid.UUID, error) {
	uid, err := uuid.Parse(caller.UserID)
	if err != nil {
		return uuid.Nil, domain.ErrNotFound
	}
	return uid, nil
}

// methodID parses a payment method id; a malformed one is simply not found.
func methodID(id string) (uuid.UUID, error) {
	u, err := uuid.Parse(id)
	if err != nil {
		return uuid.Nil, domain.ErrNotFound
	}
	return u, nil
}

// List returns the caller's methods, the default first, then newest first.
func (s *Service) List(ctx context.Context, caller Caller) ([]domain.PaymentMethod, error) {
	uid, err := owner(caller)
	if err != nil {
		return nil, err
	}
	return s.repo.List(ctx, uid)
}

// Get returns one of the caller's methods.
func (s *Service) Get(ctx context.Context, caller Caller, id string) (domain.PaymentMethod, error) {
	uid, err := owner(caller)
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	mid, err := methodID(id)
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	return s.repo.Get(ctx, uid, mid)
}

// AddCard validates a card, checks it with the processor (a zero-amount authorization with the
// CVV), encrypts the number into the vault under a new token and saves the method. The CVV is
// used for that authorization only; the number and CVV are wiped from memory on return.
func (s *Service) AddCard(ctx context.Context, caller Caller, in domain.CardInput) (domain.PaymentMethod, error) {
	uid, err := owner(caller)
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	card, err := domain.ValidateCard(in, s.now())
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	defer card.Wipe()
	number := card.Number()

	fingerprint := s.fingerprints.Sum(number.Reveal())
	saved, err := s.repo.HasFingerprint(ctx, uid, fingerprint)
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	if saved {
		return domain.PaymentMethod{}, domain.ErrAlreadySaved
	}
	// Refuse before asking the processor when the user has no room left; Add checks again
	// under the user's lock.
	existing, err := s.repo.List(ctx, uid)
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	if len(existing) >= domain.MaxMethodsPerUser {
		return domain.PaymentMethod{}, domain.ErrTooManyMethods
	}

	pctx, cancel := context.WithTimeout(ctx, s.processorTimeout)
	defer cancel()
	outcome, err := s.processor.Verify(pctx, "verify_"+uuid.NewString(),
		Card{Number: number, Expiry: card.Expiry(), CVV: card.CVV(), Holder: card.Name()})
	if err != nil {
		return domain.PaymentMethod{}, fmt.Errorf("%w: verify: %w", domain.ErrProcessorUnavailable, err)
	}
	if !outcome.Approved {
		s.logger.InfoContext(ctx, "card declined at tokenization",
			"brand", number.Brand().String(), "last_four", number.LastFour(), "decline_code", outcome.DeclineCode)
		return domain.PaymentMethod{}, &domain.DeclinedError{Code: outcome.DeclineCode, Message: outcome.DeclineMessage}
	}

	token, err := s.keys.NewToken()
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	sealed, err := s.keys.Seal(token, number.Reveal())
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	return s.repo.Add(ctx, NewMethod{
		ID: id, UserID: uid, Name: card.Name(), Brand: number.Brand(), LastFour: number.LastFour(),
		Expiry: card.Expiry(), Token: token, Fingerprint: fingerprint, Sealed: sealed, WantDefault: card.IsDefault(),
	}, domain.MaxMethodsPerUser)
}

// Update renames one of the caller's methods and, when isDefault, makes it the default.
// isDefault false never clears the flag: a user with cards always has exactly one default,
// and it moves only to another card (SetDefault, or Update of that card).
func (s *Service) Update(ctx context.Context, caller Caller, id, name string, isDefault bool) (domain.PaymentMethod, error) {
	uid, err := owner(caller)
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	mid, err := methodID(id)
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	name, v := domain.ParseName(name)
	if v != nil {
		return domain.PaymentMethod{}, &domain.ValidationError{Violations: []domain.FieldViolation{*v}}
	}
	return s.repo.Update(ctx, uid, mid, name, isDefault)
}

// SetDefault makes one of the caller's methods the default and clears the others.
func (s *Service) SetDefault(ctx context.Context, caller Caller, id string) (domain.PaymentMethod, error) {
	uid, err := owner(caller)
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	mid, err := methodID(id)
	if err != nil {
		return domain.PaymentMethod{}, err
	}
	return s.repo.SetDefault(ctx, uid, mid)
}

// Delete removes one of the caller's methods unless a transfer or charge uses it.
func (s *Service) Delete(ctx context.Context, caller Caller, id string) error {
	uid, err := owner(caller)
	if err != nil {
		return err
	}
	mid, err := methodID(id)
	if err != nil {
		return err
	}
	return s.repo.Delete(ctx, uid, mid)
}
