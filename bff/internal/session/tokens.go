package session

import (
	"context"
	"crypto/sha256"
	"errors"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// ErrNoSession means the request carries no live session: the caller answers Unauthenticated.
var ErrNoSession = errors.New("no session")

// Grant is what identity gives for a live session: a short-lived access token naming the user.
type Grant struct {
	UserID           string
	Email            string
	AccessToken      string
	ExpiresAt        time.Time
	SessionExpiresAt time.Time
}

// Refresher exchanges a session token for a grant (identity's Refresh). It returns ErrNoSession
// for an unknown, expired or revoked session.
type Refresher interface {
	Refresh(ctx context.Context, sessionToken string) (Grant, error)
}

// Tokens caches grants per session so that a page's burst of calls costs identity one
// exchange, not one each. A grant is reused until shortly before its access token expires;
// Forget drops it at sign-out, so a replayed cookie goes back to identity and is refused.
type Tokens struct {
	refresher Refresher
	// margin is how long before expiry a grant stops being handed out, so that a token never
	// expires on its way to a service.
	margin  time.Duration
	maxSize int
	now     func() time.Time

	mu     sync.Mutex
	grants map[[32]byte]Grant
	group  singleflight.Group
}

// NewTokens makes a cache in front of refresher.
func NewTokens(refresher Refresher) *Tokens {
	return &Tokens{
		refresher: refresher,
		margin:    time.Minute,
		maxSize:   100_000,
		now:       time.Now,
		grants:    make(map[[32]byte]Grant),
	}
}

// key hashes the token: the cache never holds a usable session token.
func key(sessionToken string) [32]byte { return sha256.Sum256([]byte(sessionToken)) }

// Grant returns a usable grant for the session token.
func (t *Tokens) Grant(ctx context.Context, sessionToken string) (Grant, error) {
	if sessionToken == "" {
		return Grant{}, ErrNoSession
	}
	k := key(sessionToken)
	t.mu.Lock()
	g, ok := t.grants[k]
	t.mu.Unlock()
	if ok && t.now().Add(t.margin).Before(g.ExpiresAt) {
		return g, nil
	}
	v, err, _ := t.group.Do(string(k[:]), func() (any, error) {
		g, err := t.refresher.Refresh(context.WithoutCancel(ctx), sessionToken)
		if err != nil {
			return Grant{}, err
		}
		t.store(k, g)
		return g, nil
	})
	if err != nil {
		return Grant{}, err
	}
	return v.(Grant), nil
}

// Remember stores a grant obtained at sign-in, sparing the first exchange.
func (t *Tokens) Remember(sessionToken string, g Grant) { t.store(key(sessionToken), g) }

// Forget drops the session's grant (sign-out, password change).
func (t *Tokens) Forget(sessionToken string) {
	t.mu.Lock()
	delete(t.grants, key(sessionToken))
	t.mu.Unlock()
}

func (t *Tokens) store(k [32]byte, g Grant) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.grants) >= t.maxSize {
		now := t.now()
		for kk, gg := range t.grants {
			if !now.Before(gg.ExpiresAt) {
				delete(t.grants, kk)
			}
		}
		// Still full of live grants: drop an arbitrary one rather than grow without bound;
		// it costs that session one more exchange.
		for kk := range t.grants {
			if len(t.grants) < t.maxSize {
				break
			}
			delete(t.grants, kk)
		}
	}
	t.grants[k] = g
}
