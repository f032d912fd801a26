package domain

import "time"

// Outcome is what a provider says became of a message, in the service's terms.
type Outcome int

// Outcomes.
const (
	// OutcomeUnknown: the provider does not know (yet); nothing changes.
	OutcomeUnknown Outcome = iota
	// OutcomeAccepted: the provider took the message (accepted, scheduled, sent on): sent.
	OutcomeAccepted
	// OutcomeDelivered: it reached the handset.
	OutcomeDelivered
	// OutcomeFailed: it will not arrive.
	OutcomeFailed
)

// Report is a provider's word on one message: a delivery report, the answer to a send, or
// the result of a look-up.
type Report struct {
	ProviderMessageID string
	Outcome           Outcome
	// FailureReason, for OutcomeFailed, in words a sender may read.
	FailureReason string
}

// Apply moves the delivery as r says, never backwards; a repeated or late report changes
// nothing. It reports whether the status changed.
func (d *Delivery) Apply(r Report, now time.Time) bool {
	switch r.Outcome {
	case OutcomeAccepted:
		return d.MarkSent(r.ProviderMessageID, now)
	case OutcomeDelivered:
		return d.MarkDelivered(r.ProviderMessageID, now)
	case OutcomeFailed:
		d.noteProviderID(r.ProviderMessageID, now)
		return d.MarkFailed(r.FailureReason, now)
	default:
		d.noteProviderID(r.ProviderMessageID, now)
		return false
	}
}
