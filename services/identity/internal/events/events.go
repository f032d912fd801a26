// Package events is every message identity publishes, built here from domain values and
// nowhere else: its own events (thumela.identity.<user_id>.<event>) and the e-mails it asks the
// notifications service to send (thumela.notifications.identity.<user_id>.email). The use cases write
// them to the outbox in the transaction of the change they announce.
package events

import (
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/platform/seal"

	"github.com/thumela/thumela/services/identity/internal/domain"
)

// Event names: the last token of thumela.identity.<user_id>.<event>.
const (
	EventSignedUp        = "signed_up"
	EventVerified        = "verified"
	EventSessionsRevoked = "sessions_revoked"
	EventRenamed         = "renamed"
)

// Why sessions were revoked (SessionsRevoked.reason).
const (
	RevokedSignOut         = "sign_out"
	RevokedByUser          = "revoked"
	RevokedPasswordChanged = "password_changed"
	RevokedPasswordReset   = "password_reset"
)

// SourceService names identity on the notification requests it writes.
const SourceService = "identity"

// SignedUp announces a new account (UserSignedUp).
func SignedUp(u domain.User, now time.Time) (outbox.Message, error) {
	subject, err := bus.Subject(bus.DomainIdentity, u.ID, EventSignedUp)
	if err != nil {
		return outbox.Message{}, err
	}
	return outbox.Message{Subject: subject, Payload: &identityv1.UserSignedUp{
		UserId: u.ID, Email: u.Email.String(), FirstName: u.Name.First(), LastName: u.Name.Last(),
		OccurredAt: timestamppb.New(now),
	}}, nil
}

// Verified announces that u proved their e-mail address (UserVerified).
func Verified(u domain.User, now time.Time) (outbox.Message, error) {
	subject, err := bus.Subject(bus.DomainIdentity, u.ID, EventVerified)
	if err != nil {
		return outbox.Message{}, err
	}
	return outbox.Message{Subject: subject, Payload: &identityv1.UserVerified{
		UserId: u.ID, OccurredAt: timestamppb.New(now), ReferralCode: u.ReferralCode,
	}}, nil
}

