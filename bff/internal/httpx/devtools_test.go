package httpx_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/thumela/thumela/bff/internal/httpx"
)

func TestDevToolsProxiesPathQueryMethodAndBodyButNotCookies(t *testing.T) {
	t.Parallel()
	type seen struct {
		method, uri, body, cookie, forwardedHost string
	}
	got := make(chan seen, 1)
	tools := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.URL.RequestURI(), string(b), r.Header.Get("Cookie"), r.Header.Get("X-Forwarded-Host")}
		http.SetCookie(w, &http.Cookie{Name: "thumela_session", Value: "forged"})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer tools.Close()
	target, _ := url.Parse(tools.URL)
	proxy := httpx.DevTools(target, slog.New(slog.DiscardHandler))

	req := httptest.NewRequest(http.MethodPost, "http://localhost:8080/dev/sms/failures?x=1", strings.NewReader(`{"number":"+27821234567","mode":"permanent"}`))
	req.Header.Set("Cookie", "thumela_session=secret")
	rec := httptest.NewRecorder()
	proxy.ServeHTTP(rec, req)

	if rec.Code != http.StatusAccepted || rec.Body.String() != `{"ok":true}` {
		t.Fatalf("answer %d %q", rec.Code, rec.Body.String())
	}
	if c := rec.Header().Get("Set-Cookie"); c != "" {
		t.Fatalf("the dev tools' Set-Cookie reached the browser: %q", c)
	}
	s := <-got
	want := seen{http.MethodPost, "/dev/sms/failures?x=1", `{"number":"+27821234567","mode":"permanent"}`, "", "localhost:8080"}
	if s != want {
		t.Fatalf("the dev tools saw %+v, want %+v", s, want)
	}
}

func TestDevToolsAnswersBadGatewayWhenTheyAreDown(t *testing.T) {
	t.Parallel()
	tools := httptest.NewServer(http.NotFoundHandler())
	target, _ := url.Parse(tools.URL)
	tools.Close()
	rec := httptest.NewRecorder()
	httpx.DevTools(target, slog.New(slog.DiscardHandler)).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/dev/outbox", nil))
	if rec.Code != http.StatusBadGateway {
		t.Fatalf("status %d, want 502", rec.Code)
	}
}

func TestDevHostsAnswersOnlyThisMachinesNames(t *testing.T) {
	t.Parallel()
	tools := httpx.DevHosts([]string{"http://dev.thumela.test:8080", ""}, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	for host, want := range map[string]int{
		"localhost:8080":        http.StatusNoContent,
		"LOCALHOST":             http.StatusNoContent,
		"127.0.0.1:18080":       http.StatusNoContent,
		"127.0.0.2":             http.StatusNoContent,
		"[::1]:8080":            http.StatusNoContent,
		"dev.thumela.test:8080": http.StatusNoContent,
		"dev.thumela.test:9999": http.StatusNoContent, // the name decides, not the port
		// A name re-pointed at 127.0.0.1 by its owner (DNS rebinding), and other machines.
		"evil.example:8080":      http.StatusForbidden,
		"localhost.evil.example": http.StatusForbidden,
		"192.168.1.10:8080":      http.StatusForbidden,
		"thumela.test":           http.StatusForbidden,
		"":                       http.StatusForbidden,
	} {
		req := httptest.NewRequest(http.MethodGet, "http://localhost/dev/outbox", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		tools.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Host %q: %d, want %d", host, rec.Code, want)
		}
	}
}
