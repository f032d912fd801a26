package app

import (
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/outbox"

	"github.com/thumela/thumela/services/identity/internal/domain"
)

// Event names: the last token of thumela.identity.<user_id>.<event>.
const (
	EventSignedUp = "signed_up"
	EventVerified = "verified"
)

// Notification templates, as the delivery adapter and /dev/outbox know them.
const (
	TemplateEmailVerification = "email_verification"
	TemplatePasswordReset     = "password_reset"
)

func signedUpMessage(u domain.User, now time.Time) (outbox.Message, error) {
	subject, err := bus.Subject(bus.DomainIdentity, u.ID, EventSignedUp)
	if err != nil {
		return outbox.Message{}, err
	}
	return outbox.Message{Subject: subject, Payload: &identityv1.UserSignedUp{
		UserId: u.ID, Email: u.Email.String(), FirstName: u.Name.First(), LastName: u.Name.Last(),
		OccurredAt: timestamppb.New(now),
	}}, nil
}

func verifiedMessage(u domain.User, now time.Time) (outbox.Message, error) {
	subject, err := bus.Subject(bus.DomainIdentity, u.ID, EventVerified)
	if err != nil {
		return outbox.Message{}, err
	}
	return outbox.Message{Subject: subject, Payload: &identityv1.UserVerified{
		UserId: u.ID, OccurredAt: timestamppb.New(now),
	}}, nil
}

// codeEmail is the e-mail carrying a one-time code. The body holds the code as its only run of
// six digits, which is what people (and the browser tests reading /dev/outbox) look for.
func codeEmail(u domain.User, purpose domain.CodePurpose, digits string, ttl time.Duration, now time.Time) (outbox.Message, error) {
	subject, err := bus.Subject(bus.DomainNotifications, u.ID, "email")
	if err != nil {
		return outbox.Message{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return outbox.Message{}, err
	}
	minutes := int(ttl.Round(time.Minute) / time.Minute)
	greeting := "Hi " + u.Name.First() + ","
	if strings.ContainsAny(greeting, "0123456789") {
		greeting = "Hi," // the code must be the only digits a reader (or a test) could take for it
	}
	var title, body, template string
	switch purpose {
	case domain.PurposePasswordReset:
		template = TemplatePasswordReset
		title = "Your Thumela password reset code"
		body = fmt.Sprintf("%s\n\nYour Thumela password reset code is %s. It expires in %d minutes.\n\n"+
			"If you did not ask to reset your password, you can ignore this e-mail: your password stays as it is.\n\n"+
			"The Thumela team", greeting, digits, minutes)
	default:
		template = TemplateEmailVerification
		title = "Your Thumela verification code"
		body = fmt.Sprintf("%s\n\nWelcome to Thumela. Your verification code is %s. It expires in %d minutes.\n\n"+
			"If you did not create a Thumela account, you can ignore this e-mail.\n\n"+
			"The Thumela team", greeting, digits, minutes)
	}
	return outbox.Message{ID: id, Subject: subject, Payload: &notificationsv1.Notification{
		Id:            id.String(),
		Channel:       notificationsv1.Channel_CHANNEL_EMAIL,
		Recipient:     u.Email.String(),
		Subject:       title,
		Body:          body,
		Template:      template,
		UserId:        u.ID,
		SourceService: "identity",
		CreatedAt:     timestamppb.New(now),
	}}, nil
}
