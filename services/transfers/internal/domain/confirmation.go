package domain

import "errors"

// The first-payment question. Authorised push-payment scams (a "buyer" met online, a caller who
// says they are from the bank or the police) work by having the victim send money themselves,
// so neither the card nor the step-up stops them: the sender is who they say they are. What can
// help is one honest question at the moment of a first payment to a phone, which the sender
// must answer with an explicit tick, and which is kept on the transfer.

// ErrRecipientConfirmationRequired: the transfer is the sender's first payment to the phone and
// the request does not carry their confirmation that they know the recipient personally.
// Nothing was created; the client asks the question and sends the same request again with the
// answer.
var ErrRecipientConfirmationRequired = errors.New("the sender must confirm they know the recipient personally")

// CheckRecipientKnown returns ErrRecipientConfirmationRequired for a transfer to a phone the
// sender has never paid (paidBefore false: the same rule as NeedsStepUp's, on the same lookup)
// without the sender's confirmation. A phone paid before needs none, whatever the request says.
func CheckRecipientKnown(paidBefore, confirmed bool) error {
	if !paidBefore && !confirmed {
		return ErrRecipientConfirmationRequired
	}
	return nil
}
