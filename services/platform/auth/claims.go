// Package auth issues and checks Thumela's internal access tokens and enforces, per RPC, who
// may call what.
//
// An access token is a compact JWS (a JWT) signed with Ed25519 ("alg":"EdDSA") by identity,
// which publishes its public keys through GetPublicKeys. Two kinds exist: a user token, which
// the BFF obtains for a signed-in session and forwards on every call made for that user, and a
// service token, naming a calling service, for work no user is doing in the moment (the
// transfer worker charging a card). Services never trust a user id from a request body: they
// read the subject of the verified token from the context (FromContext).
//
// Server side: build a Verifier over a KeySource (IdentityKeySource in services, StaticKeys in
// identity itself and in tests), and install UnaryServerInterceptor/StreamServerInterceptor
// with a Policy listing every method. Client side: WithBearer forwards a user's token;
// PerRPCCredentials attaches a service token to every call of a connection.
//
// Tokens are credentials: nothing here logs them, and neither should callers.
package auth

import (
	"context"
	"log/slog"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Kind says whom a token speaks for.
type Kind string

const (
	// KindUser: a person, through the BFF. Subject is the user id.
	KindUser Kind = "user"
	// KindService: an internal service acting on its own. Subject is the service's name.
	KindService Kind = "service"
)

// Claims are the verified contents of an access token.
type Claims struct {
	Subject    string // sub: user id, or service name for KindService
	Kind       Kind   // knd
	Email      string // email (user tokens)
	GivenName  string // given_name
	FamilyName string // family_name
	SessionID  string // sid: the session the token was issued for (user tokens)
	// SteppedUpAt is sua (unix seconds): when the session last proved the user afresh (a passkey
	// or the password, just before money moves). Zero when absent. Services that need a recent
	// step-up compare it with their own window (SteppedUpWithin).
	SteppedUpAt time.Time
	IssuedAt    time.Time // iat
	ExpiresAt   time.Time // exp
	Issuer      string    // iss
}

// LogValue keeps personal data (e-mail, names) out of logs when claims are logged whole.
func (c Claims) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("sub", c.Subject),
		slog.String("kind", string(c.Kind)),
		slog.String("sid", c.SessionID),
		slog.Time("exp", c.ExpiresAt),
	)
}

// SteppedUpWithin reports whether the token carries a step-up no older than window at now
// (and not in the future beyond a small clock skew, which would be a forged or broken clock).
func (c Claims) SteppedUpWithin(window time.Duration, now time.Time) bool {
	if c.SteppedUpAt.IsZero() {
		return false
	}
	age := now.Sub(c.SteppedUpAt)
	return age <= window && age >= -time.Minute
}

// IsUser reports whether the claims are a user's.
func (c Claims) IsUser() bool { return c.Kind == KindUser }

// IsService reports whether the claims are the named service's.
func (c Claims) IsService(name string) bool { return c.Kind == KindService && c.Subject == name }

type claimsKey struct{}

type tokenKey struct{}

// NewContext returns ctx carrying the verified claims of the caller.
func NewContext(ctx context.Context, c Claims) context.Context {
	return context.WithValue(ctx, claimsKey{}, c)
}

// FromContext returns the caller's claims, set by the server interceptors for every method
// that is not Public.
func FromContext(ctx context.Context) (Claims, bool) {
	c, ok := ctx.Value(claimsKey{}).(Claims)
	return c, ok
}

// TokenFromContext returns the caller's raw access token, set by the server interceptors next to
// the claims, so a service can call another on the same user's behalf:
//
//	tok, _ := auth.TokenFromContext(ctx)
//	pm, err := paymentMethods.Get(auth.WithBearer(ctx, tok), req)
func TokenFromContext(ctx context.Context) (string, bool) {
	t, ok := ctx.Value(tokenKey{}).(string)
	return t, ok && t != ""
}

func newTokenContext(ctx context.Context, token string) context.Context {
	return context.WithValue(ctx, tokenKey{}, token)
}

// errNoUser answers a user call that reached a handler without a user's claims: the policy
// makes that impossible unless a method is wrongly listed, so the handler refuses rather than
// acting for nobody.
var errNoUser = status.Error(codes.Unauthenticated, "authentication required")

// RequireUser returns the claims of the user a call is made for, or an Unauthenticated status error
// when the call carries no user token. Handlers scope every query to the returned Subject.
func RequireUser(ctx context.Context) (Claims, error) {
	c, ok := FromContext(ctx)
	if !ok || !c.IsUser() {
		return Claims{}, errNoUser
	}
	return c, nil
}
