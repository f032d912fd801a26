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
// allowedOrigins lists extra origins (scheme://host[:port]) that may call, e.g. the Vite dev
// server; the request's own origin is always allowed.
func SameOrigin(allowedOrigins []string, next http.Handler) http.Handler {
	allowed := make(map[string]bool, len(allowedOrigins))
	for _, o := range allowedOrigins {
		allowed[strings.TrimRight(strings.ToLower(o), "/")] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !sameOrigin(r, allowed) {
			http.Error(w, "cross-site request refused", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func sameOrigin(r *http.Request, allowed map[string]bool) bool {
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
	return strings.EqualFold(u.Host, r.Host)
}
