package ratelimit_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/throttled/throttled/v2/store/storetest"
	"google.golang.org/genproto/googleapis/rpc/errdetails"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	"github.com/thumela/thumela/services/platform/natstest"

	"github.com/thumela/thumela/bff/internal/ratelimit"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// bffJetStream connects to n as the BFF, with the BFF's NATS permissions: the limiter must
// work with exactly those.
func bffJetStream(t testing.TB, n *natstest.Server) jetstream.JetStream {
	t.Helper()
	_, js := n.Connect(t, "bff")
	return js
}

// fakeClock is a settable clock for pacing calls without waiting.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// authAndSystem answers SignUp, CheckConnection and Track; everything else is unimplemented.
type authAndSystem struct {
	bffv1connect.UnimplementedAuthServiceHandler
	bffv1connect.UnimplementedSystemServiceHandler
	bffv1connect.UnimplementedAnalyticsServiceHandler
}

func (authAndSystem) Track(context.Context, *bffv1.TrackRequest) (*bffv1.TrackResponse, error) {
	return &bffv1.TrackResponse{}, nil
}

func (authAndSystem) SignUp(context.Context, *bffv1.SignUpRequest) (*bffv1.SignUpResponse, error) {
	return &bffv1.SignUpResponse{}, nil
}

func (authAndSystem) CheckConnection(context.Context, *bffv1.CheckConnectionRequest) (*bffv1.CheckConnectionResponse, error) {
	return &bffv1.CheckConnectionResponse{Ok: true}, nil
}

// serve puts a limiter in front of SignUp and CheckConnection, as the BFF does, over HTTP.
func serve(t *testing.T, o ratelimit.Options) (bffv1connect.AuthServiceClient, bffv1connect.SystemServiceClient) {
	t.Helper()
	if o.Logger == nil {
		o.Logger = quiet()
	}
	l, err := ratelimit.New(o)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(bffv1connect.NewAuthServiceHandler(authAndSystem{}, connect.WithInterceptors(l.Interceptor())))
	mux.Handle(bffv1connect.NewSystemServiceHandler(authAndSystem{}, connect.WithInterceptors(l.Interceptor())))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return bffv1connect.NewAuthServiceClient(srv.Client(), srv.URL), bffv1connect.NewSystemServiceClient(srv.Client(), srv.URL)
}

// serveTrack is serve for Track, whose account is the signed-in user: here the X-Test-User
// header stands in for the session cookie. It returns a client maker per user.
func serveTrack(t *testing.T, o ratelimit.Options) func(user string) bffv1connect.AnalyticsServiceClient {
	t.Helper()
	o.Logger = quiet()
	o.SessionUser = func(_ context.Context, h http.Header) string { return h.Get("X-Test-User") }
	l, err := ratelimit.New(o)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(bffv1connect.NewAnalyticsServiceHandler(authAndSystem{}, connect.WithInterceptors(l.Interceptor())))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return func(user string) bffv1connect.AnalyticsServiceClient {
		return bffv1connect.NewAnalyticsServiceClient(srv.Client(), srv.URL, connect.WithInterceptors(
			connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
				return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
					req.Header().Set("X-Test-User", user)
					return next(ctx, req)
				}
			})))
	}
}

func signUp(ctx context.Context, c bffv1connect.AuthServiceClient, i int) error {
	_, err := c.SignUp(ctx, &bffv1.SignUpRequest{Email: "user" + strconv.Itoa(i) + "@example.co.za"})
	return err
}

// refusedWithRetry checks a refusal's shape: ResourceExhausted, a RetryInfo of at least a
// second, a matching Retry-After header, and the one message whichever rule was hit.
func refusedWithRetry(t *testing.T, err error) bool {
	t.Helper()
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeResourceExhausted {
		return false
	}
	var delay time.Duration
	for _, d := range ce.Details() {
		if m, derr := d.Value(); derr == nil {
			if ri, ok := m.(*errdetails.RetryInfo); ok {
				delay = ri.GetRetryDelay().AsDuration()
			}
		}
	}
	if delay < time.Second {
		t.Fatalf("refusal without a RetryInfo delay: %v", err)
	}
	if got := ce.Meta().Get("Retry-After"); got != strconv.Itoa(int(delay.Seconds())) {
		t.Fatalf("Retry-After = %q, RetryInfo = %s", got, delay)
	}
	if ce.Message() != ratelimit.MessageFor(delay) {
		t.Fatalf("message %q, want %q", ce.Message(), ratelimit.MessageFor(delay))
	}
	return true
}

