package httpx

import "net/http"

// NoStore marks every answer of next "Cache-Control: no-store": API answers carry a user's
// data (and Set-Cookie), which no browser cache, back-forward cache or shared proxy may keep
// for the next person on a shared phone or an internet café's PC. It is set before next runs,
// so refusals and errors carry it too. The web client's static files keep their own caching
// (WebClient): they hold nothing personal.
func NoStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}
