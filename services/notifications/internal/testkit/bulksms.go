package testkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thumela/thumela/services/notifications/internal/adapters/bulksms"
)

// BulkSMS is the BulkSMS JSON API v1 for tests, as documented: Basic auth, POST
// /v1/messages with deduplication-id (a repeat answers as the first submission and sends
// nothing new), GET /v1/messages?filter=userSuppliedId=…, problem-JSON errors, and delivery
// reports posted to a webhook. A number can be made to fail for good (400, invalid number),
// for a while (503), or be accepted and then reported FAILED.
type BulkSMS struct {
	URL                  string // the API's base, …/v1
	TokenID, TokenSecret string

	mu          sync.Mutex
	seq         int
	sent        []bulksms.Message          // messages accepted, one per real submission
	submissions map[string]int             // number → accepted POSTs, repeats included
	dedup       map[string]bulksms.Message // deduplication-id → the first answer
	invalid     map[string]bool            // number → 400
	unavailable map[string]int             // number → 503s left
	reportFail  map[string]bool            // number → accepted, then FAILED.NOT_SENT
	drop        map[string]int             // number → accepted, answer lost, times left
	webhook     string                     // where reports go; "" sends none
	autoReport  bool
	reports     []error
	changed     chan struct{}
	done        chan struct{} // closed when the test ends: report retries stop
}

// StartBulkSMS starts the API on a loopback port; it stops when the test ends.
func StartBulkSMS(t testing.TB) *BulkSMS {
	t.Helper()
	b := &BulkSMS{
		TokenID: "token-id", TokenSecret: "token-secret",
		submissions: map[string]int{}, dedup: map[string]bulksms.Message{},
		invalid: map[string]bool{}, unavailable: map[string]int{}, reportFail: map[string]bool{},
		drop:    map[string]int{},
		changed: make(chan struct{}), done: make(chan struct{}),
	}
	t.Cleanup(func() { close(b.done) })
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", b.send)
	mux.HandleFunc("GET /v1/messages", b.find)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	b.URL = srv.URL + "/v1"
	return b
}

// ReportTo makes the API post a delivery report for every accepted message to url: DELIVERED,
// or FAILED.NOT_SENT for a number set with FailReport.
func (b *BulkSMS) ReportTo(url string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.webhook, b.autoReport = url, true
}

// Invalid makes the API refuse number with 400 (invalid number) from now on.
func (b *BulkSMS) Invalid(number string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.invalid[number] = true
}

// Unavailable makes the API answer 503 for number the next n times.
func (b *BulkSMS) Unavailable(number string, n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.unavailable[number] = n
}

// FailReport makes the API accept number's messages and then report them FAILED.NOT_SENT.
func (b *BulkSMS) FailReport(number string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reportFail[number] = true
}

// AcceptThenDrop makes the API accept number's next n submissions and then cut the
// connection before answering, as a network failure after the provider took the message.
func (b *BulkSMS) AcceptThenDrop(number string, n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.drop[number] = n
}

// Sent returns the messages really sent to number (a deduplicated repeat is not one).
func (b *BulkSMS) Sent(number string) []bulksms.Message {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []bulksms.Message
	for _, m := range b.sent {
		if string(m.To) == number {
			out = append(out, m)
		}
	}
	return out
}

// Submissions is how many submissions for number the API answered 201, repeats included.
func (b *BulkSMS) Submissions(number string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.submissions[number]
}

// WaitSent waits until n messages were sent to number and returns them.
func (b *BulkSMS) WaitSent(t testing.TB, number string, n int, within time.Duration) []bulksms.Message {
	t.Helper()
	deadline := time.After(within)
	for {
		b.mu.Lock()
		ch := b.changed
		b.mu.Unlock()
		if got := b.Sent(number); len(got) >= n {
			return got
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("%d SMS to %s after %s, want %d", len(b.Sent(number)), number, within, n)
		}
	}
}

// ReportErrors are the failures of posting reports to the webhook.
func (b *BulkSMS) ReportErrors() []error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]error(nil), b.reports...)
}

func problem(w http.ResponseWriter, status int, typ, title, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(bulksms.Problem{
		Type: "https://developer.bulksms.com/json/v1/errors#" + typ, Title: title, Status: status, Detail: detail,
	})
}

func (b *BulkSMS) authorized(w http.ResponseWriter, r *http.Request) bool {
	id, secret, ok := r.BasicAuth()
	if !ok || id != b.TokenID || secret != b.TokenSecret {
		problem(w, http.StatusUnauthorized, "authentication-failed", "Authentication Failed", "bad credentials")
		return false
	}
	return true
}