func TestKVStoreIsAGCRAStore(t *testing.T) {
	t.Parallel()
	st := ratelimit.NewKVStoreForTest(bffJetStream(t, natstest.Start(t)), time.Minute)
	storetest.TestGCRAStoreCtx(t, st)
}

func TestAFloodOfSignUpsIsRefusedAndAPersonsPaceIsNot(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Now()}
	auth, _ := serve(t, ratelimit.Options{JS: bffJetStream(t, natstest.Start(t)), Config: ratelimit.Config{Now: clock.Now}})
	ctx := context.Background()

	// 60 sign-ups with different e-mails within 2 s from one address.
	passed, refused := 0, 0
	for i := range 60 {
		err := signUp(ctx, auth, i)
		switch {
		case err == nil:
			passed++
		case refusedWithRetry(t, err):
			refused++
		default:
			t.Fatalf("sign-up %d: %v", i, err)
		}
		clock.Advance(2 * time.Second / 60)
	}
	if passed > 15 || refused < 45 {
		t.Fatalf("flood of 60 sign-ups: %d passed, %d refused; want most refused", passed, refused)
	}

	// The browser test suite's pace: a sign-up every 3 s, 80 of them, after the flood has
	// drained, all pass.
	clock.Advance(time.Minute)
	for i := range 80 {
		if err := signUp(ctx, auth, 1000+i); err != nil {
			t.Fatalf("paced sign-up %d: %v", i, err)
		}
		clock.Advance(3 * time.Second)
	}
}

func TestOneEmailIsNotSignedUpOverAndOver(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Now()}
	auth, _ := serve(t, ratelimit.Options{Config: ratelimit.Config{Now: clock.Now}})
	ctx := context.Background()
	passed := 0
	for range 10 {
		if err := signUp(ctx, auth, 7); err == nil {
			passed++
		} else if !refusedWithRetry(t, err) {
			t.Fatal(err)
		}
		clock.Advance(10 * time.Second)
	}
	if passed != 3 {
		t.Fatalf("%d sign-ups of one e-mail passed within 100 s, want 3 (burst 2 + 1)", passed)
	}
}

