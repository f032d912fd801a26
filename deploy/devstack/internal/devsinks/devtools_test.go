package devsinks

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

func startTestDevTools(t *testing.T) (*httptest.Server, *Outbox, *Failures) {
	t.Helper()
	outbox, failures := NewOutbox(nil, 1000), NewFailures()
	srv := httptest.NewServer(NewDevTools(outbox, failures))
	t.Cleanup(srv.Close)
	return srv, outbox, failures
}

func get(t *testing.T, u string, header ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// The JSON the browser tests and the Go stack tests read: every field of the contract, oldest
// first.
func TestOutboxJSONFormat(t *testing.T) {
	t.Parallel()
	srv, outbox, _ := startTestDevTools(t)
	if _, body := get(t, srv.URL+"/dev/outbox?format=json"); strings.TrimSpace(body) != `{"messages":[]}` {
		t.Errorf("an empty outbox is %s, want an empty array", body)
	}
	at := time.Date(2026, 3, 25, 11, 12, 0, 0, time.UTC)
	outbox.addEmail(t.Context(), Message{ID: "e1", Channel: ChannelEmail, Recipient: "a@example.co.za", Subject: "Your code",
		Body: "Your code is 123456.", Template: "sign_up_code", CreatedAt: at, MessageID: "r1@thumela.co.za"})
	outbox.addSMS(t.Context(), Message{ID: "101", Channel: ChannelSMS, Recipient: "+27821234567", Body: "Voucher", CreatedAt: at.Add(time.Second), Status: StatusAccepted})
	outbox.setStatus("101", StatusDelivered)

	for _, how := range [][]string{{"/dev/outbox?format=json"}, {"/dev/outbox", "Accept", "application/json"}} {
		resp, body := get(t, srv.URL+how[0], how[1:]...)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("%v: %d %v", how, resp.StatusCode, resp.Header)
		}
		var got struct {
			Messages []map[string]any `json:"messages"`
		}
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Messages) != 2 {
			t.Fatalf("%d messages: %s", len(got.Messages), body)
		}
		for _, m := range got.Messages {
			for _, k := range []string{"id", "channel", "recipient", "subject", "body", "template", "created_at", "status"} {
				if _, ok := m[k]; !ok {
					t.Errorf("message without %q: %v", k, m)
				}
			}
		}
		e, s := got.Messages[0], got.Messages[1]
		if e["id"] != "e1" || e["channel"] != "email" || e["recipient"] != "a@example.co.za" || e["template"] != "sign_up_code" ||
			e["body"] != "Your code is 123456." || e["subject"] != "Your code" || e["created_at"] != "2026-03-25T11:12:00Z" || e["status"] != "" {
			t.Errorf("e-mail %v", e)
		}
		if s["channel"] != "sms" || s["recipient"] != "+27821234567" || s["subject"] != "" || s["template"] != "" || s["status"] != "delivered" {
			t.Errorf("SMS %v", s)
		}
	}
}

func TestOutboxKeepsTheNewest(t *testing.T) {
	t.Parallel()
	o := NewOutbox(nil, 3)
	for i := range 5 {
		o.addEmail(t.Context(), Message{ID: fmt.Sprint(i), Channel: ChannelEmail, Recipient: "a@x.co.za", MessageID: fmt.Sprint(i)})
	}
	var ids []string
	for _, m := range o.Messages() {
		ids = append(ids, m.ID)
	}
	if strings.Join(ids, ",") != "2,3,4" {
		t.Errorf("kept %v, want the newest three, oldest first", ids)
	}
	if len(o.mailboxes) != 3 {
		t.Errorf("remembers %d Message-IDs of 3 kept messages", len(o.mailboxes))
	}
	if DefaultOutboxSize != 1000 {
		t.Errorf("DefaultOutboxSize = %d", DefaultOutboxSize)
	}
}

