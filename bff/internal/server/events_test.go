package server_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/natstest"

	"github.com/thumela/thumela/bff/internal/handlers"
	"github.com/thumela/thumela/bff/internal/historycache"
	"github.com/thumela/thumela/bff/internal/live"
	"github.com/thumela/thumela/bff/internal/server"
	"github.com/thumela/thumela/bff/internal/session"
	"github.com/thumela/thumela/bff/internal/upstream"
)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// jetStreamOn connects to srv (reconnecting as the BFF does) and ensures the streams. It
// connects as the test admin: the same connection publishes the services' events.
func jetStreamOn(t testing.TB, srv *natstest.Server) jetstream.JetStream {
	t.Helper()
	nc, js, err := bus.Connect(context.Background(), srv.URL(), "bff-test", quietLogger(), bus.WithCredentials(srv.Credentials(bus.IdentityAdmin)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	if err := bus.EnsureStreams(context.Background(), js); err != nil {
		t.Fatal(err)
	}
	return js
}

func jetStream(t testing.TB) jetstream.JetStream {
	t.Helper()
	return jetStreamOn(t, natstest.Start(t))
}

// publish publishes m and returns its stream sequence (the cursor a tab gets with it).
func publish(t testing.TB, js jetstream.JetStream, subject string, m proto.Message) uint64 {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	ack, err := js.Publish(context.Background(), subject, b)
	if err != nil {
		t.Fatal(err)
	}
	return ack.Sequence
}

// publishStatus publishes transfer id's status event for userID.
func publishStatus(t testing.TB, js jetstream.JetStream, userID, id string) uint64 {
	t.Helper()
	return publish(t, js, "thumela.transfers."+userID+".status", &transfersv1.TransferStatusChanged{Transfer: &transfersv1.Transfer{
		Id: id, UserId: userID, Status: transfersv1.TransferStatus_TRANSFER_STATUS_PROCESSING,
	}})
}

// usersIdentity is a hand-written identity with several users (by e-mail), sessions in memory.
type usersIdentity struct {
	identityv1.UnimplementedIdentityServiceServer
	mu       sync.Mutex
	sessions map[string]string // token → user id
	n        int
}

func (f *usersIdentity) SignIn(_ context.Context, req *identityv1.SignInRequest) (*identityv1.SignInResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	user, _, ok := strings.Cut(req.GetEmail(), "@")
	if !ok || req.GetPassword() != "right-password" {
		return nil, status.Error(codes.Unauthenticated, "Invalid email or password.")
	}
	f.n++
	tok := fmt.Sprintf("session-%d", f.n)
	f.sessions[tok] = user
	return &identityv1.SignInResponse{
		User:    &identityv1.User{Id: user, Email: req.GetEmail()},
		Session: &identityv1.Session{Token: tok, ExpiresAt: timestamppb.New(time.Now().Add(time.Hour))},
	}, nil
}

func (f *usersIdentity) Refresh(_ context.Context, req *identityv1.RefreshRequest) (*identityv1.RefreshResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	user, ok := f.sessions[req.GetSessionToken()]
	if !ok {
		return nil, status.Error(codes.Unauthenticated, "session expired")
	}
	return &identityv1.RefreshResponse{
		User:                 &identityv1.User{Id: user, Email: user + "@example.co.za"},
		AccessToken:          "access-for-" + req.GetSessionToken(),
		AccessTokenExpiresAt: timestamppb.New(time.Now().Add(10 * time.Minute)),
	}, nil
}

// countingTransfers answers GetTransfer (the read-back of voucher events that lack their
// transfer) and counts the calls.
type countingTransfers struct {
	transfersv1.UnimplementedTransfersServiceServer
	calls atomic.Int64
	// history is what ListTransfers and CancelTransfer (history_test.go) answer and change;
	// users tells whose access token a call carries.
	history transfersHistory
	users   *usersIdentity
}

func (f *countingTransfers) GetTransfer(_ context.Context, req *transfersv1.GetTransferRequest) (*transfersv1.GetTransferResponse, error) {
	f.calls.Add(1)
	return &transfersv1.GetTransferResponse{Transfer: &transfersv1.Transfer{
		Id: req.GetTransferId(), UserId: "u1", Status: transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED,
	}}, nil
}

// liveBFF is a BFF with its live hub running on js.
type liveBFF struct {
	srv       *httptest.Server
	hub       *handlers.LiveHub
	transfers *countingTransfers
}

func newLiveBFF(t testing.TB, js jetstream.JetStream, limits live.Limits) *liveBFF {
	t.Helper()
	return newLiveBFFWith(t, js, limits, nil)
}

// newLiveBFFWith is newLiveBFF with a cache of history pages (nil: none).
func newLiveBFFWith(t testing.TB, js jetstream.JetStream, limits live.Limits, history *historycache.Cache) *liveBFF {
	t.Helper()
	return newLiveBFFServed(t, js, limits, history, nil)
}

// newLiveBFFServed is newLiveBFFWith with the server's options changed by edit (nil: none).
func newLiveBFFServed(t testing.TB, js jetstream.JetStream, limits live.Limits, history *historycache.Cache, edit func(*server.Options)) *liveBFF {
	t.Helper()
	identity := &usersIdentity{sessions: map[string]string{}}
	transfers := &countingTransfers{users: identity}
	conn := serveUpstream(t, func(s *grpc.Server) {
		identityv1.RegisterIdentityServiceServer(s, identity)
		profilesv1.RegisterProfilesServiceServer(s, fakeProfiles{})
		transfersv1.RegisterTransfersServiceServer(s, transfers)
	})

	logger := quietLogger()
	idClient := identityv1.NewIdentityServiceClient(conn)
	hub := handlers.NewLiveHub(js, logger, limits, history)
	deps := &handlers.Deps{
		Logger:    logger,
		Identity:  idClient,
		Profiles:  profilesv1.NewProfilesServiceClient(conn),
		Transfers: transfersv1.NewTransfersServiceClient(conn),
		Tokens:    session.NewTokens(upstream.SessionRefresher{Identity: idClient}),
		Cookies:   session.Cookies{Secure: true},
		JS:        js,
		Live:      hub,
		History:   history,
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = hub.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-hub.Running():
	case <-time.After(20 * time.Second):
		t.Fatal("the live hub did not start")
	}

	return &liveBFF{srv: serveBFFWith(t, deps, edit), hub: hub, transfers: transfers}
}

// signIn signs userID in on a client of its own (a browser, whose tabs share the cookie).
func (b *liveBFF) signIn(t testing.TB, userID string) bffv1connect.EventsServiceClient {
	t.Helper()
	return bffv1connect.NewEventsServiceClient(b.browser(t, userID), b.srv.URL)
}

// browser is an HTTP client of its own with userID signed in: its clients share the cookie.
func (b *liveBFF) browser(t testing.TB, userID string) *http.Client {
	t.Helper()
	// A client of its own: srv.Client() is one shared client, whose cookie jar client() sets.
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Transport: b.srv.Client().Transport, Jar: jar}
	auth := bffv1connect.NewAuthServiceClient(hc, b.srv.URL)
	if _, err := auth.SignIn(context.Background(), &bffv1.SignInRequest{Email: userID + "@example.co.za", Password: "right-password"}); err != nil {
		t.Fatal(err)
	}
	return hc
}

// signedIn signs in the single user (u1) of the older tests.
func signedIn(t *testing.T, b *liveBFF) bffv1connect.EventsServiceClient {
	t.Helper()
	return b.signIn(t, "u1")
}

type stream = connect.ServerStreamForClient[bffv1.WatchEventsResponse]

// watch opens a tab (resuming after cursor unless it is empty) and reads its first message,
// the heartbeat that says it is live; it returns the stream and that heartbeat's cursor.
func watch(t testing.TB, ctx context.Context, events bffv1connect.EventsServiceClient, cursor string) (*stream, string) {
	t.Helper()
	s, err := events.WatchEvents(ctx, &bffv1.WatchEventsRequest{ResumeAfter: cursor})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Receive() || s.Msg().GetHeartbeat() == nil {
		t.Fatalf("first message is not a heartbeat: %v %v", s.Msg(), s.Err())
	}
	return s, s.Msg().GetCursor()
}

// next reads the stream's next non-heartbeat event.
func next(t *testing.T, s *stream) *bffv1.WatchEventsResponse {
	t.Helper()
	for s.Receive() {
		if s.Msg().GetHeartbeat() == nil {
			return s.Msg()
		}
	}
	t.Fatalf("stream ended: %v", s.Err())
	return nil
}

// transferIDs reads n events and returns their transfer ids, checking that cursors rise.
func transferIDs(t *testing.T, s *stream, n int) []string {
	t.Helper()
	ids, err := readTransferIDs(s, n)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// readTransferIDs is transferIDs for other goroutines than the test's.
func readTransferIDs(s *stream, n int) ([]string, error) {
	var ids []string
	var last uint64
	for len(ids) < n {
		if !s.Receive() {
			return ids, fmt.Errorf("stream ended after %v: %v", ids, s.Err())
		}
		ev := s.Msg()
		if ev.GetHeartbeat() != nil {
			continue
		}
		c, err := strconv.ParseUint(ev.GetCursor(), 10, 64)
		if err != nil || c <= last {
			return ids, fmt.Errorf("cursor %q after %d", ev.GetCursor(), last)
		}
		last = c
		ids = append(ids, ev.GetTransferUpdated().GetTransfer().GetId())
	}
	return ids, nil
}

func numbered(prefix string, from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, fmt.Sprintf("%s-%d", prefix, i))
	}
	return out
}

func sameIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("%s got\n  %v\nwant\n  %v", what, got, want)
	}
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestLiveEventsCarryOnlyTheUsersOwnEventsAndResume(t *testing.T) {
	t.Parallel()
	js := jetStream(t)
	bff := newLiveBFF(t, js, live.Limits{})
	events := signedIn(t, bff)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stream, _ := watch(t, ctx, events, "")

	// Another user's event first: it must never arrive. Then the user's own.
	publish(t, js, "thumela.transfers.u2.status", &transfersv1.TransferStatusChanged{Transfer: &transfersv1.Transfer{Id: "not-yours", UserId: "u2"}})
	publish(t, js, "thumela.transfers.u1.status", &transfersv1.TransferStatusChanged{Transfer: &transfersv1.Transfer{
		Id: "t1", UserId: "u1", Status: transfersv1.TransferStatus_TRANSFER_STATUS_PROCESSING, AmountCents: 15000,
	}})
	got := next(t, stream)
	if id := got.GetTransferUpdated().GetTransfer().GetId(); id != "t1" {
		t.Fatalf("first event is %v, want transfer t1", got)
	}
	if got.GetTransferUpdated().GetTransfer().GetStatus() != bffv1.TransferStatus_TRANSFER_STATUS_PROCESSING {
		t.Fatalf("status = %v", got.GetTransferUpdated().GetTransfer().GetStatus())
	}
	cursor := got.GetCursor()
	cancel()

	// While the tab is away, two more events happen; reconnecting with the cursor gets both,
	// in order (from the hub's memory).
	publish(t, js, "thumela.transfers.u1.status", &transfersv1.TransferStatusChanged{Transfer: &transfersv1.Transfer{
		Id: "t1", UserId: "u1", Status: transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED,
	}})
	publish(t, js, "thumela.profiles.u1.updated", &profilesv1.ProfileUpdated{Profile: &profilesv1.Profile{UserId: "u1", FirstName: "Thandeka"}})

	ctx2, cancel2 := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel2()
	resumed, _ := watch(t, ctx2, events, cursor)
	first := next(t, resumed)
	if first.GetTransferUpdated().GetTransfer().GetStatus() != bffv1.TransferStatus_TRANSFER_STATUS_COMPLETED {
		t.Fatalf("resumed first = %v", first)
	}
	second := next(t, resumed)
	if second.GetProfileUpdated().GetProfile().GetFirstName() != "Thandeka" {
		t.Fatalf("resumed second = %v", second)
	}
}

