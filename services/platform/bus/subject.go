// Package bus is Thumela's NATS JetStream plumbing: a connection that survives NATS being
// down, the streams every service publishes to, the subject scheme
// thumela.<domain>.<user_id>.<event>, and trace context carried in message headers.
package bus

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Root is the first token of every Thumela subject.
const Root = "thumela"

// Domains: the second token of a subject, one per publishing area.
const (
	DomainIdentity       = "identity"
	DomainProfiles       = "profiles"
	DomainPaymentMethods = "paymentmethods"
	DomainTransfers      = "transfers"
	// DomainNotifications carries the requests to send an e-mail or SMS:
	// thumela.notifications.<user_id>.<channel>, on the notifications work queue.
	DomainNotifications = "notifications"
	// DomainNotificationsDead carries the requests that can never be sent.
	DomainNotificationsDead = "notificationsdead"
	// DomainDeliveries carries the notifications service's delivery events:
	// thumela.deliveries.<user_id>.changed, on the events stream.
	DomainDeliveries = "deliveries"
	DomainAnalytics  = "analytics"
)

// ErrInvalidSubject is wrapped by every subject validation failure.
var ErrInvalidSubject = errors.New("bus: invalid subject")

// Subject builds thumela.<domain>.<userID>.<event>, the subject of one user's event, after
// checking that each part is a single, literal token. The user id usually comes from data,
// so a bad one is an error to return, not a reason to panic.
func Subject(domain, userID, event string) (string, error) {
	for _, part := range []struct{ name, value string }{{"domain", domain}, {"user id", userID}, {"event", event}} {
		if err := validateToken(part.value); err != nil {
			return "", fmt.Errorf("%w: %s %q: %s", ErrInvalidSubject, part.name, part.value, err)
		}
	}
	return Root + "." + domain + "." + userID + "." + event, nil
}

// ValidateSubject checks that s can be published to: non-empty dot-separated tokens with no
// wildcard and no whitespace. The outbox calls it at write time so that a bad subject fails
// the business transaction instead of blocking the relay later.
func ValidateSubject(s string) error {
	if s == "" {
		return fmt.Errorf("%w: empty", ErrInvalidSubject)
	}
	for tok := range strings.SplitSeq(s, ".") {
		if err := validateToken(tok); err != nil {
			return fmt.Errorf("%w: %q: %s", ErrInvalidSubject, s, err)
		}
	}
	return nil
}

// validateToken rejects what NATS would treat as structure rather than data: the token
// separator, the wildcards, and whitespace or control characters.
func validateToken(tok string) error {
	if tok == "" {
		return errors.New("empty token")
	}
	for _, r := range tok {
		switch {
		case r == '.':
			return errors.New("contains '.'")
		case r == '*' || r == '>':
			return errors.New("contains a wildcard")
		case unicode.IsSpace(r) || unicode.IsControl(r):
			return errors.New("contains whitespace or a control character")
		case r == unicode.ReplacementChar:
			return errors.New("is not valid UTF-8")
		}
	}
	return nil
}
