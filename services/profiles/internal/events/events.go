// Package events maps profiles to their proto form, shared by the API (ports) and the events
// the repository writes to the outbox, so both always show a profile the same way.
package events

import (
	"google.golang.org/protobuf/types/known/timestamppb"

	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/outbox"
	"github.com/thumela/thumela/services/profiles/internal/domain"
)

// EventUpdated is the last token of the ProfileUpdated subject.
const EventUpdated = "updated"

// Profile is p as the API and the events carry it.
func Profile(p domain.Profile) *profilesv1.Profile {
	return &profilesv1.Profile{
		UserId:      p.UserID.String(),
		FirstName:   p.FirstName,
		LastName:    p.LastName,
		PhoneNumber: p.Phone.E164(),
		CreatedAt:   timestamppb.New(p.CreatedAt),
		UpdatedAt:   timestamppb.New(p.UpdatedAt),
	}
}

// Updated is the outbox message announcing p as saved, on thumela.profiles.<user_id>.updated.
func Updated(p domain.Profile) (outbox.Message, error) {
	subject, err := bus.Subject(bus.DomainProfiles, p.UserID.String(), EventUpdated)
	if err != nil {
		return outbox.Message{}, err
	}
	return outbox.Message{
		Subject: subject,
		Payload: &profilesv1.ProfileUpdated{Profile: Profile(p), OccurredAt: timestamppb.New(p.UpdatedAt)},
	}, nil
}
