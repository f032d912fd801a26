package domain

import (
	"time"

	"github.com/google/uuid"
)

// PaymentMethod is a saved card as stored and shown: no number beyond the last four digits.
type PaymentMethod struct {
	ID        uuid.UUID
	UserID    uuid.UUID
	Name      string
	Brand     Brand
	LastFour  string
	Expiry    Expiry
	IsDefault bool
	// Token is the vault's opaque token under which the encrypted number is kept.
	Token     string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Change is what happened to a payment method, as published in PaymentMethodChanged.
type Change int

// Changes.
const (
	ChangeAdded Change = iota + 1
	ChangeUpdated
	ChangeDefaultChanged
	ChangeDeleted
)

// Event is one change to publish.
type Event struct {
	UserID          uuid.UUID
	PaymentMethodID uuid.UUID
	Change          Change
	At              time.Time
}
