package grpcserver_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/platform/lifecycle"
	"github.com/thumela/thumela/services/platform/logging"
)

// syncBuffer is a log sink safe for the server's goroutines.
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

// fakeIdentity answers GetPublicKeys, panics in GetUser, and holds SignIn until released.
type fakeIdentity struct {
	identityv1.UnimplementedIdentityServiceServer
	signInStarted chan struct{}
	release       chan struct{}
}

func newFakeIdentity() *fakeIdentity {
	return &fakeIdentity{signInStarted: make(chan struct{}, 1), release: make(chan struct{})}
}

func (f *fakeIdentity) GetPublicKeys(context.Context, *identityv1.GetPublicKeysRequest) (*identityv1.GetPublicKeysResponse, error) {
	return &identityv1.GetPublicKeysResponse{Keys: []*identityv1.PublicKey{{KeyId: "k1"}}}, nil
}

func (f *fakeIdentity) GetUser(context.Context, *identityv1.GetUserRequest) (*identityv1.GetUserResponse, error) {
	panic("card 4242424242424242 exploded")
}

func (f *fakeIdentity) SignIn(ctx context.Context, _ *identityv1.SignInRequest) (*identityv1.SignInResponse, error) {
	f.signInStarted <- struct{}{}
	select {
	case <-f.release:
		return &identityv1.SignInResponse{}, nil
	case <-ctx.Done():
		return nil, status.FromContextError(ctx.Err()).Err()
	}
}

type testServer struct {
	srv    *grpcserver.Server
	conn   *grpc.ClientConn
	logs   *syncBuffer
	stop   context.CancelFunc
	result chan error
}

// start runs a server on 127.0.0.1:0 through lifecycle.Run, as main would, and dials it.
func start(t *testing.T, impl identityv1.IdentityServiceServer, shutdownTimeout time.Duration) *testServer {
	t.Helper()
	logs := &syncBuffer{}
	logger := logging.New("test", logs, slog.LevelDebug)
	srv := grpcserver.New(logger)
	identityv1.RegisterIdentityServiceServer(srv, impl)

	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		result <- lifecycle.Run(ctx, logger, shutdownTimeout, srv.ListenerComponent(lis))
	}()

	conn, err := grpcserver.Dial(lis.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = conn.Close()
		<-finished
	})
	return &testServer{srv: srv, conn: conn, logs: logs, stop: cancel, result: result}
}

