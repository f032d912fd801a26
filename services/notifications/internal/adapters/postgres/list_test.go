package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/notifications/internal/domain"
	"github.com/thumela/thumela/services/platform/pgtest"
)

// List answers the user's deliveries about the references named, newest first, each once
// however often its reference is named, and nothing of another user's or another reference's.
func TestListAnswersTheUsersDeliveriesOfTheReferences(t *testing.T) {
	t.Parallel()
	s := New(pgtest.NewPool(t, "notifications", Migrations))
	ctx := context.Background()
	start := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	var want []uuid.UUID
	for i, d := range []struct{ user, ref string }{
		{"alice", "t-1"}, {"alice", "t-2"}, {"bob", "t-1"}, {"alice", "t-3"}, {"alice", "t-1"},
	} {
		id := uuid.New()
		at := start.Add(time.Duration(i) * time.Minute)
		del := domain.NewDelivery(id, d.user, d.ref, domain.ChannelEmail, domain.TemplateTransferReceipt, "a@example.com", "transfers", at)
		if _, _, err := s.Enqueue(ctx, del); err != nil {
			t.Fatal(err)
		}
		if d.user == "alice" && d.ref != "t-3" {
			want = append([]uuid.UUID{id}, want...) // newest first
		}
	}
	got, err := s.List(ctx, "alice", []string{"t-1", "t-2", "t-1", "t-9"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("List = %d deliveries, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i].RequestID != want[i] || got[i].UserID != "alice" {
			t.Fatalf("List[%d] = %+v, want request %s", i, got[i], want[i])
		}
	}
}
