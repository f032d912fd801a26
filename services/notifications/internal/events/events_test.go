package events_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	"github.com/thumela/thumela/services/notifications/internal/domain"
	"github.com/thumela/thumela/services/notifications/internal/events"
)

// A delivery's move is announced on .changed; the move to failed also on .failed, once, so that
// a consumer of failures alone reads nothing else.
func TestAnnouncements(t *testing.T) {
	t.Parallel()
	user := uuid.NewString()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	d := domain.NewDelivery(uuid.New(), user, uuid.NewString(), domain.ChannelSMS, domain.TemplateVoucherIssued, "+27821234567", "transfers", now)
	subjects := func(previous domain.Status) []string {
		t.Helper()
		msgs, err := events.Announcements(d, previous)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range msgs {
			if ev, ok := m.Payload.(*notificationsv1.DeliveryChanged); !ok || ev.GetDelivery().GetStatus() != events.Status(d.Status) {
				t.Fatalf("%s: payload %v", m.Subject, m.Payload)
			}
			out = append(out, m.Subject)
		}
		return out
	}
	changed, failed := "thumela.deliveries."+user+".changed", "thumela.deliveries."+user+".failed"
	if got := subjects(""); len(got) != 1 || got[0] != changed {
		t.Fatalf("queued: %v", got)
	}
	if !d.MarkFailed("The number is not reachable.", now) {
		t.Fatal("a queued delivery could not fail")
	}
	if got := subjects(domain.StatusQueued); len(got) != 2 || got[0] != changed || got[1] != failed {
		t.Fatalf("failed: %v, want %s and %s", got, changed, failed)
	}
	if got := subjects(domain.StatusFailed); len(got) != 1 || got[0] != changed {
		t.Fatalf("failed again: %v", got)
	}
}
