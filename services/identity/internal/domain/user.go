package domain

import "time"

// User is an account holder.
type User struct {
	ID                string
	Email             Email
	PasswordHash      string
	Name              Name
	EmailVerifiedAt   time.Time // zero until verified
	CreatedAt         time.Time
	UpdatedAt         time.Time
	PasswordChangedAt time.Time
	// ReferralCode is the friend's code typed at sign-up (ParseReferralCode's form), "" when
	// none; UserVerified carries it.
	ReferralCode string
}

// Verified reports whether the user has proved they own the e-mail address.
func (u *User) Verified() bool { return !u.EmailVerifiedAt.IsZero() }

// RestoreUser rebuilds a user from storage, where the e-mail and names were validated on the
// way in.
func RestoreUser(u User, email, first, last string) User {
	u.Email = Email{s: email}
	u.Name = Name{first: first, last: last}
	return u
}
