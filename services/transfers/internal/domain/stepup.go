package domain

import (
	"errors"
	"time"
)

// Step-up: a transfer that moves more money, or moves it somewhere new, needs the sender to have
// proved it is them a moment ago (a passkey, or the password where they have none), so that a
// stolen session cookie alone cannot empty a card to a stranger's phone.
const (
	// StepUpWindow is how long a step-up counts: long enough to finish the wizard's last step,
	// short enough that a session left open is not a standing authorisation.
	StepUpWindow = 5 * time.Minute
	// StepUpSkew is how far in the future a step-up time may lie and still count: identity's
	// clock and ours may differ a little; further than that is a broken clock, and refused.
	StepUpSkew = time.Minute
)

// StepUpAbove is the amount above which every transfer needs a step-up: R1,000.00. R1,000.00
// itself does not.
var StepUpAbove = Cents(100_000)

// ErrStepUpRequired: the transfer needs a fresh step-up that the sender's token does not carry.
// Nothing was created; the client asks for the proof and sends the same request again.
var ErrStepUpRequired = errors.New("a fresh step-up is required for this transfer")

// NeedsStepUp reports whether a transfer of amount needs a step-up: above StepUpAbove, or to a
// phone the sender has never paid (paidBefore: an earlier transfer of theirs to that phone was
// charged, see the repository's PaidPhoneBefore).
func NeedsStepUp(amount Money, paidBefore bool) bool {
	return StepUpAbove.Less(amount) || !paidBefore
}

// SteppedUp reports whether a step-up made at at still counts at now. A zero at is none.
func SteppedUp(at, now time.Time) bool {
	if at.IsZero() {
		return false
	}
	age := now.Sub(at)
	return age <= StepUpWindow && age >= -StepUpSkew
}

// CheckStepUp returns ErrStepUpRequired when a transfer of amount needs a step-up (NeedsStepUp)
// and the sender's last one, at steppedUpAt, no longer counts at now.
func CheckStepUp(amount Money, paidBefore bool, steppedUpAt, now time.Time) error {
	if NeedsStepUp(amount, paidBefore) && !SteppedUp(steppedUpAt, now) {
		return ErrStepUpRequired
	}
	return nil
}
