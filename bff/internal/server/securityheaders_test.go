package server_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/grpc"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"

	"github.com/thumela/thumela/bff/internal/session"
)

// TestEveryAnswerCarriesTheSecurityHeaders: every answer of the BFF, a Connect success, a
// Connect error, a cross-site refusal, a statement download, health and the web client's page,
// says nosniff and a strict referrer policy; Strict-Transport-Security goes with them when the
// BFF's public origin is https (its cookies then take the __Host- prefix, cmd/bff's
// cookiesFor), and never on plain-http development.
func TestEveryAnswerCarriesTheSecurityHeaders(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		cookies session.Cookies
		hsts    string
	}{
		{"https public origin", session.Cookies{Secure: true, HostPrefix: true}, "max-age=63072000; includeSubDomains"},
		{"http://localhost development", session.Cookies{Secure: true}, ""},
		{"plain-http development with insecure cookies", session.Cookies{}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, deps := newBFFWithBus(t, nil)
			deps.Cookies = tt.cookies
			conn := serveUpstream(t, func(s *grpc.Server) { transfersv1.RegisterTransfersServiceServer(s, &statementTransfers{}) })
			deps.Transfers = transfersv1.NewTransfersServiceClient(conn)
			srv := serveBFF(t, deps)
			auth, hc := client(t, srv)
			if _, err := auth.SignIn(context.Background(), &bffv1.SignInRequest{Email: "thandi@example.co.za", Password: "right-password"}); err != nil {
				t.Fatal(err)
			}

			check := func(name string, req *http.Request, wantStatus int) {
				t.Helper()
				res, err := hc.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != wantStatus {
					t.Errorf("%s: status %d, want %d", name, res.StatusCode, wantStatus)
				}
				if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
					t.Errorf("%s: X-Content-Type-Options = %q, want nosniff", name, got)
				}
				// One policy for pages and answers alike (not no-referrer: a page under it posts
				// with "Origin: null", which the cross-site guard refuses).
				if got := res.Header.Get("Referrer-Policy"); got != "strict-origin-when-cross-origin" {
					t.Errorf("%s: Referrer-Policy = %q, want strict-origin-when-cross-origin", name, got)
				}
				if got := res.Header.Get("Strict-Transport-Security"); got != tt.hsts {
					t.Errorf("%s: Strict-Transport-Security = %q, want %q", name, got, tt.hsts)
				}
			}
			connectCall := func(procedure, body string) *http.Request {
				req, _ := http.NewRequest(http.MethodPost, srv.URL+procedure, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				return req
			}
			get := func(path string) *http.Request {
				req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
				return req
			}

			check("GetSession signed in", connectCall(bffv1connect.AuthServiceGetSessionProcedure, `{}`), http.StatusOK)
			check("SignIn with a wrong password", connectCall(bffv1connect.AuthServiceSignInProcedure,
				`{"email":"thandi@example.co.za","password":"wrong-password"}`), http.StatusUnauthorized)
			cross := connectCall(bffv1connect.AuthServiceGetSessionProcedure, `{}`)
			cross.Header.Set("Origin", "https://evil.example")
			cross.Header.Set("Sec-Fetch-Site", "cross-site")
			check("a cross-site refusal", cross, http.StatusForbidden)
			check("the statement CSV", get("/api/statement?from=2026-11-01&to=2026-11-30&format=csv"), http.StatusOK)
			check("a proof of payment not found", get("/api/transfers/t-unknown/proof-of-payment.pdf"), http.StatusNotFound)
			check("health", get("/healthz"), http.StatusOK)
			check("the web client's page", get("/dashboard"), http.StatusOK)
		})
	}
}
