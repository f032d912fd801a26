package httpx

import (
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
)

// DevTools reverse-proxies a request to the development stack's dev-tools server at target
// (the dev outbox, the SMS sink's failure switches), so that they keep their address on the
// development site (/dev/outbox on the BFF's origin) while living in the dev stack. It is
// mounted only in development mode.
//
// The browser's cookies stay here: the dev tools have no use for the session, and a cookie
// they set could not be told apart from the BFF's.
func DevTools(target *url.URL, logger *slog.Logger) http.Handler {
	return &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.SetXForwarded()
			r.Out.Header.Del("Cookie")
		},
		ModifyResponse: func(res *http.Response) error {
			res.Header.Del("Set-Cookie")
			// The BFF sets these around every answer (NoStore, SecurityHeaders): the dev tools'
			// own would be added beside them ("nosniff, nosniff").
			res.Header.Del("Cache-Control")
			res.Header.Del("X-Content-Type-Options")
			// The dev ATM and the outbox are pages: no other site may frame them. (Their inline
			// styles and forms rule out the web client's whole policy; framing is what matters.)
			res.Header.Set("X-Frame-Options", "DENY")
			res.Header.Set("Content-Security-Policy", "frame-ancestors 'none'")
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			logger.WarnContext(r.Context(), "dev tools: not reachable", "path", r.URL.Path, "err", err)
			http.Error(w, "the dev tools are not reachable (is the dev stack's dev-tools server running?)", http.StatusBadGateway)
		},
	}
}

// DevHosts lets a dev-tools request through only when it names this machine (localhost, a
// loopback address) or the host of one of origins (the BFF's public origin, the allowed ones)
// in its Host. The dev tools take no cookie, so the cross-site guard alone would let a page
// whose name an attacker re-points at 127.0.0.1 (DNS rebinding) read the dev outbox, one-time
// codes included, as a same-origin page of its own: its requests still carry its own name.
func DevHosts(origins []string, next http.Handler) http.Handler {
	known := map[string]bool{}
	for _, o := range origins {
		if u, err := url.Parse(o); err == nil && u.Hostname() != "" {
			known[strings.ToLower(u.Hostname())] = true
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.ToLower(strings.Trim(host, "[]"))
		ip := net.ParseIP(host)
		if host != "localhost" && (ip == nil || !ip.IsLoopback()) && !known[host] {
			http.Error(w, "the dev tools answer on this machine's own names only", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}
