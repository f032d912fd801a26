package auth

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"sync"
	"time"
)

// PublicKey is one verification key, named by the kid of the tokens it verifies.
type PublicKey struct {
	ID  string
	Key ed25519.PublicKey
}

// KeySource lists the keys that currently verify tokens. The Verifier caches the answer, so a
// source may be slow or remote.
type KeySource interface {
	PublicKeys(ctx context.Context) ([]PublicKey, error)
}

// KeySourceFunc adapts a function to KeySource.
type KeySourceFunc func(ctx context.Context) ([]PublicKey, error)

// PublicKeys implements KeySource.
func (f KeySourceFunc) PublicKeys(ctx context.Context) ([]PublicKey, error) { return f(ctx) }

// StaticKeys is a fixed key set: for tests, and for identity, which verifies with the keys it
// holds itself.
type StaticKeys []PublicKey

// PublicKeys implements KeySource.
func (s StaticKeys) PublicKeys(context.Context) ([]PublicKey, error) { return s, nil }

// VerifierOption adjusts NewVerifier.
type VerifierOption func(*Verifier)

// WithLeeway sets the clock skew tolerated on exp and iat (default 30s).
func WithLeeway(d time.Duration) VerifierOption { return func(v *Verifier) { v.leeway = d } }

// WithClock replaces time.Now, for tests.
func WithClock(now func() time.Time) VerifierOption { return func(v *Verifier) { v.now = now } }

// WithRefreshInterval sets the minimum time between two key fetches (default 10s). A token
// with an unknown kid triggers a fetch, since identity may have rotated its key; the interval
// stops a stream of forged kids from turning every request into a call to identity.
func WithRefreshInterval(d time.Duration) VerifierOption {
	return func(v *Verifier) { v.minRefresh = d }
}

// WithCacheTTL sets how long fetched keys are used before being fetched again (default 10m),
// which is how a key that identity withdrew stops verifying. If the fetch fails, the old keys
// stay in use: identity being briefly down must not log everyone out.
func WithCacheTTL(d time.Duration) VerifierOption { return func(v *Verifier) { v.cacheTTL = d } }

const (
	defaultLeeway     = 30 * time.Second
	defaultMinRefresh = 10 * time.Second
	defaultCacheTTL   = 10 * time.Minute
	// retryAfterFailure spaces fetches while the source is failing and nothing is cached.
	retryAfterFailure = time.Second
	fetchTimeout      = 5 * time.Second
)

// Verifier checks access tokens: structure, algorithm (EdDSA only), signature against the
// KeySource's keys, expiry, issue time and issuer. It is safe for concurrent use.
type Verifier struct {
	source     KeySource
	issuer     string
	leeway     time.Duration
	now        func() time.Time
	minRefresh time.Duration
	cacheTTL   time.Duration

	// verified remembers the claims of tokens whose signature has been checked: the BFF sends
	// the same access token with every call of a session for up to 10 minutes, and the
	// signature check (≈ 60 µs of Ed25519) was a third of the CPU of a cheap read. Entries are
	// keyed by the whole token, so a hit is the very bytes already verified; expiry, issue time
	// and issuer are checked again on every hit. The map is emptied whenever the key set is
	// refreshed, so a key withdrawn from identity stops being honoured as soon as it would
	// have without the cache; gen tells a verification that straddled a refresh not to store.
	verifiedMu sync.Mutex
	verified   map[string]Claims
	gen        uint64

	mu          sync.Mutex
	keys        map[string]ed25519.PublicKey // nil until the first successful fetch
	fetchedAt   time.Time                    // of the last successful fetch
	attemptedAt time.Time                    // of the last fetch, successful or not
	lastErr     error                        // of the last fetch
	inflight    chan struct{}                // closed when the running fetch ends
}

// IdentityIssuer is the iss of every access token identity signs; verifiers accept no other.
// It lives here, not only in package service, so that a process built without service.Run (the
// ATM gateway) verifies tokens without linking the database and NATS plumbing.
const IdentityIssuer = "thumela-identity"

// NewVerifier returns a Verifier accepting tokens signed by source's keys and issued by issuer
// (compared exactly with iss).
func NewVerifier(source KeySource, issuer string, opts ...VerifierOption) *Verifier {
	v := &Verifier{
		source:     source,
		issuer:     issuer,
		leeway:     defaultLeeway,
		now:        time.Now,
		minRefresh: defaultMinRefresh,
		cacheTTL:   defaultCacheTTL,
	}
	for _, opt := range opts {
		opt(v)
	}
	return v
}

// Verify returns the claims of a valid token. Its errors wrap ErrInvalidToken (the caller must
// authenticate again) or are ErrKeysUnavailable (the keys could not be fetched: retry later).
func (v *Verifier) Verify(ctx context.Context, token string) (Claims, error) {
	v.verifiedMu.Lock()
	c, hit := v.verified[token]
	gen := v.gen
	v.verifiedMu.Unlock()
	if hit {
		return c, v.checkClaims(c)
	}
	c, err := v.verify(ctx, token)
	if err != nil {
		return Claims{}, err
	}
	v.remember(token, c, gen)
	return c, nil
}

