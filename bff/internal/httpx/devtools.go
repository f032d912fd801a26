package httpx

import (
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
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
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			logger.WarnContext(r.Context(), "dev tools: not reachable", "path", r.URL.Path, "err", err)
			http.Error(w, "the dev tools are not reachable (is the dev stack's dev-tools server running?)", http.StatusBadGateway)
		},
	}
}
