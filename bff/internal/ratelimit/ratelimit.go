// Package ratelimit refuses floods of the BFF's public and costly RPCs, per client address
// and per account, with one count shared by every replica.
//
// Each RPC has a policy (DefaultPolicies, changed by BFF_RATE_LIMITS) of GCRA rules from
// github.com/throttled/throttled. A call is checked twice per rule: first against a
// process-local store (an LRU in memory), which refuses a flood without any network round
// trip, because one replica can never legitimately pass more than the global limit; then
// against the NATS KV bucket THUMELA_RATELIMITS, which all replicas share. A refusal answers
// connect.CodeResourceExhausted with a google.rpc.RetryInfo detail and a Retry-After header,
// the same message whichever key was hit.
//
// When NATS KV cannot be reached the global check is skipped for a few seconds and the local
// one still applies: every RPC then gets at most (replicas × limit), never unlimited, and a
// NATS outage does not become a sign-in outage. docs/security-ratelimits.md has the table and
// the reasoning.
package ratelimit

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/throttled/throttled/v2"
	"github.com/throttled/throttled/v2/store/memstore"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/thumela/thumela/bff/internal/httpx"
	"github.com/thumela/thumela/bff/internal/rpcerr"
	"github.com/thumela/thumela/services/platform/clientnet"
)

const (
	// globalTimeout bounds one shared check; past it the local answer stands.
	globalTimeout = 500 * time.Millisecond
	// pauseAfterFailure is how long the shared store is left alone after it failed, so an
	// outage costs one timeout every few seconds, not one per call.
	pauseAfterFailure = 5 * time.Second
	// localKeys bounds the process-local store (an LRU): enough for every address and
	// account active within the longest tolerance on one replica.
	localKeys = 200_000
)

// Config is what the BFF's configuration says about rate limits.
type Config struct {
	// Overrides is BFF_RATE_LIMITS (see ApplyOverrides); empty keeps DefaultPolicies.
	Overrides string
	// Replicas of the KV bucket (BFF's STREAM_REPLICAS); 0 means 1.
	Replicas int
	// Now is the clock, for tests; nil is time.Now.
	Now func() time.Time
}

// Options are the parts a Limiter is built from.
type Options struct {
	Config Config
	// JS holds the shared KV bucket; nil limits per process only (tests without NATS).
	JS jetstream.JetStream
	// ClientAddr finds the caller's address, believing X-Forwarded-For only from trusted
	// proxies.
	ClientAddr httpx.ClientAddress
	// SessionUser returns the signed-in user's id for the request headers ("" when none).
	SessionUser func(ctx context.Context, h http.Header) string
	Logger      *slog.Logger
}

// Limiter applies the policy table to Connect calls.
type Limiter struct {
	policies    map[string]*policy
	clientAddr  httpx.ClientAddress
	sessionUser func(ctx context.Context, h http.Header) string
	logger      *slog.Logger
	now         func() time.Time
	shared      bool

	mu          sync.Mutex
	pausedUntil time.Time
}

type policy struct {
	Policy
	rules []*rule
}

type rule struct {
	Rule
	local  *throttled.GCRARateLimiterCtx
	global *throttled.GCRARateLimiterCtx
}

// New builds a Limiter; its KV bucket is opened (created or updated) on first use, so the
// BFF starts while NATS is still coming up.
func New(o Options) (*Limiter, error) {
	policies := DefaultPolicies()
	if err := ApplyOverrides(policies, o.Config.Overrides); err != nil {
		return nil, err
	}
	now := o.Config.Now
	if now == nil {
		now = time.Now
	}
	mem, err := memstore.New(localKeys)
	if err != nil {
		return nil, err
	}
	mem.SetTimeNow(now)
	local := throttled.WrapStoreWithContext(mem)

	var ttl time.Duration
	for _, p := range policies {
		for _, r := range p.Rules {
			ttl = max(ttl, r.tolerance())
		}
	}
	kv := &kvStore{js: o.JS, ttl: ttl + time.Minute, replicas: o.Config.Replicas, now: now}

	l := &Limiter{
		policies:    make(map[string]*policy, len(policies)),
		clientAddr:  o.ClientAddr,
		sessionUser: o.SessionUser,
		logger:      o.Logger,
		now:         now,
		shared:      o.JS != nil,
	}
	if l.logger == nil {
		l.logger = slog.New(slog.DiscardHandler)
	}
	for proc, p := range policies {
		// Address rules first: they need no session look-up (see check).
		slices.SortStableFunc(p.Rules, func(a, b Rule) int { return kindOrder[a.Kind] - kindOrder[b.Kind] })
		lp := &policy{Policy: p}
		for _, r := range p.Rules {
			quota := throttled.RateQuota{MaxRate: throttled.PerDuration(r.Rate, r.Per), MaxBurst: r.Burst}
			loc, err := throttled.NewGCRARateLimiterCtx(local, quota)
			if err != nil {
				return nil, fmt.Errorf("rate limit %s.%s: %w", p.Name, r.Kind, err)
			}
			glob, err := throttled.NewGCRARateLimiterCtx(kv, quota)
			if err != nil {
				return nil, fmt.Errorf("rate limit %s.%s: %w", p.Name, r.Kind, err)
			}
			lp.rules = append(lp.rules, &rule{Rule: r, local: loc, global: glob})
		}
		l.policies[proc] = lp
	}
	return l, nil
}

var kindOrder = map[Kind]int{ByAddress: 0, ByPair: 1, ByAccount: 2}

