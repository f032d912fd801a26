// Package server assembles the BFF's HTTP handler: the Connect API behind the cross-site guard,
// health, the dev tools (proxied) in development, and the web client with its SPA fallback.
package server

import (
	"context"
	"fmt"
	"net/http"
	"runtime/debug"
	"slices"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/otelconnect"

	"github.com/thumela/thumela/bff/internal/codec"
	"github.com/thumela/thumela/bff/internal/handlers"
	"github.com/thumela/thumela/bff/internal/httpx"
	"github.com/thumela/thumela/bff/internal/ratelimit"
	"github.com/thumela/thumela/bff/internal/rpcerr"
	"github.com/thumela/thumela/bff/internal/statements"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
)

// Options are the parts the handler is built from.
type Options struct {
	Deps           *handlers.Deps
	System         *handlers.System
	WebDir         string
	// Origins are the browser origins that may call the API (the cross-site guard).
	Origins httpx.OriginPolicy
	// DevTools serves every /dev/ path when set (development mode only: the proxy to the dev
	// stack's dev tools). Unset, /dev/ paths are the web client's (its 404 page).
	DevTools http.Handler
	// RateLimits tunes the per-address and per-account limits (zero: the defaults), shared
	// across replicas through Deps.JS's KV bucket.
	RateLimits ratelimit.Config
	// BodyTimeout is how long a request's body may take to arrive (zero: requestBodyTimeout,
	// limits.go); the tests shorten it.
	BodyTimeout time.Duration
}

// compressMinBytes is the smallest Connect message the BFF compresses. Below it an answer fits
// the first flight of a new TCP connection's window (10 segments, about 14 kB) either way, so
// gzip saves bytes but no round trip: the history page (5 transfers, about 4 kB of JSON) spent
// 18 % of the BFF's CPU samples in gzip at 1 KiB (docs/benchmarks.md).
const compressMinBytes = 8 << 10

// notALiveStream leaves WatchEvents out of otelconnect's spans and RPC metrics. A tab's stream
// lasts as long as the tab (hours), so its span would be exported only at the end and its
// duration histogram says nothing; each delivery has a span of its own that continues the
// event's trace (handlers.deliverySpan), and thumela.bff.stream.* count the streams. Held for
// every open stream, the span and otelconnect's state cost about 1.5 KiB each: 15 MiB of the
// BFF's memory at 10,000 streams (docs/benchmarks.md).
func notALiveStream(_ context.Context, spec connect.Spec) bool {
	return spec.Procedure != bffv1connect.EventsServiceWatchEventsProcedure
}