func TestLiveEventsNeedASession(t *testing.T) {
	t.Parallel()
	js := jetStream(t)
	bff := newLiveBFF(t, js, live.Limits{})
	_, hc := client(t, bff.srv)
	events := bffv1connect.NewEventsServiceClient(hc, bff.srv.URL)
	stream, err := events.WatchEvents(context.Background(), &bffv1.WatchEventsRequest{})
	if err == nil {
		for stream.Receive() {
		}
		err = stream.Err()
	}
	if connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("err = %v, want Unauthenticated", err)
	}
}

func TestLiveEventsGoToEveryTabOfTheirUserOnly(t *testing.T) {
	t.Parallel()
	js := jetStream(t)
	bff := newLiveBFF(t, js, live.Limits{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	const tabs, perUser = 4, 25
	users := []string{"u1", "u2"}
	streams := map[string][]*stream{}
	for _, u := range users {
		events := bff.signIn(t, u)
		for range tabs {
			s, _ := watch(t, ctx, events, "")
			streams[u] = append(streams[u], s)
		}
	}
	if n := bff.hub.Subscribers(); n != len(users)*tabs {
		t.Fatalf("hub has %d subscribers, want %d", n, len(users)*tabs)
	}

	// Interleaved: u1-1, u2-1, u1-2, u2-2, … plus a domain the tabs do not get.
	for i := 1; i <= perUser; i++ {
		for _, u := range users {
			publishStatus(t, js, u, fmt.Sprintf("%s-%d", u, i))
		}
		publish(t, js, "thumela.identity.u1.signed_in", &transfersv1.TransferStatusChanged{})
	}
	var wg sync.WaitGroup
	for _, u := range users {
		for i, s := range streams[u] {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := readTransferIDs(s, perUser)
				if want := numbered(u, 1, perUser); err != nil || strings.Join(got, ",") != strings.Join(want, ",") {
					t.Errorf("%s's tab %d got %v (%v), want %v", u, i, got, err, want)
				}
			}()
		}
	}
	wg.Wait()

	cancel()
	eventually(t, "the closed tabs leave the hub", func() bool { return bff.hub.Subscribers() == 0 })
}

func TestLiveEventsResumeBeyondTheRingWithoutGapOrDuplicate(t *testing.T) {
	t.Parallel()
	js := jetStream(t)
	// The ring holds the last 2 messages: a tab away for more than that is caught up from
	// JetStream.
	bff := newLiveBFF(t, js, live.Limits{RingSize: 2})
	events := bff.signIn(t, "u1")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// An observer tab stays open throughout: once it has an event, the hub has routed it.
	observer, _ := watch(t, ctx, events, "")
	tabCtx, closeTab := context.WithCancel(ctx)
	tab, _ := watch(t, tabCtx, events, "")
	publishStatus(t, js, "u1", "t-1")
	sameIDs(t, "observer", transferIDs(t, observer, 1), []string{"t-1"})
	first := next(t, tab)
	closeTab()

	// While the tab is away: 10 of u1's events among 10 of u2's, far more than the ring holds.
	for i := 2; i <= 11; i++ {
		publishStatus(t, js, "u2", fmt.Sprintf("other-%d", i))
		publishStatus(t, js, "u1", fmt.Sprintf("t-%d", i))
	}
	sameIDs(t, "observer", transferIDs(t, observer, 10), numbered("t", 2, 11))

	// The tab comes back while u1's events keep coming: the catch-up from JetStream hands over
	// to live delivery with nothing lost and nothing twice.
	const last = 60
	published := make(chan struct{})
	go func() {
		defer close(published)
		for i := 12; i <= last; i++ {
			publishStatus(t, js, "u1", fmt.Sprintf("t-%d", i))
			publishStatus(t, js, "u2", fmt.Sprintf("other-%d", i))
		}
	}()
	resumed, _ := watch(t, ctx, events, first.GetCursor())
	sameIDs(t, "resumed tab", transferIDs(t, resumed, last-1), numbered("t", 2, last))
	<-published
	sameIDs(t, "observer", transferIDs(t, observer, last-11), numbered("t", 12, last))

	// And a resume within the ring still works after that.
	publishStatus(t, js, "u1", "t-61")
	publishStatus(t, js, "u1", "t-62")
	sameIDs(t, "observer", transferIDs(t, observer, 2), []string{"t-61", "t-62"})
	resumedAgain, _ := watch(t, ctx, events, strconv.FormatUint(lastCursor(t, resumed), 10))
	sameIDs(t, "tab resumed within the ring", transferIDs(t, resumedAgain, 2), []string{"t-61", "t-62"})
}

// lastCursor is the cursor of the event read last on s.
func lastCursor(t *testing.T, s *stream) uint64 {
	t.Helper()
	c, err := strconv.ParseUint(s.Msg().GetCursor(), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestLiveEventsRefuseATabBeyondTheUsersLimit: the stream the limit refuses answers
// ResourceExhausted (not Unavailable: nothing is wrong with the service), and the user's open
// tabs and other users are not affected.
func TestLiveEventsRefuseATabBeyondTheUsersLimit(t *testing.T) {
	t.Parallel()
	js := jetStream(t)
	bff := newLiveBFF(t, js, live.Limits{PerUser: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	u1, u2 := bff.signIn(t, "u1"), bff.signIn(t, "u2")
	first, _ := watch(t, ctx, u1, "")
	watch(t, ctx, u1, "")
	refused, err := u1.WatchEvents(ctx, &bffv1.WatchEventsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if refused.Receive() {
		t.Fatalf("the third tab was served: %v", refused.Msg())
	}
	if got := connect.CodeOf(refused.Err()); got != connect.CodeResourceExhausted {
		t.Fatalf("the third tab ended with %v, want ResourceExhausted", refused.Err())
	}
	other, _ := watch(t, ctx, u2, "")
	publishStatus(t, js, "u1", "t-1")
	publishStatus(t, js, "u2", "t-2")
	sameIDs(t, "u1's first tab", transferIDs(t, first, 1), []string{"t-1"})
	sameIDs(t, "u2's tab", transferIDs(t, other, 1), []string{"t-2"})
}

func TestLiveEventsEndASlowTabAndKeepServingTheOthers(t *testing.T) {
	t.Parallel()
	js := jetStream(t)
	bff := newLiveBFF(t, js, live.Limits{QueueSize: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	u1, u2 := bff.signIn(t, "u1"), bff.signIn(t, "u2")
	slow, _ := watch(t, ctx, u1, "")
	fast, _ := watch(t, ctx, u1, "")
	other, _ := watch(t, ctx, u2, "")

	// The slow tab reads nothing: once HTTP/2's window (4 MiB per stream) is full its sends
	// block, its queue of 2 overflows, and the hub ends it. The events are big and random, so
	// that gzip on the stream does not shrink them under the window. The other tabs read each
	// event before the next is published, so they never fall behind.
	const n = 48
	for i := 1; i <= n; i++ {
		big := make([]byte, 192<<10)
		_, _ = rand.Read(big)
		publish(t, js, "thumela.profiles.u1.updated", &profilesv1.ProfileUpdated{Profile: &profilesv1.Profile{
			UserId: "u1", FirstName: fmt.Sprint(i), LastName: base64.StdEncoding.EncodeToString(big),
		}})
		publishStatus(t, js, "u2", fmt.Sprintf("t-%d", i))
		if got := next(t, fast).GetProfileUpdated().GetProfile().GetFirstName(); got != fmt.Sprint(i) {
			t.Fatalf("fast tab's event %d is profile %q", i, got)
		}
		sameIDs(t, "the other user's tab", transferIDs(t, other, 1), []string{fmt.Sprintf("t-%d", i)})
	}

	// The slow tab gets what was sent before it fell behind, then Unavailable.
	var cursor string
	received := 0
	for slow.Receive() {
		if slow.Msg().GetHeartbeat() == nil {
			received++
			if got := slow.Msg().GetProfileUpdated().GetProfile().GetFirstName(); got != fmt.Sprint(received) {
				t.Fatalf("slow tab's event %d is profile %q", received, got)
			}
		}
		cursor = slow.Msg().GetCursor()
	}
	if connect.CodeOf(slow.Err()) != connect.CodeUnavailable {
		t.Fatalf("slow tab ended with %v after %d events, want Unavailable", slow.Err(), received)
	}
	if received >= n {
		t.Fatalf("slow tab got all %d events: it was never slow", received)
	}
	if got := bff.hub.Subscribers(); got != 2 {
		t.Fatalf("hub has %d subscribers, want the 2 tabs still open", got)
	}

	// It reconnects with its cursor and gets the rest, as the web client does.
	resumed, _ := watch(t, ctx, u1, cursor)
	for i := received + 1; i <= n; i++ {
		if got := next(t, resumed).GetProfileUpdated().GetProfile().GetFirstName(); got != fmt.Sprint(i) {
			t.Fatalf("resumed slow tab's event %d is profile %q", i, got)
		}
	}
}

func TestLiveEventsSurviveANATSRestart(t *testing.T) {
	t.Parallel()
	nats := natstest.Start(t)
	js := jetStreamOn(t, nats)
	bff := newLiveBFF(t, js, live.Limits{})
	events := bff.signIn(t, "u1")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tab, _ := watch(t, ctx, events, "")
	publishStatus(t, js, "u1", "before")
	sameIDs(t, "before the restart", transferIDs(t, tab, 1), []string{"before"})

	nats.Restart()
	// Publish once the test's own connection is back.
	for {
		b, _ := proto.Marshal(&transfersv1.TransferStatusChanged{Transfer: &transfersv1.Transfer{Id: "after", UserId: "u1"}})
		pctx, pcancel := context.WithTimeout(ctx, time.Second)
		_, err := js.Publish(pctx, "thumela.transfers.u1.status", b)
		pcancel()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("could not publish after the restart: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The open tab carries on, and a new one opens.
	sameIDs(t, "after the restart", transferIDs(t, tab, 1), []string{"after"})
	fresh, _ := watch(t, ctx, events, "")
	publishStatus(t, js, "u1", "later")
	sameIDs(t, "open tab", transferIDs(t, tab, 1), []string{"later"})
	sameIDs(t, "new tab", transferIDs(t, fresh, 1), []string{"later"})
}

func TestLiveVoucherEventsCarryTheirTransfer(t *testing.T) {
	t.Parallel()
	js := jetStream(t)
	bff := newLiveBFF(t, js, live.Limits{})
	events := bff.signIn(t, "u1")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tabs := make([]*stream, 3)
	for i := range tabs {
		tabs[i], _ = watch(t, ctx, events, "")
	}

	// A voucher event without its transfer is malformed (every VoucherChanged carries it): the
	// tabs skip it, with no read-back, and take the next.
	publish(t, js, "thumela.transfers.u1.voucher", &transfersv1.VoucherChanged{TransferId: "t0"})
	// The event carries the transfer: no read-back, whatever the number of tabs.
	publish(t, js, "thumela.transfers.u1.voucher", &transfersv1.VoucherChanged{TransferId: "t1", Transfer: &transfersv1.Transfer{
		Id: "t1", UserId: "u1", Status: transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED,
		Voucher: &transfersv1.Voucher{Number: "1234567890"},
	}})
	for i, tab := range tabs {
		ev := next(t, tab)
		if tr := ev.GetTransferUpdated().GetTransfer(); tr.GetId() != "t1" || tr.GetVoucher().GetNumber() != "1234567890" {
			t.Fatalf("tab %d: voucher event = %v", i, ev)
		}
	}
	if got := bff.transfers.calls.Load(); got != 0 {
		t.Fatalf("GetTransfer called %d times, want none", got)
	}
}

// BenchmarkLiveFanOut times an event from its JetStream publish to its first arrival on one of
// its user's tabs, with 100 users × 10 tabs open (JSON, as the browser; over TLS HTTP/2, each
// user's tabs on one connection), for events published one at a time ("one") and 75 at once
// ("burst75", as an outbox relay's sweep does). Not a test: speed is measured, not asserted.
//
//	cd bff && go test ./internal/server/ -run '^$' -bench LiveFanOut -benchtime 100x
func BenchmarkLiveFanOut(b *testing.B) {
	for _, burst := range []int{1, 75} {
		name := "one"
		if burst > 1 {
			name = fmt.Sprintf("burst%d", burst)
		}
		b.Run(name, func(b *testing.B) { benchmarkFanOut(b, 100, 10, burst) })
	}
}

func benchmarkFanOut(b *testing.B, users, tabs, burst int) {
	js := jetStream(b)
	bff := newLiveBFF(b, js, live.Limits{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var mu sync.Mutex
	first := map[string]time.Time{}
	arrived := make(chan struct{}, 1)
	var open sync.WaitGroup
	for u := range users {
		jar, _ := cookiejar.New(nil)
		hc := &http.Client{Transport: bff.srv.Client().Transport, Jar: jar}
		auth := bffv1connect.NewAuthServiceClient(hc, bff.srv.URL, connect.WithProtoJSON())
		if _, err := auth.SignIn(ctx, &bffv1.SignInRequest{Email: fmt.Sprintf("u%d@example.co.za", u), Password: "right-password"}); err != nil {
			b.Fatal(err)
		}
		events := bffv1connect.NewEventsServiceClient(hc, bff.srv.URL, connect.WithProtoJSON())
		for range tabs {
			open.Add(1)
			go func() {
				s, err := events.WatchEvents(ctx, &bffv1.WatchEventsRequest{})
				if err != nil || !s.Receive() {
					b.Error("stream did not open", err)
					open.Done()
					return
				}
				open.Done()
				for s.Receive() {
					now := time.Now()
					id := s.Msg().GetTransferUpdated().GetTransfer().GetId()
					mu.Lock()
					if _, ok := first[id]; !ok {
						first[id] = now
						select {
						case arrived <- struct{}{}:
						default:
						}
					}
					mu.Unlock()
				}
			}()
		}
	}
	open.Wait()

	var latencies []time.Duration
	b.ResetTimer()
	for i := range b.N {
		sent := make(map[string]time.Time, burst)
		for k := range burst {
			id := fmt.Sprintf("b%d-%d", i, k)
			user := fmt.Sprintf("u%d", (i*burst+k)%users)
			data, _ := proto.Marshal(&transfersv1.TransferStatusChanged{Transfer: &transfersv1.Transfer{Id: id, UserId: user}})
			sent[id] = time.Now()
			if _, err := js.PublishAsync("thumela.transfers."+user+".status", data); err != nil {
				b.Fatal(err)
			}
		}
		deadline := time.After(30 * time.Second)
		for {
			mu.Lock()
			n := 0
			for id := range sent {
				if _, ok := first[id]; ok {
					n++
				}
			}
			mu.Unlock()
			if n == burst {
				break
			}
			select {
			case <-arrived:
			case <-deadline:
				b.Fatalf("%d of %d events arrived", n, burst)
			}
		}
		mu.Lock()
		for id, at := range sent {
			latencies = append(latencies, first[id].Sub(at))
		}
		mu.Unlock()
	}
	b.StopTimer()
	slices.Sort(latencies)
	ms := func(q float64) float64 {
		return float64(latencies[min(len(latencies)-1, int(q*float64(len(latencies))))]) / float64(time.Millisecond)
	}
	b.ReportMetric(ms(0.50), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
}

// The bound on a user's live streams can be set but not turned into none.
func TestLiveStreamsPerUserIsValidated(t *testing.T) {
	t.Parallel()
	for n, ok := range map[int]bool{-1: false, 0: true, 1: true, 128: true} {
		cfg := server.Config{HTTPAddr: ":8080", LiveStreamsPerUser: n}
		if err := cfg.Validate(); (err == nil) != ok {
			t.Errorf("BFF_LIVE_STREAMS_PER_USER=%d: Validate() = %v, want ok=%v", n, err, ok)
		}
	}
}
