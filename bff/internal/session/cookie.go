// Package session keeps the browser's session: an opaque token in an HttpOnly cookie that the
// BFF exchanges with identity for short-lived access tokens. JavaScript never sees either.
package session

import (
	"net/http"
	"strings"
	"time"
)

// Cookies writes and reads the session cookie.
type Cookies struct {
	// Secure is true everywhere except plain-http development on a host that is not
	// localhost (browsers accept Secure cookies from http://localhost).
	Secure bool
	// HostPrefix names the cookie "__Host-…" (only possible over https): the browser then
	// refuses it from subdomains and insists on Secure and Path=/.
	HostPrefix bool
}

const baseName = "thumela_session"

// Name is the cookie's name.
func (c Cookies) Name() string {
	if c.HostPrefix {
		return "__Host-" + baseName
	}
	return baseName
}

// Set returns the Set-Cookie value that stores token.
func (c Cookies) Set(token string, expires time.Time) string {
	//nolint:gosec // G124: Secure is on unless configured off, which only local development over http does
	ck := &http.Cookie{
		Name:     c.Name(),
		Value:    token,
		Path:     "/",
		Expires:  expires,
		MaxAge:   int(time.Until(expires).Seconds()),
		HttpOnly: true,
		Secure:   c.Secure || c.HostPrefix,
		SameSite: http.SameSiteLaxMode,
	}
	return ck.String()
}

// Clear returns the Set-Cookie value that removes the cookie.
func (c Cookies) Clear() string {
	//nolint:gosec // G124: Secure is on unless configured off, which only local development over http does
	ck := &http.Cookie{
		Name:     c.Name(),
		Value:    "",
		Path:     "/",
		MaxAge:   -1,
		HttpOnly: true,
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
