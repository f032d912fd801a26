// Package grpcserver builds the gRPC server every Thumela service exposes, with the same
// plumbing everywhere: OpenTelemetry traces and metrics per RPC, one log line per RPC, panic
// recovery, the standard health service (public, for grpc-health-probe) and reflection (for
// grpcurl with a service token: package auth admits any valid one), and a graceful stop that
// fits the lifecycle package.
package grpcserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/lifecycle"
	"github.com/thumela/thumela/services/platform/listen"
)

// Option adjusts New.
type Option func(*options)

type options struct {
	unary      []grpc.UnaryServerInterceptor
	stream     []grpc.StreamServerInterceptor
	serverOpts []grpc.ServerOption
}

// WithUnaryInterceptors adds interceptors (auth, typically) that run after logging and panic
// recovery, in the order given, so their rejections are logged and their panics recovered.
func WithUnaryInterceptors(i ...grpc.UnaryServerInterceptor) Option {
	return func(o *options) { o.unary = append(o.unary, i...) }
}

// WithStreamInterceptors is WithUnaryInterceptors for streaming RPCs.
func WithStreamInterceptors(i ...grpc.StreamServerInterceptor) Option {
	return func(o *options) { o.stream = append(o.stream, i...) }
}

// WithServerOptions passes further options to grpc.NewServer (message sizes, keepalive).
func WithServerOptions(opts ...grpc.ServerOption) Option {
	return func(o *options) { o.serverOpts = append(o.serverOpts, opts...) }
}

// Server is a *grpc.Server with Thumela's plumbing. It implements grpc.ServiceRegistrar, so
// generated RegisterXxxServer functions accept it directly.
type Server struct {
	grpc   *grpc.Server
	health *health.Server
	logger *slog.Logger

	mu       sync.Mutex
	services []string
}

// Connection ageing (see New). grpc-go adds ±10 % jitter to the age, so the clients of one
// server do not all reconnect at once.
const (
	MaxConnectionAge      = 5 * time.Minute
	MaxConnectionAgeGrace = 30 * time.Second
)

// New builds a server; register services, then run Component.
func New(logger *slog.Logger, opts ...Option) *Server {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	unary := append([]grpc.UnaryServerInterceptor{
		unaryLogging(logger), unaryRecovery(logger),
	}, o.unary...)
	stream := append([]grpc.StreamServerInterceptor{
		streamLogging(logger), streamRecovery(logger),
	}, o.stream...)
	// After the auth interceptors: a request with a NUL in any string is refused (nul.go)
	// before a handler can take it to PostgreSQL, which cannot store it.
	unary = append(unary, unaryRefuseNUL)
	// Last, so that it sees what the auth interceptors admitted: reflection is served only to a
	// caller one of them verified as a service, and a server built without them refuses it.
	stream = append(stream, streamRefuseNUL, streamReflectionGuard)
	serverOpts := append([]grpc.ServerOption{
		// A stats handler rather than an interceptor: it sees every RPC, including rejected
		// ones, and puts the span in the context before the interceptors log.
		grpc.StatsHandler(otelgrpc.NewServerHandler()),
		grpc.ChainUnaryInterceptor(unary...),
		grpc.ChainStreamInterceptor(stream...),
		// Clients balance round-robin over the addresses DNS gave them when they connected
		// (grpcserver.Dial); they ask again only when a connection ends. Ending each connection
		// after a while (with a GOAWAY, in-flight calls finish) makes them re-resolve, so a pod the
		// autoscaler adds gets its share of traffic within minutes.
		grpc.KeepaliveParams(keepalive.ServerParameters{
			MaxConnectionAge:      MaxConnectionAge,
			MaxConnectionAgeGrace: MaxConnectionAgeGrace,
		}),
	}, o.serverOpts...)

	s := &Server{
		grpc:   grpc.NewServer(serverOpts...),
		health: health.NewServer(),
		logger: logger,
	}
	// Not serving until Component starts: a load balancer must not send traffic earlier.
	s.health.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)
	healthpb.RegisterHealthServer(s.grpc, s.health)
	reflection.Register(s.grpc)
	return s
}

// streamReflectionGuard refuses the reflection services to a caller that no auth interceptor
// admitted as a service (auth.AnyService is their rule). Without it, a server assembled without
// the auth interceptors (a process with no API of its own) would describe itself to anyone.
func streamReflectionGuard(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if auth.IsReflection(info.FullMethod) {
		if c, ok := auth.FromContext(ss.Context()); !ok || c.Kind != auth.KindService {
			return status.Error(codes.Unauthenticated, "missing access token")
		}
	}
	return handler(srv, ss)
}

// Register adds a service implementation; call it before Component's Start.
func (s *Server) Register(desc *grpc.ServiceDesc, impl any) {
	s.RegisterService(desc, impl)
}

// RegisterService implements grpc.ServiceRegistrar. The service's health status starts as
// NOT_SERVING and turns SERVING when the server starts.
func (s *Server) RegisterService(desc *grpc.ServiceDesc, impl any) {
	s.grpc.RegisterService(desc, impl)
	s.mu.Lock()
	s.services = append(s.services, desc.ServiceName)
	s.mu.Unlock()
	s.health.SetServingStatus(desc.ServiceName, healthpb.HealthCheckResponse_NOT_SERVING)
}

// Health returns the health service, for a service to report a lost dependency
// (SetServingStatus) between start and stop.
func (s *Server) Health() *health.Server { return s.health }

// GRPC returns the underlying server, for what this package does not wrap.
func (s *Server) GRPC() *grpc.Server { return s.grpc }

// Component serves on addr (e.g. ":9090"). The listener opens when the component starts; a
// port already in use fails the process's start.
func (s *Server) Component(addr string) lifecycle.Component {
	return lifecycle.Component{
		Name: "grpc server",
		Start: func(ctx context.Context) error {
			lis, err := listen.TCP(addr)
			if err != nil {
				return fmt.Errorf("grpcserver: listen on %s: %w", addr, err)
			}
			return s.serve(ctx, lis)
		},
		Stop: s.stop,
	}
}

// ListenerComponent serves on an open listener, for tests that listen on 127.0.0.1:0 and need
// the address before starting.
func (s *Server) ListenerComponent(lis net.Listener) lifecycle.Component {
	return lifecycle.Component{
		Name:  "grpc server",
		Start: func(ctx context.Context) error { return s.serve(ctx, lis) },
		Stop:  s.stop,
	}
}

func (s *Server) serve(ctx context.Context, lis net.Listener) error {
	s.mu.Lock()
	services := append([]string{""}, s.services...)
	s.mu.Unlock()
	for _, name := range services {
		s.health.SetServingStatus(name, healthpb.HealthCheckResponse_SERVING)
	}
	s.logger.InfoContext(ctx, "gRPC server listening", "addr", lis.Addr().String())
	err := s.grpc.Serve(lis)
	if errors.Is(err, grpc.ErrServerStopped) {
		return nil // stopped before it started serving: still a clean stop
	}
	return err
}

// stop turns health to NOT_SERVING, so probes and balancers stop routing here, then lets
// in-flight RPCs finish; at ctx's deadline it cuts the remaining ones.
func (s *Server) stop(ctx context.Context) error {
	s.health.Shutdown()
	done := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.logger.WarnContext(ctx, "gRPC graceful stop timed out, closing remaining connections")
		s.grpc.Stop()
		<-done
		return nil
	}
}
