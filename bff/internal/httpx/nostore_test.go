package httpx_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/thumela/thumela/bff/internal/httpx"
)

func TestNoStoreOnEveryAnswer(t *testing.T) {
	t.Parallel()
	for name, h := range map[string]http.Handler{
		"ok":      http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("{}")) }),
		"refused": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no", http.StatusForbidden) }),
	} {
		rec := httptest.NewRecorder()
		httpx.NoStore(h).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/thumela.bff.v1.AuthService/GetSession", nil))
		if got := rec.Header().Get("Cache-Control"); got != "no-store" {
			t.Errorf("%s: Cache-Control = %q, want no-store", name, got)
		}
	}
}