func TestServer(t *testing.T) {
	t.Parallel()
	ts := start(t, newFakeIdentity(), 5*time.Second)
	health := healthpb.NewHealthClient(ts.conn)
	identity := identityv1.NewIdentityServiceClient(ts.conn)

	tests := []struct {
		name     string
		call     func(ctx context.Context) error
		wantCode codes.Code
		wantMsg  string
		wantLog  []string
	}{
		{
			name: "health of the server",
			call: func(ctx context.Context) error {
				resp, err := health.Check(ctx, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true))
				if err == nil && resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
					return errors.New(resp.GetStatus().String())
				}
				return err
			},
			wantCode: codes.OK,
		},
		{
			name: "health of a registered service",
			call: func(ctx context.Context) error {
				resp, err := health.Check(ctx, &healthpb.HealthCheckRequest{Service: "thumela.identity.v1.IdentityService"})
				if err == nil && resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
					return errors.New(resp.GetStatus().String())
				}
				return err
			},
			wantCode: codes.OK,
		},
		{
			name: "unary call is logged without its body",
			call: func(ctx context.Context) error {
				_, err := identity.GetPublicKeys(ctx, &identityv1.GetPublicKeysRequest{})
				return err
			},
			wantCode: codes.OK,
			wantLog:  []string{`"grpc.method":"/thumela.identity.v1.IdentityService/GetPublicKeys","grpc.code":"OK"`},
		},
		{
			name: "panic becomes Internal and is logged with its stack",
			call: func(ctx context.Context) error {
				_, err := identity.GetUser(ctx, &identityv1.GetUserRequest{})
				return err
			},
			wantCode: codes.Internal,
			wantMsg:  "internal error",
			wantLog:  []string{`"msg":"panic in gRPC handler"`, `"stack":"goroutine`, `"grpc.code":"Internal"`},
		},
		{
			name: "unimplemented is logged at error",
			call: func(ctx context.Context) error {
				_, err := identity.SignOut(ctx, &identityv1.SignOutRequest{})
				return err
			},
			wantCode: codes.Unimplemented,
			wantLog:  []string{`"level":"ERROR","msg":"rpc","service":"test","grpc.method":"/thumela.identity.v1.IdentityService/SignOut"`},
		},
		{
			// Reflection answers a caller the auth interceptors admitted as a service; a server
			// built without them (this one) has none, and describes itself to nobody.
			name: "reflection is refused without the auth interceptors",
			call: func(ctx context.Context) error {
				stream, err := reflectionpb.NewServerReflectionClient(ts.conn).ServerReflectionInfo(ctx)
				if err != nil {
					return err
				}
				// A refusal can end the stream before the request is sent: Send then says
				// io.EOF, and Recv gives the refusal's status (grpc.ClientStream.SendMsg).
				if err := stream.Send(&reflectionpb.ServerReflectionRequest{
					MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{},
				}); err != nil && !errors.Is(err, io.EOF) {
					return err
				}
				resp, err := stream.Recv()
				if err != nil {
					return err
				}
				for _, s := range resp.GetListServicesResponse().GetService() {
					if s.GetName() == "thumela.identity.v1.IdentityService" {
						return stream.CloseSend()
					}
				}
				return errors.New("service not listed")
			},
			wantCode: codes.Unauthenticated,
			wantMsg:  "missing access token",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			err := tt.call(ctx)
			st := status.Convert(err)
			if st.Code() != tt.wantCode {
				t.Fatalf("code = %v (%v), want %v", st.Code(), err, tt.wantCode)
			}
			if tt.wantMsg != "" && st.Message() != tt.wantMsg {
				t.Fatalf("message = %q, want %q", st.Message(), tt.wantMsg)
			}
			logs := ts.logs.String()
			for _, want := range tt.wantLog {
				if !strings.Contains(logs, want) {
					t.Errorf("logs lack %s:\n%s", want, logs)
				}
			}
			if strings.Contains(st.Message(), "4242") {
				t.Errorf("panic value leaked to the caller: %q", st.Message())
			}
		})
	}
}

func TestGracefulStop(t *testing.T) {
	t.Parallel()
	impl := newFakeIdentity()
	ts := start(t, impl, 5*time.Second)
	identity := identityv1.NewIdentityServiceClient(ts.conn)

	inflight := make(chan error, 1)
	go func() {
		_, err := identity.SignIn(context.Background(), &identityv1.SignInRequest{}, grpc.WaitForReady(true))
		inflight <- err
	}()
	<-impl.signInStarted
	ts.stop() // as SIGTERM would

	// Health turns NOT_SERVING while the in-flight call drains.
	waitFor(t, func() bool {
		resp, err := ts.srv.Health().Check(context.Background(), &healthpb.HealthCheckRequest{})
		return err == nil && resp.GetStatus() == healthpb.HealthCheckResponse_NOT_SERVING
	})
	select {
	case err := <-ts.result:
		t.Fatalf("Run returned (%v) before the in-flight call finished", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(impl.release)
	if err := <-inflight; err != nil {
		t.Fatalf("in-flight call = %v, want success", err)
	}
	if err := <-ts.result; err != nil {
		t.Fatalf("Run = %v", err)
	}
}

func TestStopFallsBackAfterDeadline(t *testing.T) {
	t.Parallel()
	impl := newFakeIdentity()
	ts := start(t, impl, 100*time.Millisecond)
	identity := identityv1.NewIdentityServiceClient(ts.conn)

	inflight := make(chan error, 1)
	go func() {
		_, err := identity.SignIn(context.Background(), &identityv1.SignInRequest{}, grpc.WaitForReady(true))
		inflight <- err
	}()
	<-impl.signInStarted
	began := time.Now()
	ts.stop()
	if err := <-ts.result; err != nil {
		t.Fatalf("Run = %v", err)
	}
	if took := time.Since(began); took > 3*time.Second {
		t.Fatalf("stop took %v", took)
	}
	if code := status.Code(<-inflight); code != codes.Unavailable && code != codes.Canceled {
		t.Fatalf("cut call code = %v, want Unavailable", code)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
