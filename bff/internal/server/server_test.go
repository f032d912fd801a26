package server_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"

	"github.com/thumela/thumela/bff/internal/handlers"
	"github.com/thumela/thumela/bff/internal/server"
	"github.com/thumela/thumela/bff/internal/session"
	"github.com/thumela/thumela/bff/internal/upstream"
)

// fakeIdentity is a hand-written identity: one user, sessions in memory.
type fakeIdentity struct {
	identityv1.UnimplementedIdentityServiceServer
	mu       sync.Mutex
	sessions map[string]bool
	lastAddr string
	n        int
}

func (f *fakeIdentity) SignIn(_ context.Context, req *identityv1.SignInRequest) (*identityv1.SignInResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lastAddr = req.GetClient().GetAddress()
	if req.GetPassword() != "right-password" {
		return nil, status.Error(codes.Unauthenticated, "Invalid email or password.")
	}
	f.n++
	tok := "session-" + string(rune('a'+f.n))
	f.sessions[tok] = true
	return &identityv1.SignInResponse{
		User:    &identityv1.User{Id: "u1", Email: req.GetEmail()},
		Session: &identityv1.Session{Token: tok, ExpiresAt: timestamppb.New(time.Now().Add(30 * 24 * time.Hour))},
	}, nil
}

func (f *fakeIdentity) Refresh(_ context.Context, req *identityv1.RefreshRequest) (*identityv1.RefreshResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.sessions[req.GetSessionToken()] {
		return nil, status.Error(codes.Unauthenticated, "session expired")
	}
	return &identityv1.RefreshResponse{
		User:                 &identityv1.User{Id: "u1", Email: "thandi@example.co.za"},
		AccessToken:          "access-for-" + req.GetSessionToken(),
		AccessTokenExpiresAt: timestamppb.New(time.Now().Add(10 * time.Minute)),
	}, nil
}

func (f *fakeIdentity) SignOut(_ context.Context, req *identityv1.SignOutRequest) (*identityv1.SignOutResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.sessions, req.GetSessionToken())
	return &identityv1.SignOutResponse{}, nil
}

// fakeProfiles checks that the BFF forwards the user's access token.
type fakeProfiles struct {
	profilesv1.UnimplementedProfilesServiceServer
}

func (fakeProfiles) GetProfile(ctx context.Context, _ *profilesv1.GetProfileRequest) (*profilesv1.GetProfileResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	if got := md.Get("authorization"); len(got) != 1 || !strings.HasPrefix(got[0], "Bearer access-for-") {
		return nil, status.Error(codes.Unauthenticated, "no token")
	}
	return &profilesv1.GetProfileResponse{Profile: &profilesv1.Profile{UserId: "u1", FirstName: "Thandi", LastName: "Nkosi"}}, nil
}

// serveUpstream serves the fakes register puts on a gRPC server on a free loopback port, and
// returns a connection to it; both end with the test.
func serveUpstream(t testing.TB, register func(*grpc.Server)) *grpc.ClientConn {
	t.Helper()
	return serveUpstreamWith(t, register)
}

