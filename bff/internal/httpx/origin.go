// Package httpx holds the BFF's HTTP edge: the cross-site request guard, the client address,
// and the static web client with its SPA fallback.
package httpx

import (
	"net/http"
	"net/url"
	"strings"
)

// SameOrigin refuses cross-site requests before they reach an RPC. Browsers send Fetch
// Metadata (Sec-Fetch-Site) and Origin on every POST; a request from another site, with the
// user's cookie attached, is exactly a CSRF attempt. Requests with neither header come from
// non-browser clients, which cannot carry a victim's cookie, and are let through.
//
// p.Allowed lists extra origins (scheme://host[:port]) that may call, e.g. the Vite dev server;
// the request's own origin is always allowed. With p.Public set (BFF_PUBLIC_ORIGIN), the own
// origin's scheme must be the public one too: behind a TLS-terminating proxy the request itself
// does not say which scheme the browser used, and a page served over http on the same host is
// not the site the cookies were set for.
func SameOrigin(p OriginPolicy, next http.Handler) http.Handler {
	allowed := make(map[string]bool, len(p.Allowed))
	for _, o := range p.Allowed {
		allowed[strings.TrimRight(strings.ToLower(o), "/")] = true
	}
	scheme := ""
	if u, err := url.Parse(strings.ToLower(p.Public)); err == nil {
		scheme = u.Scheme
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !sameOrigin(r, allowed, scheme) {
			http.Error(w, "cross-site request refused", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// OriginPolicy is which browser origins may call the API.
type OriginPolicy struct {
	// Public is the origin browsers reach the BFF at (BFF_PUBLIC_ORIGIN), "" when unknown.
	Public string
	// Allowed are other origins that may call, e.g. the Vite dev server.
	Allowed []string
}

// sameOrigin reports whether r may go on; scheme, when set, is the only scheme the BFF's own
// origin is served over.
func sameOrigin(r *http.Request, allowed map[string]bool, scheme string) bool {
	origin := strings.ToLower(r.Header.Get("Origin"))
	if origin != "" && allowed[origin] {
		return true
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "same-site", "cross-site":
		// A sibling subdomain is another application, and another site is an attacker
		// until listed.
		return false
	}
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" { // includes the opaque origin "null"
		return false
	}
	return strings.EqualFold(u.Host, r.Host) && (scheme == "" || u.Scheme == scheme)
}
