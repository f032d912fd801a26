package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// Rule says who may call one method.
type Rule struct {
	public     bool
	user       bool
	anyService bool
	services   []string
}

var (
	// Public: anyone, no token read (sign-in, sign-up, GetPublicKeys).
	Public = Rule{public: true}
	// User: any valid user token.
	User = Rule{user: true}
	// AnyService: any valid service token, whichever service it names (reflection's rule).
	AnyService = Rule{anyService: true}
)

// Services allows service tokens whose subject is one of names, e.g. Services("transfers").
func Services(names ...string) Rule {
	return Rule{services: slices.Clone(names)}
}

// AnyOf allows a caller that any of rules allows, e.g. AnyOf(User, Services("transfers")).
func AnyOf(rules ...Rule) Rule {
	var r Rule
	for _, x := range rules {
		r.public = r.public || x.public
		r.user = r.user || x.user
		r.anyService = r.anyService || x.anyService
		r.services = append(r.services, x.services...)
	}
	return r
}

func (r Rule) allows(c Claims) bool {
	switch c.Kind {
	case KindUser:
		return r.user
	case KindService:
		return r.anyService || slices.Contains(r.services, c.Subject)
	default:
		return false
	}
}

// Policy maps full method names ("/thumela.transfers.v1.TransferService/CreateTransfer", the
// generated *_FullMethodName constants) to rules. A method not listed is refused: forgetting a
// new method denies it instead of opening it. Unless listed, the health service is public and
// reflection takes AnyService.
type Policy map[string]Rule

// alwaysPublic are the infrastructure services that probes call without a token: health only.
var alwaysPublic = []string{
	"/grpc.health.v1.Health/",
}

// ReflectionPrefixes are the method prefixes of the reflection services. Reflection lists every
// method and message of a service, a map for whoever probes the cluster from a foothold in it,
// so it is not public: any valid service token (an on-call tool's, a service's) may use it.
var ReflectionPrefixes = []string{
	"/grpc.reflection.v1.ServerReflection/",
	"/grpc.reflection.v1alpha.ServerReflection/",
}

// IsReflection reports whether method belongs to a reflection service.
func IsReflection(method string) bool {
	for _, prefix := range ReflectionPrefixes {
		if strings.HasPrefix(method, prefix) {
			return true
		}
	}
	return false
}

// ErrPolicyIncomplete is returned by Policy.Check.
var ErrPolicyIncomplete = errors.New("auth: policy has no rule for some methods")

// Check returns an error naming every method of the given services that has no rule, so a
// service's test (or its start) catches a new RPC left out of the policy.
func (p Policy) Check(services ...*grpc.ServiceDesc) error {
	var missing []string
	for _, sd := range services {
		for _, m := range sd.Methods {
			if _, ok := p["/"+sd.ServiceName+"/"+m.MethodName]; !ok {
				missing = append(missing, sd.ServiceName+"/"+m.MethodName)
			}
		}
		for _, m := range sd.Streams {
			if _, ok := p["/"+sd.ServiceName+"/"+m.StreamName]; !ok {
				missing = append(missing, sd.ServiceName+"/"+m.StreamName)
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: %s", ErrPolicyIncomplete, strings.Join(missing, ", "))
	}
	return nil
}

// UnaryServerInterceptor enforces policy on unary calls, verifying tokens with v. On success
// the handler's context carries the caller's claims (FromContext) and token (TokenFromContext).
// A missing or invalid token is Unauthenticated; a valid token the rule does not admit, or a
// method without a rule, is PermissionDenied; keys that cannot be fetched are Unavailable.
func UnaryServerInterceptor(v *Verifier, policy Policy) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		ctx, err := authorize(ctx, v, policy, info.FullMethod)
		if err != nil {
			return nil, err
		}
		return handler(ctx, req)
	}
}

// StreamServerInterceptor is UnaryServerInterceptor for streaming calls.
func StreamServerInterceptor(v *Verifier, policy Policy) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		ctx, err := authorize(ss.Context(), v, policy, info.FullMethod)
		if err != nil {
			return err
		}
		return handler(srv, &authStream{ServerStream: ss, ctx: ctx})
	}
}

type authStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *authStream) Context() context.Context { return s.ctx }

func authorize(ctx context.Context, v *Verifier, policy Policy, method string) (context.Context, error) {
	rule, ok := policy[method]
	switch {
	case ok:
	case isAlwaysPublic(method):
		return ctx, nil
	case IsReflection(method):
		rule = AnyService
	default:
		return ctx, deny(ctx, codes.PermissionDenied, "method not in policy", "method not allowed")
	}
	if rule.public {
		return ctx, nil
	}
	token, err := bearer(ctx)
	if err != nil {
		return ctx, deny(ctx, codes.Unauthenticated, err.Error(), "missing access token")
	}
	claims, err := v.Verify(ctx, token)
	switch {
	case err == nil:
	case errors.Is(err, ErrKeysUnavailable):
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctx, status.FromContextError(ctxErr).Err()
		}
		return ctx, deny(ctx, codes.Unavailable, err.Error(), "cannot verify access token now")
	case errors.Is(err, ErrExpired):
		return ctx, deny(ctx, codes.Unauthenticated, err.Error(), "access token expired")
	default:
		return ctx, deny(ctx, codes.Unauthenticated, err.Error(), "invalid access token")
	}
	if !rule.allows(claims) {
		return ctx, deny(ctx, codes.PermissionDenied, "caller not admitted by rule", "caller not allowed")
	}
	trace.SpanFromContext(ctx).SetAttributes(attribute.String("thumela.auth.kind", string(claims.Kind)))
	return newTokenContext(NewContext(ctx, claims), token), nil
}

// deny records why a call was refused on the span (for on-call, never the token) and returns
// the status the caller sees, which says less.
func deny(ctx context.Context, code codes.Code, reason, msg string) error {
	trace.SpanFromContext(ctx).AddEvent("auth.denied", trace.WithAttributes(
		attribute.String("thumela.auth.reason", reason),
	))
	return status.Error(code, msg)
}

func isAlwaysPublic(method string) bool {
	for _, prefix := range alwaysPublic {
		if strings.HasPrefix(method, prefix) {
			return true
		}
	}
	return false
}

var (
	errNoToken       = errors.New("no authorization metadata")
	errManyTokens    = errors.New("more than one authorization value")
	errNotBearer     = errors.New("authorization is not a bearer token")
	errMalformedAuth = errors.New("malformed bearer token")
)

// bearer reads the one "authorization: Bearer <token>" value of the incoming call.
func bearer(ctx context.Context) (string, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	values := md.Get(authorizationKey)
	switch len(values) {
	case 0:
		return "", errNoToken
	case 1:
	default:
		return "", errManyTokens
	}
	scheme, token, ok := strings.Cut(values[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", errNotBearer
	}
	if token == "" || strings.ContainsAny(token, " \t") {
		return "", errMalformedAuth
	}
	return token, nil
}
