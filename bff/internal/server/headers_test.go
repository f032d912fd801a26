package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/thumela/thumela/bff/internal/handlers"
	"github.com/thumela/thumela/bff/internal/server"
	"github.com/thumela/thumela/bff/internal/session"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
)

// TestAPIAnswersAreNeverCached: every Connect answer (a success, a refusal, an error) and every
// /dev/ answer says no-store; the web client's static files keep their own caching.
func TestAPIAnswersAreNeverCached(t *testing.T) {
	t.Parallel()
	srv, _ := newBFF(t)
	hc := srv.Client()
	do := func(req *http.Request) *http.Response {
		t.Helper()
		res, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	wantNoStore := func(name string, res *http.Response) {
		t.Helper()
		if got := res.Header.Get("Cache-Control"); got != "no-store" {
			t.Errorf("%s (%d): Cache-Control = %q, want no-store", name, res.StatusCode, got)
		}
	}

	res := do(signInRequest(t, srv, "right-password"))
	if res.StatusCode != http.StatusOK || res.Header.Get("Set-Cookie") == "" {
		t.Fatalf("SignIn: %d", res.StatusCode)
	}
	wantNoStore("SignIn", res)
	wantNoStore("SignIn with a wrong password", do(signInRequest(t, srv, "wrong-password")))
	req, _ := http.NewRequest(http.MethodPost, srv.URL+bffv1connect.AuthServiceGetSessionProcedure, strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	wantNoStore("GetSession signed out", do(req))
	cross := signInRequest(t, srv, "right-password")
	cross.Header.Set("Origin", "https://evil.example")
	cross.Header.Set("Sec-Fetch-Site", "cross-site")
	wantNoStore("a cross-site refusal", do(cross))

	// The static client is not the API's: its hashed assets stay cacheable.
	index, _ := http.NewRequest(http.MethodGet, srv.URL+"/", nil)
	if got := do(index).Header.Get("Cache-Control"); got == "no-store" {
		t.Errorf("the web client's index is no-store")
	}
}

func TestDevAnswersAreNeverCached(t *testing.T) {
	t.Parallel()
	tools := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"messages":[]}`)
	})
	srv := serveBFFWith(t, &handlers.Deps{Logger: quietLogger(), Cookies: session.Cookies{Secure: true}}, func(o *server.Options) {
		o.DevTools = tools
	})
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/dev/outbox?format=json", nil)
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("/dev/outbox: %d, Cache-Control %q", res.StatusCode, res.Header.Get("Cache-Control"))
	}
}
