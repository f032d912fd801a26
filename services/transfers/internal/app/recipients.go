package app

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// RecipientRepository stores the senders' saved recipients. A completed transfer saves its
// recipient inside the repository's completion transaction (not through these methods); every
// change here writes RecipientsChanged to the outbox in the same transaction.
type RecipientRepository interface {
	// ListRecipients returns the user's recipients matching query (a case-insensitive substring
	// of the name, or of the phone; "" for all), most recently paid first.
	ListRecipients(ctx context.Context, userID uuid.UUID, query string) ([]domain.Recipient, error)
	// UpdateRecipient replaces the recipient's name, phone and bank: domain.ErrRecipientNotFound
	// when the user has no such recipient, domain.ErrRecipientPhoneTaken when another of theirs
	// has the phone.
	UpdateRecipient(ctx context.Context, userID, id uuid.UUID, edit domain.RecipientEdit, at time.Time) (domain.Recipient, error)
	// DeleteRecipient deletes the recipient, or answers domain.ErrRecipientNotFound.
	DeleteRecipient(ctx context.Context, userID, id uuid.UUID, at time.Time) error
}

// maxRecipientQuery bounds the search text (a name is at most 50 characters).
const maxRecipientQuery = 100

// ListRecipients returns the caller's saved recipients, most recently paid first, filtered by
// query.
func (s *Service) ListRecipients(ctx context.Context, c Caller, query string) ([]domain.Recipient, error) {
	userID, err := self(c)
	if err != nil {
		return nil, err
	}
	query = strings.TrimSpace(query)
	if r := []rune(query); len(r) > maxRecipientQuery {
		query = string(r[:maxRecipientQuery])
	}
	return s.repo.ListRecipients(ctx, userID, query)
}

// UpdateRecipient edits one of the caller's saved recipients; the name, phone and bank are
// validated as a transfer's recipient is.
func (s *Service) UpdateRecipient(ctx context.Context, c Caller, id, name, phone string, bank domain.Bank) (domain.Recipient, error) {
	userID, rid, err := recipientOf(c, id)
	if err != nil {
		return domain.Recipient{}, err
	}
	edit, err := domain.NewRecipientEdit(name, phone, bank)
	if err != nil {
		return domain.Recipient{}, err
	}
	return s.repo.UpdateRecipient(ctx, userID, rid, edit, s.now())
}

// DeleteRecipient deletes one of the caller's saved recipients. Their next transfer to the
// phone saves them again unless the sender unticks it.
func (s *Service) DeleteRecipient(ctx context.Context, c Caller, id string) error {
	userID, rid, err := recipientOf(c, id)
	if err != nil {
		return err
	}
	return s.repo.DeleteRecipient(ctx, userID, rid, s.now())
}

// recipientOf is the caller's id and the recipient id; an id that is not a UUID is
// domain.ErrRecipientNotFound, exactly as a recipient that does not exist or is another user's.
func recipientOf(c Caller, id string) (uuid.UUID, uuid.UUID, error) {
	userID, err := self(c)
	if err != nil {
		return uuid.Nil, uuid.Nil, domain.ErrRecipientNotFound
	}
	rid, err := uuid.Parse(id)
	if err != nil {
		return uuid.Nil, uuid.Nil, domain.ErrRecipientNotFound
	}
	return userID, rid, nil
}
