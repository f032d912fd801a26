package auth_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	reflectionalpha "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/platform/lifecycle"
	"github.com/thumela/thumela/services/platform/logging"
)

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// fakeIdentity is a tiny service to guard: GetUser answers with the caller's subject from the
// context, GetPublicKeys and IssueServiceToken serve the test's signer.
type fakeIdentity struct {
	identityv1.UnimplementedIdentityServiceServer
	signer       auth.Signer
	tokensIssued atomic.Int32
}

func (f *fakeIdentity) GetUser(ctx context.Context, _ *identityv1.GetUserRequest) (*identityv1.GetUserResponse, error) {
	c, ok := auth.FromContext(ctx)
	if !ok {
		return nil, status.Error(codes.Internal, "no claims in context")
	}
	if tok, ok := auth.TokenFromContext(ctx); !ok || tok == "" {
		return nil, status.Error(codes.Internal, "no token in context")
	}
	return &identityv1.GetUserResponse{User: &identityv1.User{Id: c.Subject}}, nil
}

func (f *fakeIdentity) SignOut(_ context.Context, _ *identityv1.SignOutRequest) (*identityv1.SignOutResponse, error) {
	return &identityv1.SignOutResponse{}, nil
}

func (f *fakeIdentity) GetPublicKeys(context.Context, *identityv1.GetPublicKeysRequest) (*identityv1.GetPublicKeysResponse, error) {
	pk := f.signer.PublicKey()
	return &identityv1.GetPublicKeysResponse{Keys: []*identityv1.PublicKey{
		{KeyId: pk.ID, Ed25519PublicKey: pk.Key},
		{KeyId: "broken", Ed25519PublicKey: []byte("short")},
	}}, nil
}

func (f *fakeIdentity) IssueServiceToken(_ context.Context, req *identityv1.IssueServiceTokenRequest) (*identityv1.IssueServiceTokenResponse, error) {
	if req.GetSecret() != "s3cret" {
		return nil, status.Error(codes.Unauthenticated, "bad secret")
	}
	f.tokensIssued.Add(1)
	now := time.Now()
	tok, err := f.signer.Sign(auth.Claims{Subject: req.GetService(), Kind: auth.KindService,
		IssuedAt: now, ExpiresAt: now.Add(5 * time.Minute), Issuer: issuer})
	if err != nil {
		return nil, err
	}
	return &identityv1.IssueServiceTokenResponse{AccessToken: tok, ExpiresAt: timestamppb.New(now.Add(5 * time.Minute))}, nil
}

var policy = auth.Policy{
	identityv1.IdentityService_GetPublicKeys_FullMethodName:     auth.Public,
	identityv1.IdentityService_IssueServiceToken_FullMethodName: auth.Public,
	identityv1.IdentityService_GetUser_FullMethodName:           auth.User,
	identityv1.IdentityService_SignOut_FullMethodName:           auth.Services("transfers"),
	// SignIn is deliberately absent: it must be denied.
}

type fixture struct {
	conn     *grpc.ClientConn
	addr     string
	identity *fakeIdentity
	logs     *syncBuffer
}

// serve runs the fake identity behind the auth interceptors on 127.0.0.1:0. Its verifier gets
// its keys from the server itself through IdentityKeySource, as other services will.
func serve(t *testing.T) *fixture {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	selfConn, err := grpcserver.Dial(lis.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	v := auth.NewVerifier(auth.IdentityKeySource(selfConn), issuer)
	logs := &syncBuffer{}
	srv := grpcserver.New(logging.New("test", logs, slog.LevelDebug),
		grpcserver.WithUnaryInterceptors(auth.UnaryServerInterceptor(v, policy)),
		grpcserver.WithStreamInterceptors(auth.StreamServerInterceptor(v, policy)),
	)
	impl := &fakeIdentity{signer: newSigner(t, "k1")}
	identityv1.RegisterIdentityServiceServer(srv, impl)

	ctx, cancel := context.WithCancel(context.Background())
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		_ = lifecycle.Run(ctx, slog.New(slog.DiscardHandler), 5*time.Second, srv.ListenerComponent(lis))
	}()
	conn, err := grpcserver.Dial(lis.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = conn.Close()
		_ = selfConn.Close()
		<-finished
	})
	return &fixture{conn: conn, addr: lis.Addr().String(), identity: impl, logs: logs}
}

