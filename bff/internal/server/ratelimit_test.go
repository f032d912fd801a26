package server_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/timestamppb"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/natstest"

	"github.com/thumela/thumela/bff/internal/handlers"
	"github.com/thumela/thumela/bff/internal/session"
	"github.com/thumela/thumela/bff/internal/upstream"
)

// signUpIdentity is an identity that accepts every sign-up and counts them (the e-mails it
// would send).
type signUpIdentity struct {
	identityv1.UnimplementedIdentityServiceServer
	signUps atomic.Int32
}

func (f *signUpIdentity) SignUp(_ context.Context, req *identityv1.SignUpRequest) (*identityv1.SignUpResponse, error) {
	f.signUps.Add(1)
	return &identityv1.SignUpResponse{Email: req.GetEmail(), ResendAvailableAt: timestamppb.Now()}, nil
}

// limitedBFF serves the BFF as production wires it: the rate limits shared through a NATS KV
// bucket, reached with the BFF's own NATS credentials.
func limitedBFF(t *testing.T) (*httptest.Server, *signUpIdentity) {
	t.Helper()
	n := natstest.Start(t)
	_, admin := n.Connect(t, bus.IdentityAdmin)
	if err := bus.EnsureStreams(context.Background(), admin); err != nil {
		t.Fatal(err)
	}
	_, js := n.Connect(t, "bff")
	identity := &signUpIdentity{}
	conn := serveUpstream(t, func(s *grpc.Server) { identityv1.RegisterIdentityServiceServer(s, identity) })
	idClient := identityv1.NewIdentityServiceClient(conn)
	deps := &handlers.Deps{
		Logger:   quietLogger(),
		Identity: idClient,
		Tokens:   session.NewTokens(upstream.SessionRefresher{Identity: idClient}),
		Cookies:  session.Cookies{Secure: true},
		JS:       js,
	}
	return serveBFF(t, deps), identity
}

// retryAfter reads a refusal: ResourceExhausted with RetryInfo and a matching Retry-After
// header; ok is false for any other error.
func retryAfter(t *testing.T, err error) (time.Duration, bool) {
	t.Helper()
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeResourceExhausted {
		return 0, false
	}
	var delay time.Duration
	for _, d := range ce.Details() {
		if m, err := d.Value(); err == nil {
			if ri, ok := m.(*errdetails.RetryInfo); ok {
				delay = ri.GetRetryDelay().AsDuration()
			}
		}
	}
	if delay < time.Second || ce.Meta().Get("Retry-After") != strconv.Itoa(int(delay/time.Second)) {
		t.Fatalf("refusal %v: RetryInfo %s, Retry-After %q", err, delay, ce.Meta().Get("Retry-After"))
	}
	if !strings.HasPrefix(ce.Message(), "Too many attempts. Please try again in ") {
		t.Fatalf("refusal message %q", ce.Message())
	}
	return delay, true
}

