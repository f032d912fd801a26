package devsinks

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// A tool mounted beside the outbox (the ATM) gets its requests, behind the same refusal of
// cross-site writes and the same no-store, and the outbox page links to it.
func TestToolsAreMountedBehindTheSameGuards(t *testing.T) {
	t.Parallel()
	var got []string
	tool := Tool{Path: "/dev/atm", Title: "Dev ATM: withdraw a voucher", Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Method)
		_, _ = w.Write([]byte("atm"))
	})}
	srv := httptest.NewServer(NewDevTools(NewOutbox(nil, 10), NewFailures(), tool))
	t.Cleanup(srv.Close)

	resp, body := get(t, srv.URL+"/dev/atm")
	if resp.StatusCode != http.StatusOK || body != "atm" || resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("GET /dev/atm: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	for site, want := range map[string]int{"": http.StatusOK, "same-origin": http.StatusOK, "cross-site": http.StatusForbidden, "same-site": http.StatusForbidden} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/dev/atm", strings.NewReader(url.Values{"pin": {"1234"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if site != "" {
			req.Header.Set("Sec-Fetch-Site", site)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want || resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("POST with Sec-Fetch-Site %q: %d (%q), want %d", site, resp.StatusCode, resp.Header.Get("Cache-Control"), want)
		}
	}
	if strings.Join(got, ",") != "GET,POST,POST" {
		t.Errorf("the tool saw %v: a cross-site POST reached it", got)
	}
	if _, page := get(t, srv.URL+"/dev/outbox"); !strings.Contains(page, `<a href="/dev/atm">Dev ATM: withdraw a voucher</a>`) {
		t.Error("the outbox page does not link to the tool")
	}
}