func (b *BulkSMS) send(w http.ResponseWriter, r *http.Request) {
	if !b.authorized(w, r) {
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		problem(w, http.StatusUnsupportedMediaType, "unsupported-media-type", "Unsupported Media Type", ct)
		return
	}
	var entries []bulksms.SubmissionEntry
	if err := json.NewDecoder(r.Body).Decode(&entries); err != nil || len(entries) != 1 {
		problem(w, http.StatusBadRequest, "invalid-request", "Bad Request", "want one submission entry")
		return
	}
	e := entries[0]
	dedupID := r.URL.Query().Get("deduplication-id")
	if dedupID != "" {
		if _, err := strconv.ParseInt(dedupID, 10, 32); err != nil {
			problem(w, http.StatusBadRequest, "invalid-request", "Bad Request", "deduplication-id is not an int32")
			return
		}
	}

	b.mu.Lock()
	if b.unavailable[e.To] > 0 {
		b.unavailable[e.To]--
		b.mu.Unlock()
		w.Header().Set("Retry-After", "1")
		problem(w, http.StatusServiceUnavailable, "service-unavailable", "Service Unavailable", "try again")
		return
	}
	if b.invalid[e.To] {
		b.mu.Unlock()
		problem(w, http.StatusBadRequest, "invalid-number", "Bad Request", "The number "+e.To+" is not valid")
		return
	}
	b.submissions[e.To]++
	m, repeat := b.dedup[dedupID]
	if !repeat || dedupID == "" {
		b.seq++
		m = bulksms.Message{ID: fmt.Sprintf("%d", 1000000+b.seq), Type: "SENT", From: bulksms.Text(e.From), To: bulksms.Text(e.To), Body: bulksms.Text(e.Body),
			Encoding: "TEXT", UserSuppliedID: e.UserSuppliedID,
			Status: bulksms.Status{ID: "ACCEPTED.null", Type: "ACCEPTED"}}
		m.Submission.ID = fmt.Sprintf("sub-%d", b.seq)
		m.Submission.Date = time.Now().UTC().Format(time.RFC3339)
		b.sent = append(b.sent, m)
		if dedupID != "" {
			b.dedup[dedupID] = m
		}
	}
	webhook, auto, fail := b.webhook, b.autoReport, b.reportFail[e.To]
	dropIt := b.drop[e.To] > 0
	if dropIt {
		b.drop[e.To]--
	}
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()

	if dropIt {
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = conn.Close()
		}
		return
	}

	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode([]bulksms.Message{m})
	if auto && webhook != "" && !repeat {
		status := "DELIVERED"
		if fail {
			status = "FAILED.NOT_SENT"
		}
		go func() {
			// After the answer, as a handset's report would be; like BulkSMS, retried until the
			// webhook answers 2xx (for a while).
			var err error
			for range 100 {
				time.Sleep(20 * time.Millisecond)
				if err = b.PostReport(webhook, m, status); err == nil {
					return
				}
				select {
				case <-b.done:
					return
				case <-time.After(200 * time.Millisecond):
				}
			}
			b.mu.Lock()
			b.reports = append(b.reports, err)
			b.mu.Unlock()
		}()
	}
}

func (b *BulkSMS) find(w http.ResponseWriter, r *http.Request) {
	if !b.authorized(w, r) {
		return
	}
	filter := r.URL.Query().Get("filter")
	want, ok := strings.CutPrefix(filter, "userSuppliedId=")
	if !ok {
		problem(w, http.StatusBadRequest, "invalid-request", "Bad Request", "unsupported filter")
		return
	}
	b.mu.Lock()
	out := []bulksms.Message{}
	for _, m := range b.sent {
		if m.UserSuppliedID == want {
			out = append(out, m)
		}
	}
	b.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// PostReport posts one delivery report about m to url, status "TYPE" or "TYPE.SUBTYPE", as
// BulkSMS's webhook does; it fails unless the webhook answers 2xx.
func (b *BulkSMS) PostReport(url string, m bulksms.Message, status string) error {
	return PostReports(url, WithStatus(m, status))
}

// WithStatus is m as a report of status: "DELIVERED", "FAILED.HANDSET_ERROR", ….
func WithStatus(m bulksms.Message, status string) bulksms.Message {
	typ, sub, _ := strings.Cut(status, ".")
	m.Status = bulksms.Status{ID: status, Type: typ}
	if sub != "" {
		m.Status.Subtype = &sub
	} else {
		m.Status.ID = typ + ".null"
	}
	return m
}

// PostReports posts msgs to url as one webhook call.
func PostReports(url string, msgs ...bulksms.Message) error {
	body, err := json.Marshal(msgs)
	if err != nil {
		return err
	}
	res, err := PostRaw(url, body)
	if err != nil {
		return err
	}
	if res/100 != 2 {
		return fmt.Errorf("webhook answered %d", res)
	}
	return nil
}

// PostRaw posts body to url with BulkSMS's webhook headers and returns the status.
func PostRaw(url string, body []byte) (int, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "BulkSMS Invoker")
	req.Header.Set("X-BulkSMS-Event", "status-report")
	req.Header.Set("X-BulkSMS-Delivery", strconv.FormatInt(time.Now().UnixNano(), 10))
	req.Header.Set("X-BulkSMS-Delivery-Attempt", "1")
	req.Header.Set("X-BulkSMS-Webhook-Id", "42")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	res.Body.Close()
	return res.StatusCode, nil
}
