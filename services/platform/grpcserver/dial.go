package grpcserver

import (
	"errors"
	"fmt"
	"net"
	"strings"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"
)

// roundRobin spreads a client's calls over every address its target resolves to, one call at a
// time. gRPC's default (pick_first) would send them all down one connection to one replica,
// so a second replica would take no traffic from this client and a dead one would stall it
// until the connection is re-established.
const roundRobin = `{"loadBalancingConfig":[{"round_robin":{}}]}`

// listScheme names the resolver of a comma-separated address list (see Dial). Each Dial of a
// list gets its own resolver instance, registered on that connection only.
const listScheme = "thumela-list"

// ErrBadTarget is returned for a target Dial cannot use.
var ErrBadTarget = errors.New("grpcserver: bad target")

// Dial returns a client connection to another Thumela service, traced with OpenTelemetry so
// the trace continues across the call. The target takes one of these forms:
//
//   - "dns:///transfers-headless:9090": every address the name resolves to. In Kubernetes the
//     name is a headless Service (clusterIP: None), whose DNS answer lists every ready pod, so
//     the calls are spread over all replicas; a ClusterIP Service would hide them behind one
//     virtual address, and one long-lived HTTP/2 connection would pin every call to one pod.
//   - "host:port": one address (gRPC's default resolver, DNS), e.g. "127.0.0.1:9090".
//   - "host1:port1,host2:port2": a fixed list of replicas, as the local dev stack runs them
//     (e.g. TRANSFERS_ADDR=127.0.0.1:41001,127.0.0.1:41002). Empty entries are refused.
//   - any other scheme gRPC knows ("passthrough:///…", "unix:///…").
//
// Calls are balanced round-robin over the connected addresses, and a replica that goes away
// is skipped until it is back; with one address this is the same as a plain connection. A
// call in flight on a replica that dies fails (Unavailable): the caller retries it, which is
// safe because every mutating call carries an idempotency key.
//
// The transport is plaintext on purpose: services talk over the cluster's internal network,
// and encryption and peer identity there are the service mesh's job (mTLS at the sidecar).
// Callers are authenticated per call by their access token, not by the transport. Pass
// grpc.WithTransportCredentials in opts to override where that does not hold.
//
// Like grpc.NewClient, Dial does not connect: the first RPC does, so a service can start
// before its dependencies.
func Dial(target string, opts ...grpc.DialOption) (*grpc.ClientConn, error) {
	all := []grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithStatsHandler(otelgrpc.NewClientHandler()),
		grpc.WithDefaultServiceConfig(roundRobin),
	}
	dialTarget := target
	if strings.Contains(target, ",") {
		r, err := listResolver(target)
		if err != nil {
			return nil, err
		}
		all = append(all, grpc.WithResolvers(r))
		dialTarget = listScheme + ":///" + target
	}
	conn, err := grpc.NewClient(dialTarget, append(all, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("grpcserver: client for %s: %w", target, err)
	}
	return conn, nil
}

// listResolver resolves a comma-separated list of host:port to exactly those addresses.
func listResolver(target string) (resolver.Builder, error) {
	if strings.Contains(target, "://") {
		return nil, fmt.Errorf("%w %q: a list is host:port,host:port, without a scheme", ErrBadTarget, target)
	}
	var addrs []resolver.Address
	for part := range strings.SplitSeq(target, ",") {
		part = strings.TrimSpace(part)
		if _, _, err := net.SplitHostPort(part); err != nil {
			return nil, fmt.Errorf("%w %q: entry %q is not host:port", ErrBadTarget, target, part)
		}
		addrs = append(addrs, resolver.Address{Addr: part})
	}
	r := manual.NewBuilderWithScheme(listScheme)
	r.InitialState(resolver.State{Endpoints: endpoints(addrs)})
	return r, nil
}

// endpoints makes one endpoint per address: round_robin balances over endpoints.
func endpoints(addrs []resolver.Address) []resolver.Endpoint {
	out := make([]resolver.Endpoint, len(addrs))
	for i, a := range addrs {
		out[i] = resolver.Endpoint{Addresses: []resolver.Address{a}}
	}
	return out
}
