package service_test

import (
	"context"
	"net/http"
	"os"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/platform/service"
	"github.com/thumela/thumela/services/platform/service/servicetest"
	"github.com/thumela/thumela/services/platform/telemetry/telemetrytest"
)

// A one-method gRPC API, written by hand so that the platform's tests need no generated code.
const pingMethod = "/thumela.metricstest.v1.PingService/Ping"

type pinger interface {
	Ping(context.Context, *emptypb.Empty) (*emptypb.Empty, error)
}

type pingServer struct{}

func (pingServer) Ping(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

var pingDesc = grpc.ServiceDesc{
	ServiceName: "thumela.metricstest.v1.PingService",
	HandlerType: (*pinger)(nil),
	Methods: []grpc.MethodDesc{{
		MethodName: "Ping",
		Handler: func(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
			in := new(emptypb.Empty)
			if err := dec(in); err != nil {
				return nil, err
			}
			handler := func(ctx context.Context, req any) (any, error) {
				return srv.(pinger).Ping(ctx, req.(*emptypb.Empty))
			}
			if interceptor == nil {
				return handler(ctx, in)
			}
			return interceptor(ctx, in, &grpc.UnaryServerInfo{Server: srv, FullMethod: pingMethod}, handler)
		},
	}},
}

// With <SERVICE>_METRICS_ADDR set, a service serves Prometheus metrics on that listener: RED
// per RPC (otelgrpc's server and client call durations, by method and status code) and the Go
// and process collectors. The listener goes away with the service.
func TestServesMetrics(t *testing.T) {
	// Not parallel: servicetest sets the environment and signals the process.
	metricsAddr := servicetest.FreeAddr(t)
	svc := servicetest.Start(t, "metricstest", func(keys auth.KeySource) service.Spec {
		var cfg testConfig
		return service.Spec{
			Name:   "metricstest",
			Config: &cfg,
			Setup: func(_ context.Context, rt *service.Runtime) error {
				return rt.Serve(auth.Policy{pingMethod: auth.User}, keys, func(s grpc.ServiceRegistrar) {
					s.RegisterService(&pingDesc, pingServer{})
				})
			},
		}
	}, map[string]string{"METRICSTEST_METRICS_ADDR": metricsAddr})

	// Through the platform's own client, so the client side is measured too.
	conn, err := grpcserver.Dial(os.Getenv("METRICSTEST_GRPC_ADDR"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Invoke(t.Context(), pingMethod, &emptypb.Empty{}, &emptypb.Empty{}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("ping without a token: %v, want Unauthenticated", err)
	}
	for range 2 {
		if err := conn.Invoke(svc.UserContext(t, "0190f6a4-3c2e-7d41-9b7e-2f4f1f6c8a01"), pingMethod, &emptypb.Empty{}, &emptypb.Empty{}); err != nil {
			t.Fatalf("ping: %v", err)
		}
	}

	metrics := telemetrytest.Scrape(t, "http://"+metricsAddr+"/metrics")
	method := "thumela.metricstest.v1.PingService/Ping"
	for _, want := range []struct {
		name   string
		labels map[string]string
		min    float64
	}{
		{"rpc_server_call_duration_seconds_count", map[string]string{"rpc_method": method, "rpc_response_status_code": "OK"}, 2},
		{"rpc_server_call_duration_seconds_count", map[string]string{"rpc_method": method, "rpc_response_status_code": "UNAUTHENTICATED"}, 1},
		{"rpc_server_call_duration_seconds_bucket", map[string]string{"rpc_method": method, "rpc_response_status_code": "OK", "le": "+Inf"}, 2},
		{"rpc_server_call_duration_seconds_sum", map[string]string{"rpc_method": method}, 0},
		{"rpc_client_call_duration_seconds_count", map[string]string{"rpc_method": method, "rpc_response_status_code": "OK"}, 2},
		// The outbox relay every service runs (services/platform/outbox).
		{"thumela_outbox_lag_seconds", map[string]string{"schema": "metricstest"}, 0},
		{"thumela_outbox_pending", map[string]string{"schema": "metricstest"}, 0},
		{"go_goroutines", nil, 1},
		{"process_cpu_seconds_total", nil, 0},
		{"process_resident_memory_bytes", nil, 1},
	} {
		got, ok := metrics.Find(want.name, want.labels)
		if !ok {
			t.Errorf("no %s%v in /metrics", want.name, want.labels)
			continue
		}
		if got < want.min {
			t.Errorf("%s%v = %v, want at least %v", want.name, want.labels, got, want.min)
		}
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", metrics.Text)
	}

	// Only /metrics and the profiler are served there.
	for path, want := range map[string]int{
		"/":                              http.StatusNotFound,
		"/debug/pprof/":                  http.StatusOK,
		"/debug/pprof/heap?debug=1":      http.StatusOK,
		"/debug/pprof/profile?seconds=1": http.StatusOK,
	} {
		res, err := http.Get("http://" + metricsAddr + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("GET %s on the metrics listener: %d, want %d", path, res.StatusCode, want)
		}
	}

	svc.StopWithSIGTERM(t)
	if res, err := http.Get("http://" + metricsAddr + "/metrics"); err == nil {
		res.Body.Close()
		t.Errorf("the metrics listener still answers after the service stopped")
	}
}
