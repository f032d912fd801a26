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
	// thumela.notifications.<publisher>.<user_id>.<channel> (NotificationSubject), on the
	// notifications work queue.
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

// NotificationSubject builds thumela.notifications.<publisher>.<userID>.<channel>, the subject of
// a request to send an e-mail or SMS. The publisher is the requesting service's own NATS
// identity, and each may publish only below its own name (NotificationsFrom), so the subject
// says who asked in a way the payload cannot: notifications sends each publisher's templates
// only.
func NotificationSubject(publisher, userID, channel string) (string, error) {
	for _, part := range []struct{ name, value string }{{"publisher", publisher}, {"user id", userID}, {"channel", channel}} {
		if err := validateToken(part.value); err != nil {
			return "", fmt.Errorf("%w: %s %q: %s", ErrInvalidSubject, part.name, part.value, err)
		}
	}
	return Root + "." + DomainNotifications + "." + publisher + "." + userID + "." + channel, nil
}

// NotificationsFrom is every subject of the publisher's notification requests.
func NotificationsFrom(publisher string) string {
	return Root + "." + DomainNotifications + "." + publisher + ".>"
}

// ParseNotificationSubject reads the publisher, user id and channel of a NotificationSubject;
// ok is false for any other shape.
func ParseNotificationSubject(subject string) (publisher, userID, channel string, ok bool) {
	parts := strings.Split(subject, ".")
	if len(parts) != 5 || parts[0] != Root || parts[1] != DomainNotifications {
		return "", "", "", false
	}
	return parts[2], parts[3], parts[4], true
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
