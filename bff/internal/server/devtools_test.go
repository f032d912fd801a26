package server_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/thumela/thumela/bff/internal/handlers"
	"github.com/thumela/thumela/bff/internal/httpx"
	"github.com/thumela/thumela/bff/internal/server"
	"github.com/thumela/thumela/bff/internal/session"
)

func get(t *testing.T, hc *http.Client, req *http.Request) (int, string) {
	t.Helper()
	res, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func TestDevPathsGoToTheDevToolsInDevModeOnly(t *testing.T) {
	t.Parallel()
	tools := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store") // as the dev tools set them
		w.Header().Set("X-Content-Type-Options", "nosniff")
		_, _ = io.WriteString(w, `{"path":"`+r.URL.Path+`","method":"`+r.Method+`"}`)
	}))
	t.Cleanup(tools.Close)
	target, _ := url.Parse(tools.URL)
	deps := &handlers.Deps{Logger: quietLogger(), Cookies: session.Cookies{Secure: true}}

	dev := serveBFFWith(t, deps, func(o *server.Options) { o.DevTools = httpx.DevTools(target, quietLogger()) })
	req, _ := http.NewRequest(http.MethodGet, dev.URL+"/dev/outbox?format=json", nil)
	if code, body := get(t, dev.Client(), req); code != http.StatusOK || body != `{"path":"/dev/outbox","method":"GET"}` {
		t.Fatalf("GET /dev/outbox in dev mode: %d %s", code, body)
	}
	// Each header once, and no other site may frame the dev pages.
	res, err := dev.Client().Get(dev.URL + "/dev/atm")
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	for name, want := range map[string]string{"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
		"X-Frame-Options": "DENY", "Content-Security-Policy": "frame-ancestors 'none'"} {
		if got := res.Header.Values(name); len(got) != 1 || got[0] != want {
			t.Errorf("/dev/atm %s: %q, want %q once", name, got, want)
		}
	}
	req, _ = http.NewRequest(http.MethodPost, dev.URL+"/dev/sms/failures", strings.NewReader(`{"number":"+27821234567","mode":"permanent"}`))
	if code, body := get(t, dev.Client(), req); code != http.StatusOK || !strings.Contains(body, `"method":"POST"`) {
		t.Fatalf("POST /dev/sms/failures in dev mode: %d %s", code, body)
	}
	// Another site cannot flip the failure switches from a developer's browser.
	req, _ = http.NewRequest(http.MethodPost, dev.URL+"/dev/sms/failures", strings.NewReader(`{}`))
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	if code, _ := get(t, dev.Client(), req); code != http.StatusForbidden {
		t.Fatalf("cross-site POST /dev/sms/failures: %d, want 403", code)
	}

	// Without dev mode nothing is proxied: /dev/outbox is the web client's (its 404 page).
	prod := serveBFFWith(t, deps, nil)
	req, _ = http.NewRequest(http.MethodGet, prod.URL+"/dev/outbox?format=json", nil)
	if code, body := get(t, prod.Client(), req); code != http.StatusOK || body != "<html></html>" {
		t.Fatalf("GET /dev/outbox without dev mode: %d %s, want the web client's index", code, body)
	}
}

func TestDevModeIsRefusedOverHTTPSAndNeedsTheDevToolsURL(t *testing.T) {
	t.Parallel()
	const local = "127.0.0.1:8080"
	tests := []struct {
		name string
		cfg  server.Config
		ok   bool
	}{
		{"production", server.Config{HTTPAddr: ":8080", PublicOrigin: "https://app.thumela.co.za"}, true},
		{"development", server.Config{HTTPAddr: local, DevMode: true, DevToolsURL: "http://127.0.0.1:9099", PublicOrigin: "http://localhost:8080"}, true},
		{"development without an origin", server.Config{HTTPAddr: local, DevMode: true, DevToolsURL: "http://127.0.0.1:9099"}, true},
		{"development on ::1", server.Config{HTTPAddr: "[::1]:8080", DevMode: true, DevToolsURL: "http://127.0.0.1:9099"}, true},
		{"development on localhost", server.Config{HTTPAddr: "localhost:8080", DevMode: true, DevToolsURL: "http://127.0.0.1:9099"}, true},
		// /dev/outbox reads every code and voucher: not on an address other machines reach...
		{"dev mode on every interface", server.Config{HTTPAddr: ":8080", DevMode: true, DevToolsURL: "http://127.0.0.1:9099"}, false},
		{"dev mode on 0.0.0.0", server.Config{HTTPAddr: "0.0.0.0:8080", DevMode: true, DevToolsURL: "http://127.0.0.1:9099"}, false},
		{"dev mode on a LAN address", server.Config{HTTPAddr: "192.0.2.10:8080", DevMode: true, DevToolsURL: "http://127.0.0.1:9099"}, false},
		{"dev mode in production", server.Config{HTTPAddr: ":8080", Environment: "production", DevMode: true, DevToolsURL: "http://127.0.0.1:9099"}, false},
		// A loopback listener is no shield in production: a sidecar or a port-forward reaches it.
		{"dev mode on loopback in production", server.Config{HTTPAddr: local, Environment: "production", DevMode: true, DevToolsURL: "http://127.0.0.1:9099"}, false},
		// ...unless the deployment says it is for development.
		{"development on every interface", server.Config{HTTPAddr: ":8080", Environment: "development", DevMode: true, DevToolsURL: "http://127.0.0.1:9099"}, true},
		{"development over https still refused", server.Config{HTTPAddr: local, Environment: "development", DevMode: true, DevToolsURL: "http://127.0.0.1:9099", PublicOrigin: "https://app.thumela.co.za"}, false},
		{"dev mode over https", server.Config{HTTPAddr: local, DevMode: true, DevToolsURL: "http://127.0.0.1:9099", PublicOrigin: "HTTPS://app.thumela.co.za"}, false},
		{"dev mode without dev tools", server.Config{HTTPAddr: local, DevMode: true}, false},
		{"dev tools URL not a URL", server.Config{HTTPAddr: local, DevMode: true, DevToolsURL: "127.0.0.1:9099"}, false},
	}
	for _, tt := range tests {
		if err := tt.cfg.Validate(); (err == nil) != tt.ok {
			t.Errorf("%s: Validate() = %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}
