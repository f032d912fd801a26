package main

import (
	"errors"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"

	"github.com/thumela/thumela/bff/internal/handlers"
	"github.com/thumela/thumela/bff/internal/server"
)

// upstreams are the BFF's connections to the services it calls.
type upstreams struct {
	identity, profiles, paymentMethods, fees, transfers, notifications *grpc.ClientConn
	// identityTokens is the connection the BFF's own service tokens are asked for on: a call on
	// identity's main connection needs one first, so asking for it there would wait on itself.
	identityTokens *grpc.ClientConn
}

// dialUpstreams connects to every service (lazily: gRPC connects on the first call). A
// signed-in user's calls carry the user's token (the per-RPC credentials of each call keep it).
// The calls no user's token covers carry the BFF's own service token from identity: a signed-out
// browser's calls to identity (sign-up, sign-in, codes, the session's refresh), which identity
// takes from the BFF alone, and notifications, which a visitor's support message reaches.
func dialUpstreams(cfg server.Config) (*upstreams, error) {
	u := &upstreams{}
	var err error
	dial := func(conn **grpc.ClientConn, addr string, opts ...grpc.DialOption) {
		if err == nil {
			*conn, err = grpcserver.Dial(addr, opts...)
		}
	}
	dial(&u.identityTokens, cfg.IdentityAddr)
	var asBFF grpc.DialOption
	if err == nil {
		asBFF = grpc.WithPerRPCCredentials(auth.PerRPCCredentials(auth.IdentityServiceTokens(u.identityTokens, "bff", cfg.ServiceSecret)))
	}
	dial(&u.identity, cfg.IdentityAddr, asBFF)
	dial(&u.profiles, cfg.ProfilesAddr)
	dial(&u.paymentMethods, cfg.PaymentMethodsAddr)
	dial(&u.fees, cfg.FeesAddr)
	dial(&u.transfers, cfg.TransfersAddr)
	dial(&u.notifications, cfg.NotificationsAddr, asBFF)
	if err != nil {
		_ = u.Close() //nolint:errcheck // the dial error is the one to report
		return nil, err
	}
	return u, nil
}

// Close closes the connections that were made.
func (u *upstreams) Close() error {
	var errs []error
	for _, c := range []*grpc.ClientConn{u.identity, u.identityTokens, u.profiles, u.paymentMethods, u.fees, u.transfers, u.notifications} {
		if c != nil {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

// clients fills deps's service clients.
func (u *upstreams) clients(deps *handlers.Deps) {
	deps.Identity = identityv1.NewIdentityServiceClient(u.identity)
	deps.Profiles = profilesv1.NewProfilesServiceClient(u.profiles)
	deps.PaymentMethods = paymentmethodsv1.NewPaymentMethodsServiceClient(u.paymentMethods)
	deps.Fees = feesv1.NewFeesServiceClient(u.fees)
	deps.Transfers = transfersv1.NewTransfersServiceClient(u.transfers)
	deps.Notifications = notificationsv1.NewNotificationsServiceClient(u.notifications)
}

// health are the health clients of the services the sign-in journey needs (the login page's
// connection check, handlers.System).
func (u *upstreams) health() map[string]healthpb.HealthClient {
	return map[string]healthpb.HealthClient{
		"identity": healthpb.NewHealthClient(u.identity),
		"profiles": healthpb.NewHealthClient(u.profiles),
	}
}