func TestOutboxPage(t *testing.T) {
	t.Parallel()
	srv, outbox, _ := startTestDevTools(t)
	resp, body := get(t, srv.URL+"/dev/outbox")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !strings.Contains(body, "No messages yet.") {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	outbox.addEmail(t.Context(), Message{ID: "1", Channel: ChannelEmail, Recipient: "a@example.co.za", Subject: "First", Body: "<script>alert(1)</script>", CreatedAt: time.Now()})
	outbox.addSMS(t.Context(), Message{ID: "2", Channel: ChannelSMS, Recipient: "+27821234567", Body: "Second", CreatedAt: time.Now(), Status: StatusFailed})
	_, body = get(t, srv.URL+"/dev/outbox")
	if strings.Contains(body, "<script>alert") || !strings.Contains(body, "&lt;script&gt;") {
		t.Error("a message body is not escaped")
	}
	if strings.Index(body, "Second") > strings.Index(body, "First") {
		t.Error("the page is not newest first")
	}
	for _, want := range []string{`<pre>Second</pre>`, `class="failed">failed`, `<label for="fail-number">`, `id="fail-number"`, `<label for="fail-mode">`, `<label for="fail-seconds">`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
}

func TestFailuresAPI(t *testing.T) {
	t.Parallel()
	srv, _, failures := startTestDevTools(t)
	do := func(method, body string, header ...string) (*http.Response, string) {
		req, _ := http.NewRequestWithContext(t.Context(), method, srv.URL+"/dev/sms/failures", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	now := time.Now()
	if resp, body := do(http.MethodPost, `{"number":"+27821234567","mode":"permanent"}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if resp, body := do(http.MethodPost, `{"number":"0825550111","mode":"transient","seconds":30}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if failures.Mode("+27821234567", now.Add(time.Hour)) != FailPermanent {
		t.Error("the permanent failure is not in force")
	}
	if failures.Mode("+27825550111", now) != FailTransient || failures.Mode("+27825550111", now.Add(31*time.Second)) != "" {
		t.Error("the transient failure does not last 30 s")
	}
	for _, bad := range []string{`{"number":"12","mode":"permanent"}`, `{"number":"+27821234567","mode":"sometimes"}`, `nope`} {
		if resp, body := do(http.MethodPost, bad); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d %s", bad, resp.StatusCode, body)
		}
	}
	// Another site's page cannot change them.
	if resp, _ := do(http.MethodDelete, "", "Sec-Fetch-Site", "cross-site"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site DELETE: %d", resp.StatusCode)
	}
	_, body := get(t, srv.URL+"/dev/sms/failures")
	if !strings.Contains(body, `"+27821234567"`) {
		t.Errorf("GET failures: %s", body)
	}
	if resp, _ := do(http.MethodDelete, ""); resp.StatusCode != http.StatusNoContent || resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("DELETE: %d", resp.StatusCode)
	}
	if n := len(failures.List(now)); n != 0 {
		t.Errorf("%d failures after DELETE", n)
	}
}

func TestFailuresForm(t *testing.T) {
	t.Parallel()
	srv, _, failures := startTestDevTools(t)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(form url.Values, fetchSite string) *http.Response {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/dev/sms/failures", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", fetchSite)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	resp := post(url.Values{"number": {"082 123 4567"}, "mode": {"permanent"}, "seconds": {"0"}}, "same-origin")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(resp.Header.Get("Location"), "/dev/outbox") {
		t.Fatalf("form: %d %s", resp.StatusCode, resp.Header.Get("Location"))
	}
	if failures.Mode("+27821234567", time.Now()) != FailPermanent {
		t.Error("the form did not set the failure")
	}
	_, page := get(t, srv.URL+resp.Header.Get("Location"))
	if !strings.Contains(page, "27821234567: permanent until cleared") || !strings.Contains(page, `role="status"`) {
		t.Errorf("the page does not show the failure: %s", page)
	}
	if resp := post(url.Values{"number": {"+27829999999"}, "mode": {"transient"}}, "cross-site"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site form: %d", resp.StatusCode)
	}
	if resp := post(url.Values{"clear": {"1"}}, "same-origin"); resp.StatusCode != http.StatusSeeOther || len(failures.List(time.Now())) != 0 {
		t.Errorf("clear: %d, %v", resp.StatusCode, failures.List(time.Now()))
	}
}
