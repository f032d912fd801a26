package httpx

import "net/http"

// HSTS is the Strict-Transport-Security of an https deployment: two years, subdomains
// included. Not "preload": the preload list is a promise about the whole registrable domain
// (thumela.co.za and every name under it, served from its apex), which this app's origin alone
// cannot make, and leaving the list takes months; it is the domain owner's decision, made at
// the apex (docs/decisions.md).
const HSTS = "max-age=63072000; includeSubDomains"

// SecurityHeaders sets, before next runs (so that refusals, errors and downloads carry them
// too), what every answer of the BFF says: nosniff, so that no browser runs an API answer or a
// download as a script or a page; strict-origin-when-cross-origin, so that no path or query
// leaves the site (WebClient adds only what pages need besides). Not no-referrer: a
// document under it (the development stack's ATM and outbox pages) sends "Origin: null" with its
// POSTs, which the cross-site guard rightly refuses; and, with hsts (the BFF's
// public origin is https), Strict-Transport-Security. Never hsts on plain-http development: a
// browser that once saw it for localhost would refuse every http://localhost site for two
// years.
func SecurityHeaders(hsts bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		if hsts {
			h.Set("Strict-Transport-Security", HSTS)
		}
		next.ServeHTTP(w, r)
	})
}
