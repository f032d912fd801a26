package devsinks

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	testTokenID     = "dev-token-id"
	testTokenSecret = "dev-token-secret"
)

// webhook records the status reports it receives; it answers each with the next of codes
// (200 once they run out).
type webhook struct {
	mu      sync.Mutex
	reports []report
	codes   []int
}

type report struct {
	header   http.Header
	messages []smsMessage
}

func (wh *webhook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var msgs []smsMessage
	_ = json.NewDecoder(r.Body).Decode(&msgs)
	wh.mu.Lock()
	wh.reports = append(wh.reports, report{header: r.Header.Clone(), messages: msgs})
	code := http.StatusOK
	if len(wh.codes) > 0 {
		code, wh.codes = wh.codes[0], wh.codes[1:]
	}
	wh.mu.Unlock()
	w.WriteHeader(code)
}

func (wh *webhook) got() []report {
	wh.mu.Lock()
	defer wh.mu.Unlock()
	return append([]report(nil), wh.reports...)
}

// messages is every status report received, in the order they arrived, whichever call carried
// them.
func (wh *webhook) messages() []smsMessage {
	var all []smsMessage
	for _, r := range wh.got() {
		all = append(all, r.messages...)
	}
	return all
}

type bulkEnv struct {
	api      *httptest.Server
	outbox   *Outbox
	failures *Failures
	hook     *webhook
}

func startTestBulkSMS(t *testing.T, codes ...int) *bulkEnv {
	t.Helper()
	return startTestBulkSMSWith(t, BulkSMSConfig{}, codes...)
}

