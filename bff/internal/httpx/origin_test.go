package httpx

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestSameOrigin(t *testing.T) {
	t.Parallel()
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	h := SameOrigin(OriginPolicy{Allowed: []string{"http://localhost:5173"}}, ok)
	tests := []struct {
		name      string
		origin    string
		fetchSite string
		want      int
	}{
		{"same origin browser call", "http://app.test", "same-origin", http.StatusNoContent},
		{"no browser headers (curl, services)", "", "", http.StatusNoContent},
		{"cross-site with cookie", "https://evil.example", "cross-site", http.StatusForbidden},
		{"cross-site origin without fetch metadata", "https://evil.example", "", http.StatusForbidden},
		{"null origin", "null", "", http.StatusForbidden},
		{"same-site sibling", "http://other.app.test", "same-site", http.StatusForbidden},
		{"allowed dev server", "http://localhost:5173", "same-site", http.StatusNoContent},
		{"allowed dev server cross-site", "http://localhost:5173", "cross-site", http.StatusNoContent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodPost, "http://app.test/thumela.bff.v1.AuthService/SignIn", nil)
			if tt.origin != "" {
				r.Header.Set("Origin", tt.origin)
			}
			if tt.fetchSite != "" {
				r.Header.Set("Sec-Fetch-Site", tt.fetchSite)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.want {
				t.Fatalf("status = %d, want %d", w.Code, tt.want)
			}
		})
	}
}

// With the public origin known, a page on the same host over another scheme is refused even
// without Fetch Metadata (an older browser): it is not the site the cookies were set for.
func TestSameOriginComparesTheSchemeWithThePublicOrigin(t *testing.T) {
	t.Parallel()
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	h := SameOrigin(OriginPolicy{Public: "https://app.test"}, ok)
	for origin, want := range map[string]int{
		"https://app.test": http.StatusNoContent,
		"HTTPS://APP.TEST": http.StatusNoContent,
		"http://app.test":  http.StatusForbidden,
		"ws://app.test":    http.StatusForbidden,
	} {
		r := httptest.NewRequest(http.MethodPost, "http://app.test/thumela.bff.v1.AuthService/SignIn", nil)
		r.Header.Set("Origin", origin)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("Origin %s: status %d, want %d", origin, w.Code, want)
		}
	}
}
