// Package session keeps the browser's session: an opaque token in an HttpOnly cookie that the
// BFF exchanges with identity for short-lived access tokens. JavaScript never sees either.
//
// Beside it goes a hint cookie that scripts can read and that holds no secret: it only tells
// the web client that asking GetSession is worth a request (docs/decisions.md, "A signed-in
// hint cookie"). The server never reads it to decide anything.
package session

import (
	"net/http"
	"strings"
	"time"
)

// Cookies writes and reads the session cookie and its hint.
type Cookies struct {
	// Secure is true everywhere except plain-http development on a host that is not
	// localhost (browsers accept Secure cookies from http://localhost).
	Secure bool
	// HostPrefix names the cookies "__Host-…" (only possible over https): the browser then
	// refuses them from subdomains and insists on Secure and Path=/.
	HostPrefix bool
}

const (
	baseName = "thumela_session"
	// hintBaseName is the signed-in hint's name; the web client reads it under both names
	// (web/src/lib/session-hint.ts).
	hintBaseName = "thumela_signed_in"
	// hintValue says nothing but "a session cookie was set here".
	hintValue = "1"
)

// Name is the session cookie's name.
func (c Cookies) Name() string { return c.prefixed(baseName) }

// HintName is the signed-in hint cookie's name.
func (c Cookies) HintName() string { return c.prefixed(hintBaseName) }

func (c Cookies) prefixed(name string) string {
	if c.HostPrefix {
		return "__Host-" + name
	}
	return name
}

// Set adds to h the Set-Cookie values that store token and its hint, which live exactly as
// long as each other.
func (c Cookies) Set(h http.Header, token string, expires time.Time) {
	maxAge := int(time.Until(expires).Seconds())
	h.Add("Set-Cookie", c.cookie(c.Name(), token, expires, maxAge, true))
	h.Add("Set-Cookie", c.cookie(c.HintName(), hintValue, expires, maxAge, false))
}

// Clear adds to h the Set-Cookie values that remove the session cookie and its hint.
func (c Cookies) Clear(h http.Header) {
	h.Add("Set-Cookie", c.cookie(c.Name(), "", time.Time{}, -1, true))
	h.Add("Set-Cookie", c.cookie(c.HintName(), "", time.Time{}, -1, false))
}

// ClearStale is Clear for an answer that found no live session: it clears the cookies only when
// the request carried one of them (an expired or revoked session, or a hint left without its
// session), so the next page load does not ask again; a visitor's answers carry no Set-Cookie.
func (c Cookies) ClearStale(resp, req http.Header) {
	if c.Token(req) != "" || c.hinted(req) {
		c.Clear(resp)
	}
}

// RestoreHint adds to resp the hint of a session cookie that arrived without one (a session
// started before the hint existed), so the page the BFF is serving asks GetSession instead of
// showing a signed-in user as signed out. It lives as long as the browser session: the
// session's own expiry is not known without asking identity, and a session that has ended
// is cleared, hint included, by the first call that finds it so (ClearStale).
func (c Cookies) RestoreHint(resp, req http.Header) {
	if c.Token(req) != "" && !c.hinted(req) {
		resp.Add("Set-Cookie", c.cookie(c.HintName(), hintValue, time.Time{}, 0, false))
	}
}

// hinted reports whether the request carries the hint cookie.
func (c Cookies) hinted(h http.Header) bool {
	r := http.Request{Header: h}
	_, err := r.Cookie(c.HintName())
	return err == nil
}

// cookie is one Set-Cookie value: the session's (httpOnly) or the hint's, with the same Path,
// Secure and SameSite so that the browser keeps and drops them together.
func (c Cookies) cookie(name, value string, expires time.Time, maxAge int, httpOnly bool) string {
	//nolint:gosec // G124: Secure is on unless configured off, which only local development over http does; the hint is deliberately readable by scripts
	ck := &http.Cookie{
		Name:     name,
		Value:    value,
		Path:     "/",
		Expires:  expires,
		MaxAge:   maxAge,
		HttpOnly: httpOnly,
		Secure:   c.Secure || c.HostPrefix,
		SameSite: http.SameSiteLaxMode,
	}
	return ck.String()
}

// Token reads the session token from request headers; empty when there is none.
func (c Cookies) Token(h http.Header) string {
	r := http.Request{Header: h}
	ck, err := r.Cookie(c.Name())
	if err != nil {
		return ""
	}
	return strings.TrimSpace(ck.Value)
}