// New returns the BFF's root handler.
func New(o Options) (http.Handler, error) {
	otel, err := otelconnect.NewInterceptor(otelconnect.WithTrustRemote(), otelconnect.WithFilter(notALiveStream))
	if err != nil {
		return nil, err
	}
	limiter, err := ratelimit.New(ratelimit.Options{
		Config: o.RateLimits, JS: o.Deps.JS, ClientAddr: o.Deps.ClientAddr, Logger: o.Deps.Logger,
		SessionUser: func(ctx context.Context, h http.Header) string {
			if o.Deps.Tokens == nil {
				return ""
			}
			g, err := o.Deps.Tokens.Grant(ctx, o.Deps.Cookies.Token(h))
			if err != nil {
				return ""
			}
			return g.UserID
		},
	})
	if err != nil {
		return nil, err
	}
	opts := []connect.HandlerOption{
		// A body that is not the call's request is answered in one plain sentence, not in
		// connect's words, which name the BFF's Go types and libraries. First: its interceptor
		// refuses such a request before the others see it.
		codec.HandlerOption(),
		// Rate limits after tracing, so a refusal is traced and counted like any answer.
		connect.WithInterceptors(otel, limiter.Interceptor()),
		// A handler that panics answers Internal, logged with its stack in the request's trace,
		// instead of a reset HTTP/2 stream the browser reads as a network failure.
		connect.WithRecover(func(ctx context.Context, spec connect.Spec, _ http.Header, p any) error {
			return rpcerr.Internal(ctx, o.Deps.Logger, fmt.Errorf("handler panicked in %s: %v\n%s", spec.Procedure, p, debug.Stack()))
		}),
		// Compression cost a third of the BFF's CPU on the history page while saving little:
		// under compressMinBytes (every page of the app, most answers, every live event) the
		// answer goes as it is; above it, gzip at its fastest level keeps most of the ratio
		// (JSON compresses well) for a fraction of the default level's CPU. gzip is registered
		// with the read limits (readLimit, limits.go), which bound what a request inflates to.
		connect.WithCompressMinBytes(compressMinBytes),
	}
	// A browser request is small; anything bigger is a mistake or an attack, refused in one
	// sentence (limits.go): readLimit bounds a message once inflated, limitBody the body.
	analyticsOpts := slices.Concat(opts, readLimit(handlers.MaxTrackRequestBytes))
	opts = slices.Concat(opts, readLimit(maxRequestBytes))
	mux := http.NewServeMux()
	// Each service's handler is mounted at its own path ("/thumela.bff.v1.AuthService/"),
	// behind the cross-site guard; no answer may be cached (httpx.NoStore).
	api := func(path string, h http.Handler) {
		mux.Handle(path, httpx.NoStore(httpx.SameOrigin(o.Origins, limitBody(maxRequestBytes, h))))
	}
	api(bffv1connect.NewAuthServiceHandler(&handlers.Auth{Deps: o.Deps}, opts...))
	api(bffv1connect.NewAccountServiceHandler(&handlers.Account{Deps: o.Deps}, opts...))
	api(bffv1connect.NewSystemServiceHandler(o.System, opts...))
	api(bffv1connect.NewPaymentMethodsServiceHandler(&handlers.PaymentMethods{Deps: o.Deps}, opts...))
	api(bffv1connect.NewTransfersServiceHandler(&handlers.Transfers{Deps: o.Deps}, opts...))
	api(bffv1connect.NewEventsServiceHandler(&handlers.Events{Deps: o.Deps}, opts...))
	analyticsPath, analytics := bffv1connect.NewAnalyticsServiceHandler(&handlers.Analytics{Deps: o.Deps}, analyticsOpts...)
	api(analyticsPath, limitBody(handlers.MaxTrackRequestBytes, analytics))
	api(bffv1connect.NewSupportServiceHandler(&handlers.Support{Deps: o.Deps}, opts...))
	api(bffv1connect.NewSecurityServiceHandler(&handlers.Security{Deps: o.Deps}, opts...))
	api(bffv1connect.NewRecipientsServiceHandler(&handlers.Recipients{Deps: o.Deps}, opts...))
	api(bffv1connect.NewSchedulesServiceHandler(&handlers.Schedules{Deps: o.Deps}, opts...))
	api(bffv1connect.NewCreditServiceHandler(&handlers.Credit{Deps: o.Deps}, opts...))

	// Statements and proofs of payment are files (a link the browser downloads with the
	// session cookie), not RPCs: the same guard, no-store and rate limits as the API.
	files := &statements.Handler{
		Logger: o.Deps.Logger, Tokens: o.Deps.Tokens, Cookies: o.Deps.Cookies,
		Transfers: o.Deps.Transfers, Profiles: o.Deps.Profiles, Fees: o.Deps.Fees,
	}
	api(ratelimit.StatementEndpoint, limiter.HTTP(ratelimit.StatementEndpoint, http.HandlerFunc(files.Statement)))
	api(ratelimit.ProofOfPaymentEndpoint, limiter.HTTP(ratelimit.ProofOfPaymentEndpoint, http.HandlerFunc(files.ProofOfPayment)))

	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("ok\n"))
	})
	if o.DevTools != nil {
		// Behind the cross-site guard too: the failure switches are POSTs.
		mux.Handle("/dev/", httpx.NoStore(httpx.SameOrigin(o.Origins, o.DevTools)))
	}
	// A page for a session that predates the hint cookie gets its hint (session.Cookies).
	mux.Handle("/", httpx.WebClient(o.WebDir, o.Deps.Cookies.RestoreHint))
	// Every answer, API, downloads, health and pages alike, says nosniff and its referrer
	// policy; with Strict-Transport-Security when the BFF's public origin is https, which is
	// when its cookies take the __Host- prefix (cookiesFor in cmd/bff), never on plain-http
	// development.
	h := httpx.SecurityHeaders(o.Deps.Cookies.HostPrefix, mux)
	// Outermost, so that it holds the server's own ResponseWriter: every request's body, on
	// every path, has bodyTimeout to arrive (limits.go).
	bodyTimeout := o.BodyTimeout
	if bodyTimeout <= 0 {
		bodyTimeout = requestBodyTimeout
	}
	return bodyDeadline(bodyTimeout, h), nil
}