// email is the one shape of every e-mail identity asks for: a NotificationRequest on the
// user's notifications subject, rendered by the notifications service from template and params.
// Its outbox row is ephemeral (deleted once JetStream has it): each of these carries either a
// sealed secret or personal details (an address, a device) that need not outlive the delivery.
// secrets is nil when the e-mail carries none.
func email(u domain.User, template notificationsv1.Template, reference string, params map[string]string, secrets *notificationsv1.Sealed, now time.Time) (outbox.Message, error) {
	subject, err := bus.NotificationSubject(SourceService, u.ID, "email")
	if err != nil {
		return outbox.Message{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return outbox.Message{}, err
	}
	params["first_name"] = u.Name.First()
	return outbox.Message{ID: id, Subject: subject, Ephemeral: true, Payload: &notificationsv1.NotificationRequest{
		Id:            id.String(),
		Channel:       notificationsv1.Channel_CHANNEL_EMAIL,
		Recipient:     u.Email.String(),
		Template:      template,
		Params:        params,
		Secrets:       secrets,
		UserId:        u.ID,
		Reference:     reference,
		SourceService: SourceService,
		CreatedAt:     timestamppb.New(now),
	}}, nil
}

// CodeEmail asks the notifications service to e-mail a one-time code. The request carries no
// text: the notifications service renders it from the template and params. The code travels
// sealed to that service's public key, so the outbox row, the stream and anything else on the
// way hold it only as ciphertext. To an unverified account it greets no one by name
// (withholdUnprovedName): a verification code may be re-sent to the address's owner after a
// stranger's sign-up, and a reset code is how that owner takes the account back.
func CodeEmail(sealTo seal.PublicKey, u domain.User, purpose domain.CodePurpose, digits string, ttl time.Duration, now time.Time) (outbox.Message, error) {
	template := notificationsv1.Template_TEMPLATE_SIGN_UP_CODE
	if purpose == domain.PurposePasswordReset {
		template = notificationsv1.Template_TEMPLATE_PASSWORD_RESET_CODE
	}
	plain, err := proto.Marshal(&notificationsv1.Secrets{Values: map[string]string{"code": digits}})
	if err != nil {
		return outbox.Message{}, fmt.Errorf("code e-mail: marshal secrets: %w", err)
	}
	sealed, err := seal.Seal(sealTo, plain)
	if err != nil {
		return outbox.Message{}, fmt.Errorf("code e-mail: %w", err)
	}
	minutes := int(ttl.Round(time.Minute) / time.Minute)
	params := map[string]string{"ttl_minutes": strconv.Itoa(minutes)}
	u = withholdUnprovedName(u, params)
	return email(u, template, u.ID, params, &notificationsv1.Sealed{KeyId: sealed.KeyID, Box: sealed.Box}, now)
}

// withholdUnprovedName marks the e-mail's params of an unverified account (unverified: "true")
// and returns u without its names, so that first_name goes empty. Nobody has proved the
// address, so the names are whatever the first sign-up typed, maybe a stranger's text
// (pre-hijacking the address): the e-mail greets no one by name, and notifications' templates
// say "Hi there," for an unverified account anyway. A verified account's u is returned as it is.
func withholdUnprovedName(u domain.User, params map[string]string) domain.User {
	if u.Verified() {
		return u
	}
	params["unverified"] = "true"
	u.Name = domain.Name{}
	return u
}

// SessionsRevoked tells every BFF replica to drop the cached grants of these sessions
// and end their live streams. It names sessions, never tokens.
func SessionsRevoked(userID string, sessionIDs []string, reason string, now time.Time) (outbox.Message, error) {
	subject, err := bus.Subject(bus.DomainIdentity, userID, EventSessionsRevoked)
	if err != nil {
		return outbox.Message{}, err
	}
	return outbox.Message{Subject: subject, Payload: &identityv1.SessionsRevoked{
		UserId: userID, SessionIds: sessionIDs, Reason: reason, OccurredAt: timestamppb.New(now),
	}}, nil
}

// Renamed announces that the user's access tokens carry new names from now on (UserRenamed),
// the profile's change of changedAt.
func Renamed(userID string, name domain.Name, changedAt, now time.Time) (outbox.Message, error) {
	subject, err := bus.Subject(bus.DomainIdentity, userID, EventRenamed)
	if err != nil {
		return outbox.Message{}, err
	}
	return outbox.Message{Subject: subject, Payload: &identityv1.UserRenamed{
		UserId: userID, OccurredAt: timestamppb.New(now), FirstName: name.First(), LastName: name.Last(),
		ChangedAt: timestamppb.New(changedAt),
	}}, nil
}

// NewSignInEmail tells the owner that their account was signed in to from a device it had not
// been signed in from before. It carries no secret, but it does carry the address and the
// device.
func NewSignInEmail(u domain.User, device domain.Device, address string, now time.Time) (outbox.Message, error) {
	if address == "" {
		address = "unknown"
	}
	return email(u, notificationsv1.Template_TEMPLATE_NEW_SIGN_IN, u.ID, map[string]string{
		"device":  device.Label(),
		"address": address,
		"at":      now.UTC().Format(time.RFC3339),
	}, nil, now)
}

// SignUpAttemptEmail tells the owner of an existing account that someone tried to sign up with
// their address. It carries nothing the stranger typed: neither the second sign-up's names nor,
// for an unverified account, the account's own (the first sign-up's, who may be the stranger).
func SignUpAttemptEmail(u domain.User, now time.Time) (outbox.Message, error) {
	params := map[string]string{"at": now.UTC().Format(time.RFC3339)}
	// For an unverified account the flag says more here: the contested sign-up left the account
	// with no usable password (app.SignUp), so the e-mail must not tell its owner to log in with
	// theirs. And the names are withheld, as in every e-mail to an unverified account.
	u = withholdUnprovedName(u, params)
	return email(u, notificationsv1.Template_TEMPLATE_SIGN_UP_ATTEMPT, u.ID, params, nil, now)
}

// Ways a password changes, as PASSWORD_CHANGED's "how" says them.
const (
	PasswordChanged = "changed" // in the account, with the current password
	PasswordReset   = "reset"   // with an e-mailed code
)

// PasswordChangedEmail tells the owner that the account's password was changed (how:
// PasswordChanged or PasswordReset) and its other sessions signed out: if it was not them, the
// account is taken over, and the e-mail is how they learn it. It carries no secret.
func PasswordChangedEmail(u domain.User, how string, now time.Time) (outbox.Message, error) {
	return email(u, notificationsv1.Template_TEMPLATE_PASSWORD_CHANGED, u.ID, map[string]string{
		"at":  now.UTC().Format(time.RFC3339),
		"how": how,
	}, nil, now)
}

// PasskeyAddedEmail tells the owner that a passkey named name was added (its id is the
// request's reference): if it was not them, the account is taken over, and the e-mail is how
// they learn it. It carries no secret.
func PasskeyAddedEmail(u domain.User, passkeyID, name string, now time.Time) (outbox.Message, error) {
	return email(u, notificationsv1.Template_TEMPLATE_PASSKEY_ADDED, passkeyID, map[string]string{
		"name": name,
		"at":   now.UTC().Format(time.RFC3339),
	}, nil, now)
}