// Interceptor limits the unary calls whose procedure has a policy; other calls (and the live
// event stream) pass untouched.
func (l *Limiter) Interceptor() connect.Interceptor {
	return connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			if p := l.policies[req.Spec().Procedure]; p != nil {
				if err := l.check(ctx, p, req.Peer().Addr, req.Header(), req.Any()); err != nil {
					return nil, err
				}
			}
			return next(ctx, req)
		}
	})
}

type emailer interface{ GetEmail() string }

// check counts one call (its TCP peer, headers and request message) against p's rules.
func (l *Limiter) check(ctx context.Context, p *policy, peer string, header http.Header, msg any) error {
	addr := clientnet.Key(l.clientAddr.Of(peer, header))
	// The account is looked up only when a rule needs it, after the address rule (listed
	// first): a flood from one address is refused before any session look-up.
	account, resolved := "", false
	accountOf := func() string {
		if !resolved {
			account, resolved = l.account(ctx, p, header, msg), true
		}
		return account
	}
	for _, r := range p.rules {
		var subject string
		switch r.Kind {
		case ByAddress:
			subject = addr
		case ByAccount:
			subject = accountOf()
		case ByPair:
			if a := accountOf(); a != "" {
				subject = a + "|" + addr
			}
		}
		if subject == "" {
			continue
		}
		if wait, limited := l.take(ctx, r, p.Name+"."+string(r.Kind)+"."+digest(subject)); limited {
			return Refusal(wait)
		}
	}
	return nil
}

// account names the call's account for p: "user:<id>" for a signed-in caller where the
// policy counts sessions, else "email:<typed e-mail>" where it counts e-mails, else "".
func (l *Limiter) account(ctx context.Context, p *policy, header http.Header, msg any) string {
	if (p.Account == FromSession || p.Account == FromSessionOrEmail) && l.sessionUser != nil {
		if id := l.sessionUser(ctx, header); id != "" {
			return "user:" + id
		}
	}
	if p.Account == FromEmail || p.Account == FromSessionOrEmail {
		if m, ok := msg.(emailer); ok {
			if e := normaliseEmail(m.GetEmail()); e != "" {
				return "email:" + e
			}
		}
	}
	return ""
}

// take counts one call against key and reports whether it must be refused, and for how long.
func (l *Limiter) take(ctx context.Context, r *rule, key string) (time.Duration, bool) {
	limited, res, err := r.local.RateLimitCtx(ctx, key, 1)
	if err != nil {
		// The in-memory store does not fail; if it ever does, the shared check decides.
		l.logger.ErrorContext(ctx, "rate limit: local store failed", "err", err)
	}
	if limited {
		return res.RetryAfter, true
	}
	if !l.sharedAvailable() {
		return 0, false
	}
	gctx, cancel := context.WithTimeout(withRevisions(ctx), globalTimeout)
	defer cancel()
	limited, res, err = r.global.RateLimitCtx(gctx, key, 1)
	if err != nil {
		if ctx.Err() != nil {
			return 0, false // the caller left; its handler will not run either
		}
		l.pauseShared(ctx, err)
		return 0, false
	}
	return res.RetryAfter, limited
}

func (l *Limiter) sharedAvailable() bool {
	if !l.shared {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.now().Before(l.pausedUntil)
}

func (l *Limiter) pauseShared(ctx context.Context, err error) {
	l.mu.Lock()
	l.pausedUntil = l.now().Add(pauseAfterFailure)
	l.mu.Unlock()
	l.logger.WarnContext(ctx, "rate limit: the shared store is unavailable; limiting per replica for a while",
		"bucket", Bucket, "pause", pauseAfterFailure, "err", err)
}

// MessageFor is the refusal's text, which the web client shows as it is (or rebuilds from
// the retry delay): identity's throttles' shape ("Too many sign-in attempts. Please try again
// in 2 seconds."), in minutes from 90 seconds on.
func MessageFor(wait time.Duration) string {
	secs := rpcerr.RetrySeconds(wait)
	switch {
	case secs == 1:
		return "Too many attempts. Please try again in 1 second."
	case secs < 60:
		return fmt.Sprintf("Too many attempts. Please try again in %d seconds.", secs)
	case secs <= 90:
		return "Too many attempts. Please try again in 1 minute."
	default:
		return fmt.Sprintf("Too many attempts. Please try again in %d minutes.", int(math.Ceil(float64(secs)/60)))
	}
}

// Refusal is the answer to a limited call: ResourceExhausted, the wait in whole seconds
// (rounded up, so a client that waits as told is never early) as google.rpc.RetryInfo and as a
// Retry-After header. It never says which rule or key was hit.
func Refusal(wait time.Duration) *connect.Error {
	secs := rpcerr.RetrySeconds(wait)
	err := connect.NewError(connect.CodeResourceExhausted, errors.New(MessageFor(wait)))
	if d, derr := connect.NewErrorDetail(&errdetails.RetryInfo{RetryDelay: durationpb.New(time.Duration(secs) * time.Second)}); derr == nil {
		err.AddDetail(d)
	}
	rpcerr.SetRetryAfter(err, wait)
	return err
}

func normaliseEmail(raw string) string {
	s := strings.ToLower(strings.TrimSpace(raw))
	if len(s) > 254 {
		s = s[:254]
	}
	return s
}

// digest names a subject in a stored key: KV keys allow few characters (an IPv6 address or
// an e-mail has others), and the bucket then holds no address or e-mail in the clear.
func digest(subject string) string {
	sum := sha256.Sum256([]byte(subject))
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}
