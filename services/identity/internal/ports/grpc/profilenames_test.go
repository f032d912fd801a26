package grpcport_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/natstest"
	"github.com/thumela/thumela/services/platform/service"

	"github.com/thumela/thumela/services/identity/internal/app"
	"github.com/thumela/thumela/services/identity/internal/ports/events"
)

// tokenNames returns the given and family names of a fresh access token of the session.
func (e *env) tokenNames(session string) (string, string) {
	e.t.Helper()
	claims, err := auth.NewVerifier(e.keys, service.TokenIssuer).Verify(ctxT(e.t), e.accessToken(session))
	if err != nil {
		e.t.Fatal(err)
	}
	return claims.GivenName, claims.FamilyName
}

// renames counts the UserRenamed events identity wrote to its outbox for userID.
func (e *env) renames(userID string) int {
	e.t.Helper()
	var n int
	if err := e.pool.QueryRow(ctxT(e.t), `SELECT count(*) FROM outbox WHERE subject = $1`,
		"thumela.identity."+userID+".renamed").Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// TestNamesFollowTheProfile: the names a user saves in their profile go into their access
// tokens (and so onto the SMS and e-mails their transfers send); an older change delivered late
// undoes nothing; UserRenamed goes out once per real change.
func TestNamesFollowTheProfile(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, session := e.signUpVerified("names.follow@example.com")
	ctx := ctxT(t)
	base := time.Now().Add(-time.Hour)

	if err := e.svc.TakeProfileNames(ctx, id, " Lindiwe ", "Nkosi-Dube", base.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if first, last := e.tokenNames(session); first != "Lindiwe" || last != "Nkosi-Dube" {
		t.Fatalf("after the profile change the token names %q %q, want Lindiwe Nkosi-Dube", first, last)
	}
	if n := e.renames(id); n != 1 {
		t.Fatalf("%d UserRenamed events after one change, want 1", n)
	}
	// It carries the names and the change's time, for transfers' scheduled sends.
	var payload []byte
	if err := e.pool.QueryRow(ctx, `SELECT payload FROM outbox WHERE subject = $1`, "thumela.identity."+id+".renamed").Scan(&payload); err != nil {
		t.Fatal(err)
	}
	var ev identityv1.UserRenamed
	if err := proto.Unmarshal(payload, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.GetUserId() != id || ev.GetFirstName() != "Lindiwe" || ev.GetLastName() != "Nkosi-Dube" ||
		!ev.GetChangedAt().AsTime().Equal(base.Add(2*time.Minute)) {
		t.Fatalf("UserRenamed = %v", &ev)
	}

	// The same change again (a redelivery), and an older one delivered late: nothing moves.
	if err := e.svc.TakeProfileNames(ctx, id, "Lindiwe", "Nkosi-Dube", base.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.TakeProfileNames(ctx, id, "Older", "Name", base.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if first, last := e.tokenNames(session); first != "Lindiwe" || last != "Nkosi-Dube" {
		t.Fatalf("an older change was applied: the token names %q %q", first, last)
	}
	if n := e.renames(id); n != 1 {
		t.Fatalf("%d UserRenamed events after a redelivery and an older change, want 1", n)
	}

	// A newer change back to the sign-up names is a rename; one that saves the same names (the
	// phone number changed) is not, but still makes older ones stale.
	if err := e.svc.TakeProfileNames(ctx, id, "Thandi", "Nkosi", base.Add(3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.TakeProfileNames(ctx, id, "Thandi", "Nkosi", base.Add(4*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.TakeProfileNames(ctx, id, "Lindiwe", "Nkosi-Dube", base.Add(3*time.Minute+time.Second)); err != nil {
		t.Fatal(err)
	}
	if first, last := e.tokenNames(session); first != "Thandi" || last != "Nkosi" {
		t.Fatalf("the token names %q %q, want Thandi Nkosi", first, last)
	}
	if n := e.renames(id); n != 2 {
		t.Fatalf("%d UserRenamed events after two real changes, want 2", n)
	}

	// Names identity's own rule refuses are never applied, and the event is not retried; an
	// account that no longer exists is nothing to do.
	for _, bad := range [][2]string{{"", "Nkosi"}, {"Visit fnb-secure.co.za", "Nkosi"}, {"Thandi\u202e", "Nkosi"}} {
		err := e.svc.TakeProfileNames(ctx, id, bad[0], bad[1], time.Now())
		if !errors.Is(err, app.ErrInvalidProfileEvent) {
			t.Errorf("TakeProfileNames(%q, %q) = %v, want ErrInvalidProfileEvent", bad[0], bad[1], err)
		}
	}
	if err := e.svc.TakeProfileNames(ctx, "not-a-uuid", "Thandi", "Nkosi", time.Now()); !errors.Is(err, app.ErrInvalidProfileEvent) {
		t.Errorf("a malformed user id = %v, want ErrInvalidProfileEvent", err)
	}
	if err := e.svc.TakeProfileNames(ctx, "0190a1b2-0000-7000-8000-000000000000", "Thandi", "Nkosi", time.Now()); err != nil {
		t.Errorf("an unknown user = %v, want nil", err)
	}
	if first, _ := e.tokenNames(session); first != "Thandi" {
		t.Fatalf("a refused change moved the names to %q", first)
	}
}

// TestProfileUpdatedConsumer: profiles' ProfileUpdated, read through the durable consumer with
// identity's own NATS credentials, renames the user; a message that cannot be read or applied
// does not stop the ones after it.
func TestProfileUpdatedConsumer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, session := e.signUpVerified("names.consumer@example.com")

	srv := natstest.StartWithStreams(t)
	_, profiles := srv.Connect(t, "profiles")
	_, identity := srv.Connect(t, "identity")
	subject, err := bus.Subject(bus.DomainProfiles, id, "updated")
	if err != nil {
		t.Fatal(err)
	}
	update := func(first, last string) {
		t.Helper()
		now := timestamppb.Now()
		natstest.Publish(t, profiles, subject, &profilesv1.ProfileUpdated{
			Profile:    &profilesv1.Profile{UserId: id, FirstName: first, LastName: last, UpdatedAt: now},
			OccurredAt: now,
		})
	}
	natstest.PublishData(t, profiles, subject, "thumela.profiles.v1.ProfileUpdated", []byte("not a proto"))
	update("", "Nkosi")
	update("Sipho", "Dlamini")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- events.ConsumeProfileUpdates(ctx, identity, e.svc, slog.New(slog.DiscardHandler)) }()
	t.Cleanup(func() { cancel(); <-done }) //nolint:errcheck // the consumer's error after cancel is the cancellation

	deadline := time.Now().Add(15 * time.Second)
	for {
		first, last := e.tokenNames(session)
		if first == "Sipho" && last == "Dlamini" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the token still names %q %q, want Sipho Dlamini", first, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
