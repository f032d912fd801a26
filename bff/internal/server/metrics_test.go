package server_test

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/services/platform/telemetry"
	"github.com/thumela/thumela/services/platform/telemetry/telemetrytest"
)

// The BFF's Connect API is measured per procedure and status code (otelconnect), and the
// metrics are served on their own listener (BFF_METRICS_ADDR), not on the public port.
func TestRPCMetricsOnTheirOwnListener(t *testing.T) {
	// Not parallel: Setup replaces the process's meter provider. Parallel tests start after
	// this one ends, so their calls do not count here.
	shutdown, err := telemetry.Setup(context.Background(), "bff", "test", telemetry.WithSpanExporter(tracetest.NewInMemoryExporter()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = shutdown(context.Background()) })

	srv, _ := newBFF(t) // after Setup: its interceptor takes the meter provider when built
	auth, _ := client(t, srv)
	ctx := context.Background()
	if _, err := auth.GetSession(ctx, &bffv1.GetSessionRequest{}); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Fatalf("GetSession without a cookie: %v, want Unauthenticated", err)
	}
	if _, err := auth.SignIn(ctx, &bffv1.SignInRequest{Email: "thandi@example.co.za", Password: "right-password"}); err != nil {
		t.Fatal(err)
	}

	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	metrics := telemetry.MetricsServer(addr, quietLogger())
	done := make(chan error, 1)
	go func() { done <- metrics.Start(context.Background()) }()
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = metrics.Stop(stopCtx)
		if err := <-done; err != nil {
			t.Errorf("metrics listener: %v", err)
		}
	})
	waitListening(t, addr)

	got := telemetrytest.Scrape(t, "http://"+addr+"/metrics")
	for _, want := range []map[string]string{
		{"rpc_method": "thumela.bff.v1.AuthService/SignIn", "rpc_response_status_code": "OK"},
		{"rpc_method": "thumela.bff.v1.AuthService/GetSession", "rpc_response_status_code": "UNAUTHENTICATED"},
	} {
		if n, ok := got.Find("rpc_server_call_duration_seconds_count", want); !ok || n < 1 {
			t.Errorf("rpc_server_call_duration_seconds_count%v = %v (found %v)", want, n, ok)
		}
	}
	if _, ok := got.Find("go_goroutines", nil); !ok {
		t.Errorf("no go_goroutines: the Go collector is missing")
	}
	if t.Failed() {
		t.Logf("/metrics:\n%s", got.Text)
	}

	// The public port does not serve them: /metrics there is the web client's SPA fallback.
	res, err := srv.Client().Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if strings.Contains(string(body), "rpc_server_call_duration") || strings.Contains(string(body), "go_goroutines") {
		t.Errorf("the public BFF port serves the metrics")
	}
}

func waitListening(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never listened: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
