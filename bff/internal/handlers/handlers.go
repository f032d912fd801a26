// Package handlers implements the web-facing Connect API (thumela.bff.v1) on top of the
// services' gRPC APIs. Handlers hold no business rules: they check the session, validate what
// only the edge can (the confirm-password field), forward the user's access token, and map
// answers and errors for the browser.
package handlers

import (
	"context"
	"log/slog"

	"connectrpc.com/connect"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/grpc"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/auth"

	"github.com/thumela/thumela/bff/internal/historycache"
	"github.com/thumela/thumela/bff/internal/httpx"
	"github.com/thumela/thumela/bff/internal/rpcerr"
	"github.com/thumela/thumela/bff/internal/session"
)

// Deps is what the handlers share.
type Deps struct {
	Logger         *slog.Logger
	Identity       identityv1.IdentityServiceClient
	Profiles       profilesv1.ProfilesServiceClient
	PaymentMethods paymentmethodsv1.PaymentMethodsServiceClient
	Fees           feesv1.FeesServiceClient
	Transfers      transfersv1.TransfersServiceClient
	// Notifications is called with the user's token, or, for a signed-out visitor's support
	// message, with the BFF's own service token (the connection's per-RPC credentials).
	Notifications notificationsv1.NotificationsServiceClient
	Tokens        *session.Tokens
	Cookies       session.Cookies
	ClientAddr    httpx.ClientAddress
	// JS publishes the analytics events.
	JS jetstream.JetStream
	// Live fans the users' events out to their live streams (nil: live events unavailable).
	Live *LiveHub
	// History keeps the pages of history just served (nil: none kept); Live's events and the
	// changes made through this process drop them (historycache).
	History *historycache.Cache
}

// callInfo is the Connect call's HTTP view (headers in and out, peer).
func callInfo(ctx context.Context) connect.CallInfo {
	info, ok := connect.CallInfoForHandlerContext(ctx)
	if !ok {
		panic("handlers: no Connect call info in the context")
	}
	return info
}

// client describes the browser for identity's throttles and audit trail.
func (d *Deps) client(ctx context.Context) *identityv1.Client {
	info := callInfo(ctx)
	return &identityv1.Client{
		Address:   d.ClientAddr.Of(info.Peer().Addr, info.RequestHeader()),
		UserAgent: info.RequestHeader().Get("User-Agent"),
	}
}

// sessionToken reads the session cookie of the call.
func (d *Deps) sessionToken(ctx context.Context) string {
	return d.Cookies.Token(callInfo(ctx).RequestHeader())
}

// authed resolves the call's session into the user's grant and a context that carries the
// user's access token to the services. No session answers Unauthenticated, and a session
// cookie (or hint) that no longer opens one is cleared with it, so that the web client stops
// asking on every page load.
func (d *Deps) authed(ctx context.Context) (context.Context, session.Grant, error) {
	info := callInfo(ctx)
	g, err := d.Tokens.Grant(ctx, d.Cookies.Token(info.RequestHeader()))
	if err != nil {
		if err == session.ErrNoSession {
			d.Cookies.ClearStale(info.ResponseHeader(), info.RequestHeader())
			return nil, session.Grant{}, rpcerr.Unauthenticated()
		}
		return nil, session.Grant{}, rpcerr.FromService(ctx, d.Logger, err)
	}
	return withBearer(ctx, g.AccessToken), g, nil
}

// withBearer puts the user's access token into the outgoing gRPC metadata.
func withBearer(ctx context.Context, accessToken string) context.Context {
	return auth.WithBearer(ctx, accessToken)
}

// forward is the whole of a handler that only translates: it calls the service with the
// session's access token (Unauthenticated without a session) and maps the service's error once.
// call is the gRPC client's method value, so the request and answer types are inferred. The
// token stays inside: a handler that makes a second call authenticates with authed instead.
func forward[Req, Res any](ctx context.Context, d *Deps, call func(context.Context, Req, ...grpc.CallOption) (Res, error), req Req) (Res, error) {
	return forwardThen(ctx, d, call, req, nil)
}

// forwardChange is forward for a call that may change the sender's transfers: whatever its
// outcome (a timeout may still have committed), their pages of history go from the cache.
func forwardChange[Req, Res any](ctx context.Context, d *Deps, call func(context.Context, Req, ...grpc.CallOption) (Res, error), req Req) (Res, error) {
	return forwardThen(ctx, d, call, req, func(g session.Grant) { d.History.Changed(g.UserID) })
}

// forwardThen is forward, with then (when set) run once the call returns.
func forwardThen[Req, Res any](ctx context.Context, d *Deps, call func(context.Context, Req, ...grpc.CallOption) (Res, error), req Req,
	then func(session.Grant)) (Res, error) {
	var zero Res
	ctx, g, err := d.authed(ctx)
	if err != nil {
		return zero, err
	}
	res, err := call(ctx, req)
	if then != nil {
		then(g)
	}
	if err != nil {
		return zero, rpcerr.FromService(ctx, d.Logger, err)
	}
	return res, nil
}