func TestSixtySignUpsInTwoSecondsAreMostlyRefused(t *testing.T) {
	t.Parallel()
	srv, identity := limitedBFF(t)
	auth, _ := client(t, srv)
	ctx := context.Background()

	refused := 0
	start := time.Now()
	for i := range 60 {
		_, err := auth.SignUp(ctx, &bffv1.SignUpRequest{
			FirstName: "Flood", LastName: "Bot", Email: "victim" + strconv.Itoa(i) + "@example.co.za",
			Password: "correct horse battery", ConfirmPassword: "correct horse battery",
		})
		if err == nil {
			continue
		}
		if _, ok := retryAfter(t, err); !ok {
			t.Fatalf("sign-up %d: %v", i, err)
		}
		refused++
		time.Sleep(time.Until(start.Add(time.Duration(i+1) * 2 * time.Second / 60)))
	}
	if refused < 45 || identity.signUps.Load() > 15 {
		t.Fatalf("60 sign-ups in 2 s: %d refused, %d reached identity; want most refused", refused, identity.signUps.Load())
	}

	// The raw answer: HTTP 429 with Retry-After, and nothing that says which limit was hit. The
	// address earns one sign-up every 2 s, about the flood's length (longer on a slow machine),
	// so a raw request may find one earned meanwhile; a few at once cannot all.
	raw := func() *http.Response {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+bffv1connect.AuthServiceSignUpProcedure,
			strings.NewReader(`{"firstName":"F","lastName":"B","email":"x@example.co.za","password":"p4ssw0rd!!","confirmPassword":"p4ssw0rd!!"}`))
		req.Header.Set("Content-Type", "application/json")
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	res := raw()
	for tries := 1; res.StatusCode == http.StatusOK && tries < 5; tries++ {
		res = raw()
	}
	if secs, err := strconv.Atoi(res.Header.Get("Retry-After")); res.StatusCode != http.StatusTooManyRequests || err != nil || secs < 1 {
		t.Fatalf("raw refusal: %d, Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
}

func TestHundredsOfTrackCallsInASecondAreRefusedBeyondTheLimit(t *testing.T) {
	t.Parallel()
	srv, _ := limitedBFF(t)
	_, hc := client(t, srv)
	analytics := bffv1connect.NewAnalyticsServiceClient(hc, srv.URL)
	ctx := context.Background()

	var accepted, refused atomic.Int32
	var wg sync.WaitGroup
	deadline := time.Now().Add(time.Second)
	for w := range 10 {
		wg.Go(func() {
			for range 30 {
				_, err := analytics.Track(ctx, &bffv1.TrackRequest{
					AnonymousId: "anon_flood_" + strconv.Itoa(w),
					Events:      []*bffv1.AnalyticsEvent{{Name: "landing_page_viewed"}},
				})
				if err == nil {
					accepted.Add(1)
				} else if _, ok := retryAfter(t, err); ok {
					refused.Add(1)
				} else {
					t.Errorf("Track: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	if time.Now().After(deadline) {
		t.Logf("300 calls took longer than a second; the limit still holds")
	}
	// The address allows a burst of 101 and 5 a second after it.
	if a := accepted.Load(); a < 90 || a > 120 || refused.Load() < 180 {
		t.Fatalf("300 Track calls: %d accepted, %d refused", a, refused.Load())
	}
}

func TestAnOversizedTrackBatchIsRefused(t *testing.T) {
	t.Parallel()
	srv, _ := limitedBFF(t)
	_, hc := client(t, srv)
	analytics := bffv1connect.NewAnalyticsServiceClient(hc, srv.URL)
	events := make([]*bffv1.AnalyticsEvent, 40)
	for i := range events {
		// Each event is under the per-event cap; together they are far over the batch cap.
		events[i] = &bffv1.AnalyticsEvent{Name: "js_error", Url: "https://app.thumela.co.za/" + strings.Repeat("x", 7000)}
	}
	_, err := analytics.Track(context.Background(), &bffv1.TrackRequest{AnonymousId: "anon_1234567890", Events: events})
	if c := connect.CodeOf(err); c != connect.CodeInvalidArgument && c != connect.CodeResourceExhausted {
		t.Fatalf("Track of a 280 KB batch = %v, want it refused", err)
	}
}

func TestAPersonsSignUpIsNotLimited(t *testing.T) {
	t.Parallel()
	srv, _ := limitedBFF(t)
	auth, _ := client(t, srv)
	analytics := bffv1connect.NewAnalyticsServiceClient(srv.Client(), srv.URL)
	ctx := context.Background()
	// A person mistypes, corrects, and the page reports a few events meanwhile.
	for i := range 3 {
		if _, err := auth.SignUp(ctx, &bffv1.SignUpRequest{
			FirstName: "Thandi", LastName: "Nkosi", Email: "thandi@example.co.za",
			Password: "correct horse battery", ConfirmPassword: "correct horse battery",
		}); err != nil {
			t.Fatalf("sign-up %d: %v", i, err)
		}
		for range 5 {
			if _, err := analytics.Track(ctx, &bffv1.TrackRequest{AnonymousId: "anon_1234567890",
				Events: []*bffv1.AnalyticsEvent{{Name: "$pageview"}}}); err != nil {
				t.Fatalf("Track: %v", err)
			}
		}
	}
}