// startTestBulkSMSWith starts the stand-in with cfg's report window, its other settings the
// tests' own.
func startTestBulkSMSWith(t *testing.T, cfg BulkSMSConfig, codes ...int) *bulkEnv {
	t.Helper()
	e := &bulkEnv{outbox: NewOutbox(nil, 100), failures: NewFailures(), hook: &webhook{codes: codes}}
	hookSrv := httptest.NewServer(e.hook)
	t.Cleanup(hookSrv.Close)
	b, err := NewBulkSMS(BulkSMSConfig{
		TokenID: testTokenID, TokenSecret: testTokenSecret, WebhookURL: hookSrv.URL + "/webhooks/bulksms/tok",
		Outbox: e.outbox, Failures: e.failures,
		SentAfter: 50 * time.Millisecond, DeliveredAfter: 150 * time.Millisecond, RetryBase: 50 * time.Millisecond,
		ReportWindow: cfg.ReportWindow,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.api = httptest.NewServer(b)
	t.Cleanup(func() { e.api.Close(); b.Close() })
	return e
}

// call makes one API request with the token, as notifications' adapter does.
func (e *bulkEnv) call(t *testing.T, method, path string, body any) (int, []byte, http.Header) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, e.api.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(testTokenID, testTokenSecret)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out, resp.Header
}

func entry(to, body, userSuppliedID string) map[string]any {
	return map[string]any{"to": to, "body": body, "userSuppliedId": userSuppliedID, "deliveryReports": "ALL"}
}

func decodeMessages(t *testing.T, b []byte) []smsMessage {
	t.Helper()
	var msgs []smsMessage
	if err := json.Unmarshal(b, &msgs); err != nil {
		t.Fatalf("not an array of Message: %v: %s", err, b)
	}
	return msgs
}

func checkProblem(t *testing.T, status int, body []byte, header http.Header, want int) {
	t.Helper()
	if status != want {
		t.Fatalf("status %d, want %d: %s", status, want, body)
	}
	var p struct {
		Type   string `json:"type"`
		Title  string `json:"title"`
		Status int    `json:"status"`
		Detail string `json:"detail"`
	}
	if err := json.Unmarshal(body, &p); err != nil || !strings.HasPrefix(p.Type, problemBase) || p.Title == "" || p.Status != want {
		t.Errorf("not a BulkSMS problem JSON (%v): %s", err, body)
	}
	if ct := header.Get("Content-Type"); !strings.Contains(ct, "json") {
		t.Errorf("Content-Type %q", ct)
	}
}

func waitFor(t *testing.T, what string, timeout time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestBulkSMSAuth(t *testing.T) {
	t.Parallel()
	e := startTestBulkSMS(t)
	for name, set := range map[string]func(*http.Request){
		"none":         func(*http.Request) {},
		"wrong secret": func(r *http.Request) { r.SetBasicAuth(testTokenID, "nope") },
		"wrong id":     func(r *http.Request) { r.SetBasicAuth("nope", testTokenSecret) },
	} {
		req, _ := http.NewRequest(http.MethodPost, e.api.URL+"/v1/messages", strings.NewReader(`[{"to":"+27821234567","body":"x"}]`))
		set(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Run(name, func(t *testing.T) { checkProblem(t, resp.StatusCode, body, resp.Header, http.StatusUnauthorized) })
	}
	if n := len(e.outbox.Messages()); n != 0 {
		t.Errorf("%d messages sent without auth", n)
	}
}

func TestBulkSMSSendThenReportsSentAndDelivered(t *testing.T) {
	t.Parallel()
	e := startTestBulkSMS(t)
	status, body, _ := e.call(t, http.MethodPost, "/v1/messages?deduplication-id=41", []any{entry("+27821234567", "Thumela: your voucher", "thm42")})
	if status != http.StatusCreated {
		t.Fatalf("status %d: %s", status, body)
	}
	// The documented shape, including "subtype": null.
	var raw []map[string]any
	_ = json.Unmarshal(body, &raw)
	if len(raw) != 1 {
		t.Fatalf("answer %s", body)
	}
	st, _ := raw[0]["status"].(map[string]any)
	if sub, present := st["subtype"]; !present || sub != nil || st["id"] != "ACCEPTED.null" || st["type"] != "ACCEPTED" {
		t.Errorf("status %v, want ACCEPTED.null with a null subtype", st)
	}
	m := decodeMessages(t, body)[0]
	if m.ID == "" || m.Type != "SENT" || m.To != "+27821234567" || m.Body != "Thumela: your voucher" || m.UserSuppliedID != "thm42" ||
		m.Encoding != "TEXT" || m.Submission.ID == "" || m.Submission.Date == "" {
		t.Errorf("message %+v", m)
	}
	if _, err := time.Parse(time.RFC3339, m.Submission.Date); err != nil {
		t.Errorf("submission date %q: %v", m.Submission.Date, err)
	}

	waitFor(t, "two status reports", 3*time.Second, func() bool { return len(e.hook.messages()) >= 2 })
	reports := e.hook.messages()
	for i, want := range []string{"SENT.null", "DELIVERED.null"} {
		r := reports[i]
		if r.ID != m.ID || r.Status.ID != want || r.UserSuppliedID != "thm42" {
			t.Errorf("report %d: %+v, want %s of %s", i, r, want, m.ID)
		}
	}
	for i, r := range e.hook.got() {
		h := r.header
		if h.Get("X-BulkSMS-Event") != "status-report" || h.Get("User-Agent") != "BulkSMS Invoker" ||
			h.Get("X-BulkSMS-Delivery") == "" || h.Get("X-BulkSMS-Delivery-Attempt") != "1" ||
			h.Get("X-BulkSMS-Webhook-Id") == "" || h.Get("Content-Type") != "application/json" {
			t.Errorf("call %d headers %v", i, h)
		}
	}
	waitFor(t, "the outbox to show delivered", time.Second, func() bool {
		msgs := e.outbox.Messages()
		return len(msgs) == 1 && msgs[0].Status == StatusDelivered
	})
	got := e.outbox.Messages()[0]
	if got.Channel != ChannelSMS || got.Recipient != "+27821234567" || got.Body != "Thumela: your voucher" || got.Subject != "" || got.Template != "" {
		t.Errorf("outbox %+v", got)
	}

	// The look-up by userSuppliedId finds it with its final status.
	status, body, _ = e.call(t, http.MethodGet, "/v1/messages?filter="+url.QueryEscape("userSuppliedId=thm42"), nil)
	if found := decodeMessages(t, body); status != http.StatusOK || len(found) != 1 || found[0].ID != m.ID || found[0].Status.ID != "DELIVERED.null" {
		t.Errorf("look-up: %d %s", status, body)
	}
	status, body, _ = e.call(t, http.MethodGet, "/v1/messages?filter="+url.QueryEscape("userSuppliedId=thm999"), nil)
	if status != http.StatusOK || strings.TrimSpace(string(body)) != "[]" {
		t.Errorf("look-up of an unknown id: %d %s", status, body)
	}
}

func TestBulkSMSSingleEntryAndDefaultReports(t *testing.T) {
	t.Parallel()
	e := startTestBulkSMS(t)
	// One SubmissionEntry, not an array; without deliveryReports BulkSMS reports errors only.
	status, body, _ := e.call(t, http.MethodPost, "/v1/messages", map[string]any{"to": "+27821234567", "body": "hello"})
	if status != http.StatusCreated || len(decodeMessages(t, body)) != 1 {
		t.Fatalf("status %d: %s", status, body)
	}
	waitFor(t, "delivery", time.Second, func() bool { return e.outbox.Messages()[0].Status == StatusDelivered })
	time.Sleep(100 * time.Millisecond)
	if n := len(e.hook.got()); n != 0 {
		t.Errorf("%d reports for a message that asked only for errors", n)
	}
}

func TestBulkSMSDeduplicationID(t *testing.T) {
	t.Parallel()
	e := startTestBulkSMS(t)
	sub := []any{entry("+27821234567", "once only", "thm7")}
	s1, b1, _ := e.call(t, http.MethodPost, "/v1/messages?deduplication-id=7", sub)
	s2, b2, _ := e.call(t, http.MethodPost, "/v1/messages?deduplication-id=7", sub)
	if s1 != http.StatusCreated || s2 != http.StatusCreated || !bytes.Equal(b1, b2) {
		t.Fatalf("first %d %s, resubmission %d %s: want the same answer", s1, b1, s2, b2)
	}
	// Another id is another submission.
	s3, b3, _ := e.call(t, http.MethodPost, "/v1/messages?deduplication-id=8", sub)
	if s3 != http.StatusCreated || bytes.Equal(b1, b3) {
		t.Fatalf("another id: %d %s", s3, b3)
	}
	if n := len(e.outbox.Messages()); n != 2 {
		t.Errorf("%d messages sent, want 2 (the resubmission sends nothing)", n)
	}
	waitFor(t, "reports", 2*time.Second, func() bool { return len(e.hook.messages()) >= 4 })
	time.Sleep(100 * time.Millisecond)
	if n := len(e.hook.messages()); n != 4 {
		t.Errorf("%d reports, want 4 (SENT and DELIVERED of two messages)", n)
	}
	status, body, _ := e.call(t, http.MethodPost, "/v1/messages?deduplication-id=x", sub)
	checkProblem(t, status, body, http.Header{"Content-Type": {"json"}}, http.StatusBadRequest)
}

func TestBulkSMSValidation(t *testing.T) {
	t.Parallel()
	e := startTestBulkSMS(t)
	for name, sub := range map[string]any{
		"invalid number":         []any{entry("0821234567", "x", "")},
		"letters":                []any{entry("+27abc", "x", "")},
		"one bad in a batch":     []any{entry("+27821234567", "x", ""), entry("12", "x", "")},
		"no body":                []any{map[string]any{"to": "+27821234567"}},
		"empty body":             []any{entry("+27821234567", "", "")},
		"no to":                  []any{map[string]any{"body": "x"}},
		"long userSuppliedId":    []any{entry("+27821234567", "x", strings.Repeat("9", 21))},
		"bad deliveryReports":    []any{map[string]any{"to": "+27821234567", "body": "x", "deliveryReports": "SOME"}},
		"empty array":            []any{},
		"not JSON":               "just text",
		"eleven parts of a body": []any{entry("+27821234567", strings.Repeat("a", 153*10+1), "")},
	} {
		status, body, h := e.call(t, http.MethodPost, "/v1/messages?deduplication-id=1", sub)
		t.Run(name, func(t *testing.T) { checkProblem(t, status, body, h, http.StatusBadRequest) })
	}
	if n := len(e.outbox.Messages()); n != 0 {
		t.Errorf("%d messages sent from refused submissions", n)
	}
	// A refused submission does not spend its deduplication-id.
	status, body, _ := e.call(t, http.MethodPost, "/v1/messages?deduplication-id=1", []any{entry("+27821234567", "fine", "")})
	if status != http.StatusCreated {
		t.Errorf("after refusals: %d %s", status, body)
	}
}

func TestBulkSMSPermanentFailure(t *testing.T) {
	t.Parallel()
	e := startTestBulkSMS(t)
	if _, err := e.failures.Set("082 555 0100", FailPermanent, 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	status, body, _ := e.call(t, http.MethodPost, "/v1/messages", []any{entry("+27825550100", "never arrives", "thm1")})
	if status != http.StatusCreated {
		t.Fatalf("a permanently failing number is still accepted: %d %s", status, body)
	}
	waitFor(t, "the failure report", 2*time.Second, func() bool { return len(e.hook.got()) >= 1 })
	time.Sleep(250 * time.Millisecond) // no DELIVERED follows
	reports := e.hook.got()
	if len(reports) != 1 {
		t.Fatalf("%d reports, want one FAILED", len(reports))
	}
	st := reports[0].messages[0].Status
	if st.ID != "FAILED.NOT_SENT" || st.Type != "FAILED" || st.Subtype == nil || *st.Subtype != "NOT_SENT" {
		t.Errorf("report status %+v", st)
	}
	if got := e.outbox.Messages()[0].Status; got != StatusFailed {
		t.Errorf("outbox status %q", got)
	}
}

func TestBulkSMSTransientFailure(t *testing.T) {
	t.Parallel()
	e := startTestBulkSMS(t)
	if _, err := e.failures.Set("+27825550111", FailTransient, 400*time.Millisecond, time.Now()); err != nil {
		t.Fatal(err)
	}
	sub := []any{entry("+27825550111", "later", "thm2")}
	status, body, h := e.call(t, http.MethodPost, "/v1/messages?deduplication-id=2", sub)
	checkProblem(t, status, body, h, http.StatusServiceUnavailable)
	// Another number is not affected.
	if status, body, _ := e.call(t, http.MethodPost, "/v1/messages", []any{entry("+27821234567", "now", "")}); status != http.StatusCreated {
		t.Errorf("another number: %d %s", status, body)
	}
	time.Sleep(450 * time.Millisecond)
	status, body, _ = e.call(t, http.MethodPost, "/v1/messages?deduplication-id=2", sub)
	if status != http.StatusCreated {
		t.Fatalf("after the failure's time: %d %s", status, body)
	}
	if n := len(e.outbox.Messages()); n != 2 {
		t.Errorf("%d messages, want 2", n)
	}
}

func TestBulkSMSRetriesAReportUntilAcknowledged(t *testing.T) {
	t.Parallel()
	e := startTestBulkSMS(t, http.StatusInternalServerError, http.StatusServiceUnavailable)
	if status, body, _ := e.call(t, http.MethodPost, "/v1/messages", []any{entry("+27821234567", "retry me", "thm3")}); status != http.StatusCreated {
		t.Fatalf("%d %s", status, body)
	}
	waitFor(t, "the SENT report acknowledged and DELIVERED", 3*time.Second, func() bool { return len(e.hook.got()) >= 4 })
	// The call with the SENT report is answered 500, 503, then 200: its third attempt, under
	// the same X-BulkSMS-Delivery; DELIVERED comes in a call of its own, which may overtake
	// those retries (the webhook never moves a delivery backwards).
	attempts := map[string][]string{} // by X-BulkSMS-Delivery
	var sentCall, deliveredCall string
	for _, r := range e.hook.got() {
		d := r.header.Get("X-BulkSMS-Delivery")
		attempts[d] = append(attempts[d], r.header.Get("X-BulkSMS-Delivery-Attempt"))
		switch r.messages[0].Status.ID {
		case "SENT.null":
			sentCall = d
		case "DELIVERED.null":
			deliveredCall = d
		}
	}
	if got := strings.Join(attempts[sentCall], ","); got != "1,2,3" {
		t.Errorf("the SENT report's attempts %s, want 1,2,3 under one X-BulkSMS-Delivery", got)
	}
	if got := strings.Join(attempts[deliveredCall], ","); deliveredCall == sentCall || got != "1" {
		t.Errorf("the DELIVERED report's attempts %s, want 1 in a call of its own", got)
	}
}

// Reports due within the window go in one call, each message's in the order of its changes.
func TestBulkSMSBatchesReports(t *testing.T) {
	t.Parallel()
	e := startTestBulkSMSWith(t, BulkSMSConfig{ReportWindow: 2 * time.Second})
	status, body, _ := e.call(t, http.MethodPost, "/v1/messages", []any{
		entry("+27821234567", "one", "thm1"), entry("+27821234568", "two", "thm2")})
	if status != http.StatusCreated {
		t.Fatalf("%d %s", status, body)
	}
	waitFor(t, "the reports", 5*time.Second, func() bool { return len(e.hook.got()) >= 1 })
	calls := e.hook.got()
	if len(calls) != 1 || len(calls[0].messages) != 4 {
		t.Fatalf("%d calls, the first with %d reports: want one call with the SENT and DELIVERED of both", len(calls), len(calls[0].messages))
	}
	seen := map[string]string{}
	for _, m := range calls[0].messages {
		want := map[string]string{"": "SENT.null", "SENT.null": "DELIVERED.null"}[seen[m.UserSuppliedID]]
		if m.Status.ID != want {
			t.Errorf("%s: %s after %q", m.UserSuppliedID, m.Status.ID, seen[m.UserSuppliedID])
		}
		seen[m.UserSuppliedID] = m.Status.ID
	}
}

func TestNormalizeNumber(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"+27821234567":    "+27821234567",
		"082 123 4567":    "+27821234567",
		"27821234567":     "+27821234567",
		"0027821234567":   "+27821234567",
		"(082) 123-4567":  "+27821234567",
		"+4420 7946 0958": "+442079460958",
	} {
		if got, ok := NormalizeNumber(in); !ok || got != want {
			t.Errorf("NormalizeNumber(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "12", "+0821234567", "phone"} {
		if got, ok := NormalizeNumber(in); ok {
			t.Errorf("NormalizeNumber(%q) = %q, accepted", in, got)
		}
	}
}