// maxVerified bounds the verified-token cache: about 4 MiB at most, and more than the sessions
// one process sees in a token's lifetime.
const maxVerified = 8192

// remember stores a verified token's claims unless the key set was refreshed meanwhile. A full
// cache drops its expired entries first, and everything if that frees nothing.
func (v *Verifier) remember(token string, c Claims, gen uint64) {
	v.verifiedMu.Lock()
	defer v.verifiedMu.Unlock()
	if gen != v.gen {
		return
	}
	if v.verified == nil {
		v.verified = make(map[string]Claims)
	}
	if len(v.verified) >= maxVerified {
		now := v.now()
		for t, old := range v.verified {
			if now.After(old.ExpiresAt.Add(v.leeway)) {
				delete(v.verified, t)
			}
		}
		if len(v.verified) >= maxVerified {
			clear(v.verified)
		}
	}
	v.verified[token] = c
}

// forgetVerified empties the verified-token cache; called when the key set changes.
func (v *Verifier) forgetVerified() {
	v.verifiedMu.Lock()
	defer v.verifiedMu.Unlock()
	clear(v.verified)
	v.gen++
}

// verify checks token in full: structure, key, signature, claims.
func (v *Verifier) verify(ctx context.Context, token string) (Claims, error) {
	p, err := parse(token)
	if err != nil {
		return Claims{}, err
	}
	key, err := v.key(ctx, p.kid)
	if err != nil {
		return Claims{}, err
	}
	verified, err := p.verifiedPayload(key)
	if err != nil {
		return Claims{}, err
	}
	c, err := claimsOf(verified)
	if err != nil {
		return Claims{}, err
	}
	if err := v.checkClaims(c); err != nil {
		return Claims{}, err
	}
	return c, nil
}

// checkClaims applies the time and issuer rules to a signed token's claims.
func (v *Verifier) checkClaims(c Claims) error {
	now := v.now()
	if now.After(c.ExpiresAt.Add(v.leeway)) {
		return ErrExpired
	}
	if c.IssuedAt.After(now.Add(v.leeway)) {
		return ErrIssuedInFuture
	}
	if !c.ExpiresAt.After(c.IssuedAt) {
		return fmt.Errorf("%w: expires before it is issued", ErrInvalidClaims)
	}
	if c.Issuer != v.issuer {
		return fmt.Errorf("%w: %q", ErrWrongIssuer, c.Issuer)
	}
	return nil
}

// key returns the verification key for kid. An unknown kid waits for a fetch of the key set; a
// stale cache is refreshed in the background. There is at most one fetch at a time, and no
// more than one per refresh interval.
func (v *Verifier) key(ctx context.Context, kid string) (ed25519.PublicKey, error) {
	v.mu.Lock()
	now := v.now()
	cached, known := v.keys[kid]
	if known && now.Sub(v.fetchedAt) < v.cacheTTL {
		v.mu.Unlock()
		return cached, nil
	}
	if !v.mayFetchLocked(now) {
		defer v.mu.Unlock()
		return v.resultLocked(kid)
	}
	done := v.fetchLocked(ctx, now)
	v.mu.Unlock()
	if known {
		// Stale but known: refresh in the background rather than make this request wait.
		return cached, nil
	}

	select {
	case <-done:
	case <-ctx.Done():
		return nil, fmt.Errorf("%w: %w", ErrKeysUnavailable, ctx.Err())
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.resultLocked(kid)
}

func (v *Verifier) resultLocked(kid string) (ed25519.PublicKey, error) {
	if k, ok := v.keys[kid]; ok {
		return k, nil
	}
	if v.keys == nil {
		if v.lastErr == nil {
			return nil, ErrKeysUnavailable
		}
		return nil, fmt.Errorf("%w: %w", ErrKeysUnavailable, v.lastErr)
	}
	return nil, fmt.Errorf("%w: %q", ErrUnknownKey, kid)
}

func (v *Verifier) mayFetchLocked(now time.Time) bool {
	switch {
	case v.inflight != nil, v.attemptedAt.IsZero():
		return true
	case v.lastErr != nil:
		return now.Sub(v.attemptedAt) >= retryAfterFailure
	default:
		return now.Sub(v.attemptedAt) >= v.minRefresh
	}
}

// fetchLocked joins the running fetch or starts one. The fetch runs detached from ctx's
// cancellation (one impatient caller must not fail the others) but keeps its values, so the
// call to identity joins the caller's trace.
func (v *Verifier) fetchLocked(ctx context.Context, now time.Time) <-chan struct{} {
	if v.inflight != nil {
		return v.inflight
	}
	done := make(chan struct{})
	v.inflight = done
	v.attemptedAt = now
	go func() {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fetchTimeout)
		defer cancel()
		list, err := v.source.PublicKeys(fctx)

		v.mu.Lock()
		defer v.mu.Unlock()
		v.lastErr = err
		if err == nil {
			keys := make(map[string]ed25519.PublicKey, len(list))
			for _, k := range list {
				if k.ID != "" && len(k.Key) == ed25519.PublicKeySize {
					keys[k.ID] = k.Key
				}
			}
			v.keys = keys
			v.fetchedAt = v.now()
			v.forgetVerified()
		}
		v.inflight = nil
		close(done)
	}()
	return done
}
