package httpx

import (
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// WebClient serves the built React client from dir: hashed assets under /assets/ are cached
// for a year (their names change with their content); every other path that is not a file gets
// index.html, never cached, so the client's router can answer it (the SPA fallback), except a
// path whose last segment names a file (an extension: /favicon.ico, /sitemap.xml), which is a 404
// rather than a page that a crawler or a browser would take for that file (no route of the
// client has a dot in it). onPage, when set, may add headers to each index.html answer (the
// session's hint cookie).
func WebClient(dir string, onPage func(resp, req http.Header)) http.Handler {
	fs := http.FileServer(http.Dir(dir))
	index := filepath.Join(dir, "index.html")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		setSecurityHeaders(w.Header())
		clean := path.Clean("/" + r.URL.Path)
		if strings.HasPrefix(clean, "/assets/") {
			//nolint:gosec // G703: clean is path.Clean of a rooted path, so it cannot climb out of dir
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(clean))); err == nil {
				w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
				fs.ServeHTTP(w, r)
				return
			}
			http.NotFound(w, r)
			return
		}
		if clean != "/" {
			//nolint:gosec // G703: clean is path.Clean of a rooted path, so it cannot climb out of dir
			if st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(clean))); err == nil && !st.IsDir() {
				w.Header().Set("Cache-Control", "public, max-age=3600")
				fs.ServeHTTP(w, r)
				return
			}
		}
		if path.Ext(clean) != "" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "no-cache")
		if onPage != nil {
			onPage(w.Header(), r.Header)
		}
		http.ServeFile(w, r, index)
	})
}

// setSecurityHeaders sets the headers a page of a banking app carries besides those of every
// answer (nosniff, the referrer policy and HSTS: SecurityHeaders, around the whole server).
func setSecurityHeaders(h http.Header) {
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'")
	h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
}
