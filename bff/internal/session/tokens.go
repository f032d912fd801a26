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
	// SessionID names the session (not a credential): what revocations name.
	SessionID        string
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
//
// A session revoked anywhere (another replica's sign-out, a password change, "sign out other
// sessions") reaches every replica as identity's SessionsRevoked event: ForgetSessions then
// drops its grant, refuses to cache it again and ends its live streams (Watch). While the
// replica cannot hear revocations (SetCaching(false)), nothing is cached and every call asks
// identity; ForgetAll drops everything when it can hear them again.
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
	// bySession indexes grants by session id, for ForgetSessions.
	bySession map[string][32]byte
	// revoked are sessions revoked within revokedMemory, refused even when an exchange that
	// began before the revocation answers after it.
	revoked map[string]time.Time
	// epoch counts ForgetAll calls: an exchange that began before one is not cached.
	epoch uint64
	// uncached is set while revocations cannot be heard (SetCaching(false)).
	uncached bool
	// streams are the live streams open per session id, ended by ForgetSessions.
	streams map[string]map[*Watch]struct{}
}

// revokedMemory is how long a revoked session id is remembered: longer than any access token
// (identity's are at most 10 minutes), so that no grant of it can be cached again.
const revokedMemory = 15 * time.Minute

// NewTokens makes a cache in front of refresher.
func NewTokens(refresher Refresher) *Tokens {
	return &Tokens{
		refresher: refresher,
		margin:    time.Minute,
		maxSize:   100_000,
		now:       time.Now,
		grants:    make(map[[32]byte]Grant),
		bySession: make(map[string][32]byte),
		revoked:   make(map[string]time.Time),
		streams:   make(map[string]map[*Watch]struct{}),
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
	ok = ok && !t.uncached
	t.mu.Unlock()
	if ok && t.now().Add(t.margin).Before(g.ExpiresAt) {
		return g, nil
	}
	v, err, _ := t.group.Do(string(k[:]), func() (any, error) {
		t.mu.Lock()
		epoch := t.epoch
		t.mu.Unlock()
		g, err := t.refresher.Refresh(context.WithoutCancel(ctx), sessionToken)
		if err != nil {
			return Grant{}, err
		}
		if !t.storeSince(k, g, epoch) {
			// Revoked while the exchange was on its way: identity has ended the session.
			return Grant{}, ErrNoSession
		}
		return g, nil
	})
	if err != nil {
		return Grant{}, err
	}
	return v.(Grant), nil
}

// Remember stores a grant obtained at sign-in, sparing the first exchange.
func (t *Tokens) Remember(sessionToken string, g Grant) {
	t.mu.Lock()
	epoch := t.epoch
	t.mu.Unlock()
	t.storeSince(key(sessionToken), g, epoch)
}

// Forget drops the session's grant (sign-out, password change).
func (t *Tokens) Forget(sessionToken string) {
	t.mu.Lock()
	t.dropLocked(key(sessionToken))
	t.mu.Unlock()
}

// ForgetSessions drops the grants of sessions revoked anywhere, keeps them from being cached
// again, and ends their live streams.
func (t *Tokens) ForgetSessions(ids ...string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	for id, at := range t.revoked {
		if now.Sub(at) > revokedMemory {
			delete(t.revoked, id)
		}
	}
	for _, id := range ids {
		if id == "" {
			continue
		}
		t.revoked[id] = now
		if k, ok := t.bySession[id]; ok {
			t.dropLocked(k)
		}
		for w := range t.streams[id] {
			w.end()
		}
		delete(t.streams, id)
	}
}

// ForgetUser drops the cached grants of every session of the user, whose access tokens carry
// names that changed (identity's UserRenamed): the next call of each gets a token with the new
// names. Sessions stay live and their streams open. An exchange already on its way is not
// cached, as after ForgetAll, since identity may have answered it with the old names. Renames
// are rare, so the grants are scanned rather than indexed by user.
func (t *Tokens) ForgetUser(userID string) {
	if userID == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.epoch++
	for k, g := range t.grants {
		if g.UserID == userID {
			t.dropLocked(k)
		}
	}
}

// ForgetAll drops every cached grant, and keeps any exchange already on its way from being
// cached: after a gap in the revocations heard, each session goes back to identity once.
func (t *Tokens) ForgetAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.epoch++
	clear(t.grants)
	clear(t.bySession)
}

// SetCaching turns the cache off while revocations cannot be heard (every call then asks
// identity) and on again; turning it on drops everything cached before.
func (t *Tokens) SetCaching(on bool) {
	t.mu.Lock()
	t.uncached = !on
	t.mu.Unlock()
	if on {
		t.ForgetAll()
	}
}

// Revoked reports whether the session was revoked (as far as this replica has heard).
func (t *Tokens) Revoked(sessionID string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.revoked[sessionID]
	return ok
}

// Watch is one live stream of a session: Done is closed when the session is revoked.
type Watch struct {
	done chan struct{}
	once sync.Once
}

// Done is closed when the stream's session has been revoked.
func (w *Watch) Done() <-chan struct{} { return w.done }

func (w *Watch) end() { w.once.Do(func() { close(w.done) }) }

// Watch registers a live stream of the session; stop unregisters it. A session already heard
// revoked gets a Watch that is done at once.
func (t *Tokens) Watch(sessionID string) (w *Watch, stop func()) {
	w = &Watch{done: make(chan struct{})}
	if sessionID == "" {
		return w, func() {}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.revoked[sessionID]; ok {
		w.end()
		return w, func() {}
	}
	if t.streams[sessionID] == nil {
		t.streams[sessionID] = map[*Watch]struct{}{}
	}
	t.streams[sessionID][w] = struct{}{}
	return w, func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		delete(t.streams[sessionID], w)
		if len(t.streams[sessionID]) == 0 {
			delete(t.streams, sessionID)
		}
	}
}

// storeSince caches g unless its session was revoked, or everything forgotten, since the
// exchange began (epoch). It reports false only for a revoked session.
func (t *Tokens) storeSince(k [32]byte, g Grant, epoch uint64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.revoked[g.SessionID]; ok && g.SessionID != "" {
		return false
	}
	if t.epoch != epoch || t.uncached {
		return true
	}
	t.storeLocked(k, g)
	return true
}

func (t *Tokens) dropLocked(k [32]byte) {
	if g, ok := t.grants[k]; ok {
		delete(t.bySession, g.SessionID)
		delete(t.grants, k)
	}
}

func (t *Tokens) storeLocked(k [32]byte, g Grant) {
	if len(t.grants) >= t.maxSize {
		now := t.now()
		for kk, gg := range t.grants {
			if !now.Before(gg.ExpiresAt) {
				t.dropLocked(kk)
			}
		}
		// Still full of live grants: drop an arbitrary one rather than grow without bound;
		// it costs that session one more exchange.
		for kk := range t.grants {
			if len(t.grants) < t.maxSize {
				break
			}
			t.dropLocked(kk)
		}
	}
	t.dropLocked(k)
	t.grants[k] = g
	if g.SessionID != "" {
		t.bySession[g.SessionID] = k
	}
}
