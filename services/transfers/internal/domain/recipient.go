package domain

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/platform/personname"
)

// Errors of the saved recipients; the ports map each once.
var (
	// ErrRecipientNotFound: no such saved recipient for this user (another user's is not
	// found either, so ids cannot be probed).
	ErrRecipientNotFound = errors.New("recipient not found")
	// ErrRecipientPhoneTaken: the phone is already saved under another of the user's
	// recipients (one per user and phone).
	ErrRecipientPhoneTaken = errors.New("recipient phone already saved")
)

// MsgRecipientPhoneTaken is what the sender reads when an edit would give a recipient the
// phone of another one they saved.
const MsgRecipientPhoneTaken = "You already have a saved recipient with this phone number. Edit or delete that one instead."

// Recipient is a saved recipient: someone the sender paid, kept for their next sends. There is
// at most one per sender and phone.
type Recipient struct {
	ID         uuid.UUID
	UserID     uuid.UUID
	Name       string
	Phone      Phone
	Bank       Bank
	CreatedAt  time.Time
	UpdatedAt  time.Time
	LastPaidAt time.Time
}

// RecipientEdit is a validated edit of a saved recipient: every field is replaced.
type RecipientEdit struct {
	Name  string
	Phone Phone
	Bank  Bank
}

// NewRecipientEdit validates an edit as a create-transfer request validates its recipient
// (the one rule for names, a South African mobile number, a known bank), reporting every
// invalid field at once under the edit form's field names.
func NewRecipientEdit(name, phone string, bank Bank) (RecipientEdit, error) {
	var verr ValidationError
	n, problem := personname.Parse(name)
	switch problem {
	case personname.OK:
	case personname.Empty:
		verr.add("name", "Please enter the recipient's name.")
	case personname.TooLong:
		verr.add("name", fmt.Sprintf("The recipient's name must be at most %d characters.", MaxRecipientName))
	case personname.NoLetter:
		verr.add("name", "The recipient's name must include at least one letter.")
	case personname.WebAddress:
		verr.add("name", personname.MsgWebAddress)
	default:
		// Characters, and any problem the rule learns later: refused, never an empty name let by.
		verr.add("name", personname.MsgCharacters)
	}
	p, ok := ParsePhone(phone)
	if !ok {
		verr.add("phone", "Please enter a valid South African mobile number.")
	}
	if !bank.Known() {
		verr.add("bank", "Please choose the recipient's bank.")
	}
	if err := verr.orNil(); err != nil {
		return RecipientEdit{}, err
	}
	return RecipientEdit{Name: n, Phone: p, Bank: bank}, nil
}

// SavedRecipient is the recipient a completed transfer saves, or false when it saves none:
// the transfer is not completed, or the sender unticked 'Save {name} for next time'.
func (t *Transfer) SavedRecipient() (Recipient, bool) {
	s := t.s
	if s.Status != StatusCompleted || !s.SaveRecipient {
		return Recipient{}, false
	}
	return Recipient{UserID: s.UserID, Name: s.RecipientName, Phone: s.RecipientPhone, Bank: s.Bank, LastPaidAt: s.UpdatedAt}, true
}

// SaveRecipient reports whether the recipient is saved once the transfer completes.
func (t *Transfer) SaveRecipient() bool { return t.s.SaveRecipient }