// serveUpstreamWith is serveUpstream with extra dial options (e.g. per-RPC credentials).
func serveUpstreamWith(t testing.TB, register func(*grpc.Server), opts ...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	register(srv)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// serveBFF serves the BFF over deps (with an empty web client) as the browser reaches it:
// HTTP/2 over TLS. The server ends with the test.
func serveBFF(t testing.TB, deps *handlers.Deps) *httptest.Server {
	t.Helper()
	return serveBFFWith(t, deps, nil)
}

// serveBFFWith is serveBFF with options changed by edit (nil: none).
func serveBFFWith(t testing.TB, deps *handlers.Deps, edit func(*server.Options)) *httptest.Server {
	t.Helper()
	web := t.TempDir()
	if err := os.WriteFile(filepath.Join(web, "index.html"), []byte("<html></html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := server.Options{
		Deps:   deps,
		System: &handlers.System{Deps: deps, Health: map[string]healthpb.HealthClient{}},
		WebDir: web,
	}
	if edit != nil {
		edit(&opts)
	}
	h, err := server.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func newBFF(t *testing.T) (*httptest.Server, *fakeIdentity) {
	srv, identity, _ := newBFFWithBus(t, nil)
	return srv, identity
}

// newBFFWithBus starts the BFF; with js it also serves live events from that JetStream.
func newBFFWithBus(t *testing.T, js jetstream.JetStream) (*httptest.Server, *fakeIdentity, *handlers.Deps) {
	t.Helper()
	identity := &fakeIdentity{sessions: map[string]bool{}}
	conn := serveUpstream(t, func(s *grpc.Server) {
		identityv1.RegisterIdentityServiceServer(s, identity)
		profilesv1.RegisterProfilesServiceServer(s, fakeProfiles{})
	})
	idClient := identityv1.NewIdentityServiceClient(conn)
	deps := &handlers.Deps{
		Logger:   quietLogger(),
		Identity: idClient,
		Profiles: profilesv1.NewProfilesServiceClient(conn),
		Tokens:   session.NewTokens(upstream.SessionRefresher{Identity: idClient}),
		Cookies:  session.Cookies{Secure: true},
		JS:       js,
	}
	return serveBFF(t, deps), identity, deps
}

// signInRequest is a browser's SignIn as raw Connect JSON, for the tests that set headers of
// their own.
func signInRequest(t *testing.T, srv *httptest.Server, password string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+bffv1connect.AuthServiceSignInProcedure,
		strings.NewReader(`{"email":"thandi@example.co.za","password":"`+password+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return req
}

func client(t testing.TB, srv *httptest.Server) (bffv1connect.AuthServiceClient, *http.Client) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	hc := srv.Client()
	hc.Jar = jar
	return bffv1connect.NewAuthServiceClient(hc, srv.URL), hc
}

func TestSignInSetsAHardenedCookieAndGetSessionUsesIt(t *testing.T) {
	t.Parallel()
	srv, _ := newBFF(t)
	auth, _ := client(t, srv)
	ctx := context.Background()

	if _, err := auth.GetSession(ctx, &bffv1.GetSessionRequest{}); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("GetSession without a cookie: %v, want Unauthenticated", err)
	}

	// Read the raw Set-Cookie with a plain HTTP call, to see every flag.
	hc := srv.Client()
	req := signInRequest(t, srv, "right-password")
	res, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	// The session's cookie (the device cookie, thumela_device, is set beside it).
	var setCookie string
	for _, v := range res.Header.Values("Set-Cookie") {
		if strings.HasPrefix(v, "thumela_session=") {
			setCookie = v
		}
	}
	for _, want := range []string{"thumela_session=", "HttpOnly", "Secure", "SameSite=Lax", "Path=/"} {
		if !strings.Contains(setCookie, want) {
			t.Errorf("Set-Cookie %q lacks %s", setCookie, want)
		}
	}

	if _, err := auth.SignIn(ctx, &bffv1.SignInRequest{Email: "thandi@example.co.za", Password: "right-password"}); err != nil {
		t.Fatal(err)
	}
	got, err := auth.GetSession(ctx, &bffv1.GetSessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetUser().GetId() != "u1" || got.GetProfile().GetFirstName() != "Thandi" {
		t.Fatalf("GetSession = %v", got)
	}
}

func TestSignOutClearsTheCookieAndAReplayIsRefused(t *testing.T) {
	t.Parallel()
	srv, _ := newBFF(t)
	auth, hc := client(t, srv)
	ctx := context.Background()
	if _, err := auth.SignIn(ctx, &bffv1.SignInRequest{Email: "thandi@example.co.za", Password: "right-password"}); err != nil {
		t.Fatal(err)
	}
	// The session's cookie; the device cookie (thumela_device) is no credential and stays.
	sessionCookie := func() *http.Cookie {
		for _, c := range hc.Jar.Cookies(mustURL(t, srv.URL)) {
			if c.Name == "thumela_session" {
				return c
			}
		}
		return nil
	}
	stolen := sessionCookie()
	if stolen == nil {
		t.Fatalf("no session cookie after sign-in: %v", hc.Jar.Cookies(mustURL(t, srv.URL)))
	}
	if _, err := auth.SignOut(ctx, &bffv1.SignOutRequest{}); err != nil {
		t.Fatal(err)
	}
	if left := sessionCookie(); left != nil {
		t.Fatalf("cookie not cleared: %v", left)
	}

	// Someone who kept the cookie replays it.
	replay, replayClient := client(t, srv)
	replayClient.Jar.SetCookies(mustURL(t, srv.URL), []*http.Cookie{stolen})
	if _, err := replay.GetSession(ctx, &bffv1.GetSessionRequest{}); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("replayed cookie: %v, want Unauthenticated", err)
	}
}

func TestWrongPasswordKeepsIdentitysAnswer(t *testing.T) {
	t.Parallel()
	srv, _ := newBFF(t)
	auth, _ := client(t, srv)
	_, err := auth.SignIn(context.Background(), &bffv1.SignInRequest{Email: "thandi@example.co.za", Password: "nope"})
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeUnauthenticated || ce.Message() != "Invalid email or password." {
		t.Fatalf("err = %v", err)
	}
}

func TestCrossSiteRequestsAreRefused(t *testing.T) {
	t.Parallel()
	srv, identity := newBFF(t)
	req := signInRequest(t, srv, "right-password")
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("status = %d, want 403", res.StatusCode)
	}
	identity.mu.Lock()
	defer identity.mu.Unlock()
	if len(identity.sessions) != 0 {
		t.Fatal("a cross-site request reached identity")
	}
}

func TestSignUpValidatesAtTheEdge(t *testing.T) {
	t.Parallel()
	srv, _ := newBFF(t)
	auth, _ := client(t, srv)
	tests := []struct {
		req  *bffv1.SignUpRequest
		want string
	}{
		{&bffv1.SignUpRequest{FirstName: "T", Email: "t@example.co.za", Password: "x", ConfirmPassword: "x"}, "Please fill in all required fields."},
		{&bffv1.SignUpRequest{FirstName: "T", LastName: "N", Email: "t@example.co.za", Password: "abcdefgh1", ConfirmPassword: "abcdefgh2"}, "Passwords don't match. Please make sure your passwords match."},
	}
	for _, tt := range tests {
		_, err := auth.SignUp(context.Background(), tt.req)
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument || ce.Message() != tt.want {
			t.Errorf("SignUp(%v) = %v, want %q", tt.req, err, tt.want)
		}
	}
}

func TestClientAddressComesFromTheConnectionNotTheHeader(t *testing.T) {
	t.Parallel()
	srv, identity := newBFF(t)
	req := signInRequest(t, srv, "nope")
	req.Header.Set("X-Forwarded-For", "1.2.3.4")
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	identity.mu.Lock()
	defer identity.mu.Unlock()
	if identity.lastAddr != "127.0.0.1" {
		t.Fatalf("client address = %q, want the TCP peer 127.0.0.1 (no trusted proxies)", identity.lastAddr)
	}
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestSmallAnswersAreNotCompressed: below compressMinBytes the gzip framing costs more CPU
// than it saves bytes, so a client that accepts gzip still gets a small answer as it is.
func TestSmallAnswersAreNotCompressed(t *testing.T) {
	t.Parallel()
	srv, _ := newBFF(t)
	req := signInRequest(t, srv, "right-password")
	req.Header.Set("Accept-Encoding", "gzip") // set by hand: Go then shows the raw encoding
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("SignIn: %d %s", res.StatusCode, body)
	}
	if enc := res.Header.Get("Content-Encoding"); enc != "" || len(body) >= 1024 {
		t.Fatalf("a %d-byte answer came with Content-Encoding %q, want none", len(body), enc)
	}
	if !strings.Contains(string(body), "Thandi") && !strings.Contains(string(body), "u1") {
		t.Fatalf("unexpected answer %s", body)
	}
}
