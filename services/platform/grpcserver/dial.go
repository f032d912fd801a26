package grpcserver

import (
	"fmt"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// Dial returns a client connection to another Thumela service at target (e.g.
// "dns:///fees:9090"), traced with OpenTelemetry so the trace continues across the call.
//
// The transport is plaintext on purpose: services talk over the cluster's internal network,
// and encryption and peer identity there are the service mesh's job (mTLS at the sidecar).
// Callers are authenticated per call by their access token, not by the transport. Pass
// grpc.WithTransportCredentials in opts to override where that does not hold.
//
// Like grpc.NewClient, Dial does not connect: the first RPC does, so a service can start
// before its dependencies.
func Dial(target string, opts ...grpc.DialOption) (*grpc.ClientConn, error) {
	all := append([]grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithStatsHandler(otelgrpc.NewClientHandler()),
	}, opts...)
	conn, err := grpc.NewClient(target, all...)
	if err != nil {
		return nil, fmt.Errorf("grpcserver: client for %s: %w", target, err)
	}
	return conn, nil
}