func TestInterceptorPolicy(t *testing.T) {
	t.Parallel()
	f := serve(t)
	client := identityv1.NewIdentityServiceClient(f.conn)
	now := time.Now()
	sign := func(c auth.Claims) string { return mustSign(t, f.identity.signer, c) }
	user := sign(auth.Claims{Subject: "user-1", Kind: auth.KindUser, IssuedAt: now, ExpiresAt: now.Add(time.Minute), Issuer: issuer})
	transfers := sign(auth.Claims{Subject: "transfers", Kind: auth.KindService, IssuedAt: now, ExpiresAt: now.Add(time.Minute), Issuer: issuer})
	fees := sign(auth.Claims{Subject: "fees", Kind: auth.KindService, IssuedAt: now, ExpiresAt: now.Add(time.Minute), Issuer: issuer})
	expired := sign(auth.Claims{Subject: "user-1", Kind: auth.KindUser, IssuedAt: now.Add(-time.Hour), ExpiresAt: now.Add(-30 * time.Minute), Issuer: issuer})
	forged := mustSign(t, newSigner(t, "k1"), auth.Claims{Subject: "user-1", Kind: auth.KindUser, IssuedAt: now, ExpiresAt: now.Add(time.Minute), Issuer: issuer})

	getUser := func(ctx context.Context) error {
		_, err := client.GetUser(ctx, &identityv1.GetUserRequest{})
		return err
	}
	signOut := func(ctx context.Context) error {
		_, err := client.SignOut(ctx, &identityv1.SignOutRequest{})
		return err
	}
	signIn := func(ctx context.Context) error { _, err := client.SignIn(ctx, &identityv1.SignInRequest{}); return err }
	keys := func(ctx context.Context) error {
		_, err := client.GetPublicKeys(ctx, &identityv1.GetPublicKeysRequest{})
		return err
	}
	health := func(ctx context.Context) error {
		_, err := healthpb.NewHealthClient(f.conn).Check(ctx, &healthpb.HealthCheckRequest{})
		return err
	}
	// reflect lists the services through reflection (v1, and v1alpha, which grpcurl falls back
	// to); the interceptor's refusal arrives with the first answer.
	reflect := func(ctx context.Context) error {
		stream, err := reflectionpb.NewServerReflectionClient(f.conn).ServerReflectionInfo(ctx)
		if err != nil {
			return err
		}
		// A refusal can end the stream before the request is sent: Send then says io.EOF, and
		// Recv gives the refusal's status (grpc.ClientStream.SendMsg).
		if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		resp, err := stream.Recv()
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(resp.GetListServicesResponse().GetService(), func(s *reflectionpb.ServiceResponse) bool {
			return s.GetName() == "thumela.identity.v1.IdentityService"
		}) {
			return errors.New("the service is not listed")
		}
		return stream.CloseSend()
	}
	// v1alpha is deprecated, but the server still registers it and grpcurl still falls back to
	// it: it must be guarded as well.
	reflectAlpha := func(ctx context.Context) error {
		stream, err := reflectionalpha.NewServerReflectionClient(f.conn).ServerReflectionInfo(ctx)
		if err != nil {
			return err
		}
		//nolint:staticcheck // SA1019: the deprecated service is the one under test
		if err := stream.Send(&reflectionalpha.ServerReflectionRequest{MessageRequest: &reflectionalpha.ServerReflectionRequest_ListServices{}}); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		_, err = stream.Recv()
		return err
	}

	tests := []struct {
		name    string
		token   string
		call    func(context.Context) error
		want    codes.Code
		wantMsg string
	}{
		{name: "public without token", call: keys, want: codes.OK},
		{name: "public ignores a bad token", token: "garbage", call: keys, want: codes.OK},
		{name: "health is public", call: health, want: codes.OK},
		{name: "reflection without token", call: reflect, want: codes.Unauthenticated, wantMsg: "missing access token"},
		{name: "reflection v1alpha without token", call: reflectAlpha, want: codes.Unauthenticated},
		{name: "reflection with a forged token", token: forged, call: reflect, want: codes.Unauthenticated},
		{name: "reflection with an expired token", token: expired, call: reflect, want: codes.Unauthenticated},
		{name: "reflection with a user token", token: user, call: reflect, want: codes.PermissionDenied},
		{name: "reflection with a service token", token: transfers, call: reflect, want: codes.OK},
		{name: "reflection with any service's token", token: fees, call: reflect, want: codes.OK},
		{name: "reflection v1alpha with a service token", token: fees, call: reflectAlpha, want: codes.OK},
		{name: "user method without token", call: getUser, want: codes.Unauthenticated, wantMsg: "missing access token"},
		{name: "user method with user token", token: user, call: getUser, want: codes.OK},
		{name: "user method with service token", token: transfers, call: getUser, want: codes.PermissionDenied},
		{name: "expired token", token: expired, call: getUser, want: codes.Unauthenticated, wantMsg: "access token expired"},
		{name: "forged token", token: forged, call: getUser, want: codes.Unauthenticated, wantMsg: "invalid access token"},
		{name: "garbage token", token: "garbage", call: getUser, want: codes.Unauthenticated},
		{name: "service method with the named service", token: transfers, call: signOut, want: codes.OK},
		{name: "service method with another service", token: fees, call: signOut, want: codes.PermissionDenied},
		{name: "service method with user token", token: user, call: signOut, want: codes.PermissionDenied},
		{name: "method missing from policy", token: user, call: signIn, want: codes.PermissionDenied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if tt.token != "" {
				ctx = auth.WithBearer(ctx, tt.token)
			}
			st := status.Convert(tt.call(ctx))
			if st.Code() != tt.want {
				t.Fatalf("code = %v (%s), want %v", st.Code(), st.Message(), tt.want)
			}
			if tt.wantMsg != "" && st.Message() != tt.wantMsg {
				t.Fatalf("message = %q, want %q", st.Message(), tt.wantMsg)
			}
			if tt.token != "" && len(tt.token) > 20 && strings.Contains(f.logs.String(), tt.token) {
				t.Fatal("a token reached the logs")
			}
		})
	}
}