func TestASignedInUserIsCountedAsAnAccount(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{now: time.Now()}
	trackAs := serveTrack(t, ratelimit.Options{JS: bffJetStream(t, natstest.Start(t)), Config: ratelimit.Config{Now: clock.Now}})
	ctx := context.Background()
	// Track allows an account a burst of 61 (the address, 101): the 62nd call of one user is
	// refused while another user at the same address goes on.
	thandi := trackAs("u-thandi")
	for i := range 61 {
		if _, err := thandi.Track(ctx, &bffv1.TrackRequest{}); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if _, err := thandi.Track(ctx, &bffv1.TrackRequest{}); !refusedWithRetry(t, err) {
		t.Fatalf("62nd call of one user: %v, want refused", err)
	}
	if _, err := trackAs("u-sipho").Track(ctx, &bffv1.TrackRequest{}); err != nil {
		t.Fatalf("another user at the same address: %v", err)
	}
}

func TestTwoReplicasShareOneLimit(t *testing.T) {
	t.Parallel()
	n := natstest.Start(t)
	clock := &fakeClock{now: time.Now()} // time stands still: no allowance refills mid-test
	// Two BFF replicas: their own connections, their own process-local stores, one NATS.
	_, a := serve(t, ratelimit.Options{JS: bffJetStream(t, n), Config: ratelimit.Config{Now: clock.Now}})
	_, b := serve(t, ratelimit.Options{JS: bffJetStream(t, n), Config: ratelimit.Config{Now: clock.Now}})
	ctx := context.Background()

	// CheckConnection allows a burst of 21 per address per replica's own count...
	for i := range 21 {
		if _, err := a.CheckConnection(ctx, &bffv1.CheckConnectionRequest{}); err != nil {
			t.Fatalf("call %d at replica A: %v", i, err)
		}
	}
	// ...but replica B, which has not seen this address, refuses it: the count is shared.
	_, err := b.CheckConnection(ctx, &bffv1.CheckConnectionRequest{})
	if !refusedWithRetry(t, err) {
		t.Fatalf("replica B after A's burst: %v, want ResourceExhausted", err)
	}
}

func TestWithoutNATSEachReplicaStillLimits(t *testing.T) {
	t.Parallel()
	nats := natstest.Start(t)
	clock := &fakeClock{now: time.Now()}
	_, sys := serve(t, ratelimit.Options{JS: bffJetStream(t, nats), Config: ratelimit.Config{Now: clock.Now}})
	ctx := context.Background()
	if _, err := sys.CheckConnection(ctx, &bffv1.CheckConnectionRequest{}); err != nil {
		t.Fatal(err)
	}
	nats.Shutdown()

	// The shared store is gone: calls still pass up to the limit, counted by this replica,
	// and are refused beyond it.
	passed := 1
	for range 30 {
		_, err := sys.CheckConnection(ctx, &bffv1.CheckConnectionRequest{})
		if err == nil {
			passed++
		} else if !refusedWithRetry(t, err) {
			t.Fatal(err)
		}
	}
	if passed != 21 {
		t.Fatalf("%d calls passed without NATS, want the burst of 21", passed)
	}
}

func TestOverrides(t *testing.T) {
	t.Parallel()
	p := ratelimit.DefaultPolicies()
	if err := ratelimit.ApplyOverrides(p, "signup.address=100/1m+50, signin.pair=0/m+0 ,check.address=5/10s+1"); err != nil {
		t.Fatal(err)
	}
	got := p[bffv1connect.AuthServiceSignUpProcedure].Rules
	if got[len(got)-1] != (ratelimit.Rule{Kind: ratelimit.ByAddress, Rate: 100, Per: time.Minute, Burst: 50}) {
		t.Fatalf("signup rules = %v", got)
	}
	for _, r := range p[bffv1connect.AuthServiceSignInProcedure].Rules {
		if r.Kind == ratelimit.ByPair {
			t.Fatal("signin.pair=0 left the rule on")
		}
	}
	for _, bad := range []string{"nope.address=1/m+1", "signup.address=1/fortnight+1", "check.account=1/m+1", "signup.address=10"} {
		if err := ratelimit.ApplyOverrides(ratelimit.DefaultPolicies(), bad); err == nil {
			t.Errorf("ApplyOverrides(%q) accepted", bad)
		}
	}
}

func TestMessageFor(t *testing.T) {
	t.Parallel()
	for wait, want := range map[time.Duration]string{
		300 * time.Millisecond: "Too many attempts. Please try again in 1 second.",
		12*time.Second + 1:     "Too many attempts. Please try again in 13 seconds.",
		75 * time.Second:       "Too many attempts. Please try again in 1 minute.",
		10 * time.Minute:       "Too many attempts. Please try again in 10 minutes.",
	} {
		if got := ratelimit.MessageFor(wait); got != want {
			t.Errorf("MessageFor(%s) = %q, want %q", wait, got, want)
		}
	}
}

// Every call that sends someone an SMS or gives money back is limited per account: a create,
// three re-sends and a free cancel, looped, were an SMS flood of any phone.
func TestEveryVoucherSMSAndRefundIsLimitedPerAccount(t *testing.T) {
	t.Parallel()
	p := ratelimit.DefaultPolicies()
	for _, proc := range []string{
		bffv1connect.TransfersServiceCreateTransferProcedure,
		bffv1connect.TransfersServiceResendVoucherProcedure,
		bffv1connect.TransfersServiceChangeRecipientPhoneProcedure,
		bffv1connect.TransfersServiceCancelTransferProcedure,
	} {
		policy, ok := p[proc]
		if !ok || policy.Account != ratelimit.FromSession {
			t.Errorf("%s has no per-account policy: %+v", proc, policy)
			continue
		}
		perAccount := false
		for _, r := range policy.Rules {
			perAccount = perAccount || r.Kind == ratelimit.ByAccount
		}
		if !perAccount {
			t.Errorf("%s is not limited per account: %+v", proc, policy.Rules)
		}
	}
}
