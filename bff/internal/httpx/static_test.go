package httpx

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWebClientServesAssetsAndFallsBackToIndex(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "index.html"), []byte("<html>app</html>"), 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "assets"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "assets", "app-abc123.js"), []byte("js"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "robots.txt"), []byte("User-agent: *"), 0o644))
	h := WebClient(dir, nil)

	tests := []struct {
		path, wantBody, wantCache string
		wantCode                  int
	}{
		{"/", "app", "no-cache", 200},
		{"/dashboard", "app", "no-cache", 200},
		{"/blog/3", "app", "no-cache", 200},
		{"/assets/app-abc123.js", "js", "immutable", 200},
		{"/assets/missing.js", "", "", 404},
		{"/robots.txt", "User-agent", "max-age=3600", 200},
		{"/favicon.ico", "", "", 404}, // a file that is not there is not the app's page
		{"/sitemap.xml", "", "", 404},
		{"/../../etc/passwd", "", "", 400}, // traversal is refused, never served
	}
	for _, tt := range tests {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, tt.path, nil))
		if w.Code != tt.wantCode {
			t.Errorf("%s: code %d, want %d", tt.path, w.Code, tt.wantCode)
			continue
		}
		if !strings.Contains(w.Body.String(), tt.wantBody) {
			t.Errorf("%s: body %q", tt.path, w.Body.String())
		}
		if !strings.Contains(w.Header().Get("Cache-Control"), tt.wantCache) {
			t.Errorf("%s: cache-control %q", tt.path, w.Header().Get("Cache-Control"))
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestWebClientLetsOnPageAddHeadersToPagesOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "index.html"), []byte("<html>app</html>"), 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "assets"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "assets", "app-abc123.js"), []byte("js"), 0o644))
	h := WebClient(dir, func(resp, _ http.Header) { resp.Add("Set-Cookie", "hint=1") })
	for path, want := range map[string]bool{"/": true, "/dashboard": true, "/assets/app-abc123.js": false} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if got := w.Header().Get("Set-Cookie") != ""; got != want {
			t.Errorf("%s: Set-Cookie %q, want it %v", path, w.Header().Get("Set-Cookie"), want)
		}
	}
}