func TestClientCredentials(t *testing.T) {
	t.Parallel()
	f := serve(t)
	ts := auth.IdentityServiceTokens(f.conn, "transfers", "s3cret")
	conn, err := grpcserver.Dial(f.addr, grpc.WithPerRPCCredentials(auth.PerRPCCredentials(ts)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	client := identityv1.NewIdentityServiceClient(conn)
	ctx := context.Background()

	// The service token is fetched once and reused.
	for range 3 {
		if _, err := client.SignOut(ctx, &identityv1.SignOutRequest{}); err != nil {
			t.Fatalf("SignOut with service token: %v", err)
		}
	}
	if n := f.identity.tokensIssued.Load(); n != 1 {
		t.Fatalf("%d service tokens issued, want 1", n)
	}

	// On the same connection, a forwarded user token wins over the service token.
	now := time.Now()
	user := mustSign(t, f.identity.signer, auth.Claims{Subject: "user-7", Kind: auth.KindUser,
		IssuedAt: now, ExpiresAt: now.Add(time.Minute), Issuer: issuer})
	ctx = auth.WithBearer(auth.WithBearer(ctx, "stale-token"), user) // replaced, not appended
	resp, err := client.GetUser(ctx, &identityv1.GetUserRequest{})
	if err != nil {
		t.Fatalf("GetUser with forwarded user token: %v", err)
	}
	if resp.GetUser().GetId() != "user-7" {
		t.Fatalf("subject = %q", resp.GetUser().GetId())
	}

	// A token source that fails makes the call Unavailable, so callers retry.
	failing := auth.PerRPCCredentials(auth.TokenSourceFunc(func(context.Context) (string, error) {
		return "", errors.New("identity down")
	}))
	_, err = client.SignOut(context.Background(), &identityv1.SignOutRequest{}, grpc.PerRPCCredentials(failing))
	if status.Code(err) != codes.Unavailable {
		t.Fatalf("failing token source: %v, want Unavailable", err)
	}
}

// fakeStream is enough of a grpc.ServerStream for the stream interceptor.
type fakeStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s fakeStream) Context() context.Context { return s.ctx }

func TestStreamInterceptor(t *testing.T) {
	t.Parallel()
	s := newSigner(t, "k1")
	v := verifierAt(t0.Add(time.Minute), s.PublicKey())
	const method = "/thumela.transfers.v1.TransferService/WatchTransfers"
	intercept := auth.StreamServerInterceptor(v, auth.Policy{method: auth.AnyOf(auth.User, auth.Services("bff"))})
	tests := []struct {
		name    string
		token   string
		method  string
		want    codes.Code
		wantSub string
	}{
		{name: "user admitted", token: mustSign(t, s, userClaims()), method: method, want: codes.OK, wantSub: "0b9f8c1e-user"},
		{name: "listed service admitted", token: mustSign(t, s, auth.Claims{Subject: "bff", Kind: auth.KindService,
			IssuedAt: t0, ExpiresAt: t0.Add(5 * time.Minute), Issuer: issuer}), method: method, want: codes.OK, wantSub: "bff"},
		{name: "no token", method: method, want: codes.Unauthenticated},
		{name: "reflection without token", method: "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", want: codes.Unauthenticated},
		{name: "reflection with a user token", token: mustSign(t, s, userClaims()), method: "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", want: codes.PermissionDenied},
		{name: "reflection with any service token", token: mustSign(t, s, auth.Claims{Subject: "oncall", Kind: auth.KindService,
			IssuedAt: t0, ExpiresAt: t0.Add(5 * time.Minute), Issuer: issuer}), method: "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", want: codes.OK, wantSub: "oncall"},
		{name: "unlisted stream denied", token: mustSign(t, s, userClaims()), method: "/x.v1.X/Other", want: codes.PermissionDenied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			md := metadata.MD{}
			if tt.token != "" {
				md.Set("authorization", "Bearer "+tt.token)
			}
			ss := fakeStream{ctx: metadata.NewIncomingContext(context.Background(), md)}
			var gotSub string
			err := intercept(nil, ss, &grpc.StreamServerInfo{FullMethod: tt.method}, func(_ any, stream grpc.ServerStream) error {
				c, _ := auth.FromContext(stream.Context())
				gotSub = c.Subject
				return nil
			})
			if status.Code(err) != tt.want || gotSub != tt.wantSub {
				t.Fatalf("got %v, sub %q; want %v, sub %q", err, gotSub, tt.want, tt.wantSub)
			}
		})
	}
}

func TestPolicyCheck(t *testing.T) {
	t.Parallel()
	err := policy.Check(&identityv1.IdentityService_ServiceDesc)
	if !errors.Is(err, auth.ErrPolicyIncomplete) || !strings.Contains(err.Error(), "IdentityService/SignIn") ||
		strings.Contains(err.Error(), "GetUser") {
		t.Fatalf("Check = %v", err)
	}
	full := auth.Policy{}
	for _, m := range identityv1.IdentityService_ServiceDesc.Methods {
		full["/thumela.identity.v1.IdentityService/"+m.MethodName] = auth.User
	}
	if err := full.Check(&identityv1.IdentityService_ServiceDesc); err != nil {
		t.Fatalf("complete policy: %v", err)
	}
}
