package devsinks

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// The stand-in implements this subset of the BulkSMS JSON REST API v1, as documented:
//
//	POST /v1/messages[?deduplication-id=<int32>]   submit (a JSON array of SubmissionEntry, or one)
//	GET  /v1/messages?filter=userSuppliedId%3D<id>  look up sent messages
//	GET  /v1/messages/{id}                          one message
//
// with HTTP Basic auth by API token, problem-JSON errors, and status reports POSTed to the
// registered webhook as BulkSMS's webhook invoker does.

// BulkSMS status types and the one failure subtype the stand-in produces.
const (
	smsAccepted  = "ACCEPTED"
	smsSent      = "SENT"
	smsDelivered = "DELIVERED"
	smsFailed    = "FAILED"
	smsNotSent   = "NOT_SENT"
)

// Delivery-report choices of a SubmissionEntry.
const (
	reportsAll    = "ALL"
	reportsErrors = "ERRORS"
	reportsNone   = "NONE"
)

const (
	problemBase = "https://developer.bulksms.com/json/v1/errors#"
	// dedupWindow is how long a deduplication-id is remembered (BulkSMS: about 12 hours).
	dedupWindow = 12 * time.Hour
	// maxParts bounds a long message (BulkSMS's longMessageMaxParts).
	maxParts = 10
	// maxUserSuppliedID is the longest userSuppliedId the API takes.
	maxUserSuppliedID = 20
	maxSubmission     = 1 << 20
	// webhookID names the stand-in's one webhook in X-BulkSMS-Webhook-Id.
	webhookID = "devstack-1"
	// reportBatch is the most status reports one webhook call carries, and reportPosters how
	// many calls are in flight at once.
	reportBatch   = 100
	reportPosters = 4
)

// BulkSMSConfig configures the stand-in.
type BulkSMSConfig struct {
	// TokenID and TokenSecret are the API token Basic auth must carry.
	TokenID, TokenSecret string
	// WebhookURL receives the status reports; none are sent when empty.
	WebhookURL string
	Outbox     *Outbox
	Failures   *Failures
	Logger     *slog.Logger
	// SentAfter and DeliveredAfter are when, after acceptance, a message becomes SENT and then
	// DELIVERED (FAILED.NOT_SENT at SentAfter for a number failing permanently). Defaults:
	// 100 ms and 300 ms.
	SentAfter, DeliveredAfter time.Duration
	// ReportWindow is how long a status report waits for others to go in the same webhook
	// call: BulkSMS's invoker posts a JSON array of messages, and under load carries many in
	// one call. Default 50 ms.
	ReportWindow time.Duration
	// RetryBase is the first wait before a status report is posted again after a non-2xx
	// answer; it doubles up to a minute, for ReportAttempts attempts in all. Defaults: 1 s, 10.
	RetryBase      time.Duration
	ReportAttempts int
	// Client posts the reports; a client with a 10 s timeout by default.
	Client *http.Client
}

// BulkSMS is the stand-in's state and its HTTP handler (mount it at the root: its paths start
// with /v1/).
type BulkSMS struct {
	cfg    BulkSMSConfig
	logger *slog.Logger
	mux    *http.ServeMux

	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	reports chan smsMessage // status reports due, for the posters

	mu       sync.Mutex
	nextID   int64
	messages map[string]*smsMessage // by id
	order    []string               // ids, oldest first
	dedup    map[int32]dedupEntry
}

type dedupEntry struct {
	body []byte
	at   time.Time
}

// smsMessage is BulkSMS's Message object.
type smsMessage struct {
	ID             string        `json:"id"`
	Type           string        `json:"type"`
	From           string        `json:"from"`
	To             string        `json:"to"`
	Body           string        `json:"body"`
	Encoding       string        `json:"encoding"`
	ProtocolID     int           `json:"protocolId"`
	MessageClass   int           `json:"messageClass"`
	NumberOfParts  int           `json:"numberOfParts"`
	CreditCost     float64       `json:"creditCost"`
	UserSuppliedID string        `json:"userSuppliedId,omitempty"`
	Submission     smsSubmission `json:"submission"`
	Status         smsStatus     `json:"status"`

	reports string // ALL, ERRORS or NONE: which status changes are reported
}

type smsSubmission struct {
	ID   string `json:"id"`
	Date string `json:"date"`
}

type smsStatus struct {
	ID      string  `json:"id"`
	Type    string  `json:"type"`
	Subtype *string `json:"subtype"`
}

func newStatus(typ, subtype string) smsStatus {
	if subtype == "" {
		return smsStatus{ID: typ + ".null", Type: typ}
	}
	return smsStatus{ID: typ + "." + subtype, Type: typ, Subtype: &subtype}
}

// submissionEntry is BulkSMS's SubmissionEntry, as far as the stand-in reads it. "to" is a
// number or an array of numbers.
type submissionEntry struct {
	To              json.RawMessage `json:"to"`
	Body            *string         `json:"body"`
	From            string          `json:"from"`
	Encoding        string          `json:"encoding"`
	UserSuppliedID  string          `json:"userSuppliedId"`
	DeliveryReports string          `json:"deliveryReports"`
}

// NewBulkSMS makes the stand-in. Close stops its status reports.
func NewBulkSMS(cfg BulkSMSConfig) (*BulkSMS, error) {
	if cfg.TokenID == "" || cfg.TokenSecret == "" || cfg.Outbox == nil {
		return nil, errors.New("devsinks: the BulkSMS stand-in needs a token id, a token secret and an outbox")
	}
	if cfg.Failures == nil {
		cfg.Failures = NewFailures()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.SentAfter <= 0 {
		cfg.SentAfter = 100 * time.Millisecond
	}
	if cfg.DeliveredAfter <= cfg.SentAfter {
		cfg.DeliveredAfter = cfg.SentAfter + 200*time.Millisecond
	}
	if cfg.ReportWindow <= 0 {
		cfg.ReportWindow = 50 * time.Millisecond
	}
	if cfg.RetryBase <= 0 {
		cfg.RetryBase = time.Second
	}
	if cfg.ReportAttempts <= 0 {
		cfg.ReportAttempts = 10
	}
	if cfg.Client == nil {
		// Reports go out on reportPosters calls at once: net/http's default keeps only two
		// idle connections per host, so the others would dial (and the webhook accept) a
		// connection each.
		transport := http.DefaultTransport.(*http.Transport).Clone()
		transport.MaxIdleConnsPerHost = reportPosters
		cfg.Client = &http.Client{Timeout: 10 * time.Second, Transport: transport}
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &BulkSMS{
		cfg: cfg, logger: cfg.Logger, ctx: ctx, cancel: cancel,
		// Ids keep growing across restarts of the stack, so a report never names a message of
		// an earlier run that notifications may still have on record.
		nextID:   time.Now().UnixMicro(),
		messages: map[string]*smsMessage{},
		dedup:    map[int32]dedupEntry{},
		reports:  make(chan smsMessage, 4*reportBatch),
	}
	if cfg.WebhookURL != "" {
		b.wg.Go(b.postReports)
	}
	b.mux = http.NewServeMux()
	b.mux.HandleFunc("POST /v1/messages", b.submit)
	b.mux.HandleFunc("GET /v1/messages", b.list)
	b.mux.HandleFunc("GET /v1/messages/{id}", b.one)
	return b, nil
}

// Close stops the status reports in flight and waits for them.
func (b *BulkSMS) Close() {
	b.cancel()
	b.wg.Wait()
	b.cfg.Client.CloseIdleConnections()
}

// ServeHTTP authenticates and routes.
func (b *BulkSMS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, secret, ok := r.BasicAuth()
	if !ok || subtle.ConstantTimeCompare([]byte(id), []byte(b.cfg.TokenID))&
		subtle.ConstantTimeCompare([]byte(secret), []byte(b.cfg.TokenSecret)) != 1 {
		w.Header().Set("WWW-Authenticate", `Basic realm="BulkSMS"`)
		writeProblem(w, http.StatusUnauthorized, "authentication-failed", "Authentication Failed",
			"You need to provide a valid API token or username and password.")
		return
	}
	b.mux.ServeHTTP(w, r)
}

func (b *BulkSMS) submit(w http.ResponseWriter, r *http.Request) {
	var dedupID *int32
	if s := r.URL.Query().Get("deduplication-id"); s != "" {
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			writeProblem(w, http.StatusBadRequest, "bad-request", "Bad Request", "deduplication-id must be a 32-bit integer.")
			return
		}
		id := int32(n)
		dedupID = &id
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxSubmission+1))
	if err != nil || len(raw) > maxSubmission {
		writeProblem(w, http.StatusBadRequest, "bad-request", "Bad Request", "The request body could not be read.")
		return
	}
	now := time.Now()

	// One submission at a time, so that two concurrent ones with the same deduplication-id
	// cannot both be sent.
	b.mu.Lock()
	defer b.mu.Unlock()
	if dedupID != nil {
		b.forgetOldLocked(now)
		if prev, ok := b.dedup[*dedupID]; ok {
			// As documented: the answer of the first submission, and nothing is sent again.
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write(prev.body)
			return
		}
	}
	entries, problem := parseSubmission(raw)
	if problem != "" {
		writeProblem(w, http.StatusBadRequest, "validation", "Validation Failed", problem)
		return
	}
	type planned struct {
		to    string
		entry submissionEntry
		parts int
		enc   string
	}
	var plan []planned
	for i, e := range entries {
		tos, problem := recipients(e.To)
		if problem == "" && (e.Body == nil || *e.Body == "") {
			problem = "body is required"
		}
		enc := strings.ToUpper(e.Encoding)
		if problem == "" {
			switch enc {
			case "":
				enc = "TEXT"
			case "TEXT", "UNICODE":
			default:
				problem = "encoding must be TEXT or UNICODE"
			}
		}
		reports := strings.ToUpper(e.DeliveryReports)
		if problem == "" {
			switch reports {
			case "":
				e.DeliveryReports = reportsErrors // BulkSMS's default
			case reportsAll, reportsErrors, reportsNone:
				e.DeliveryReports = reports
			default:
				problem = "deliveryReports must be ALL, ERRORS or NONE"
			}
		}
		if problem == "" && utf8.RuneCountInString(e.UserSuppliedID) > maxUserSuppliedID {
			problem = fmt.Sprintf("userSuppliedId must be at most %d characters", maxUserSuppliedID)
		}
		var parts int
		if problem == "" {
			if parts = numberOfParts(*e.Body, enc); parts > maxParts {
				problem = fmt.Sprintf("the body needs %d parts, more than the %d allowed", parts, maxParts)
			}
		}
		if problem != "" {
			writeProblem(w, http.StatusBadRequest, "validation", "Validation Failed", fmt.Sprintf("Entry %d: %s.", i, problem))
			return
		}
		for _, to := range tos {
			plan = append(plan, planned{to: to, entry: e, parts: parts, enc: enc})
		}
	}
	// A number failing for a while makes the API unavailable for the submission: the caller
	// learns nothing was sent and retries.
	for _, p := range plan {
		if b.cfg.Failures.Mode(p.to, now) == FailTransient {
			w.Header().Set("Retry-After", "5")
			writeProblem(w, http.StatusServiceUnavailable, "service-unavailable", "Service Unavailable",
				"The service is temporarily unavailable. Please try again later.")
			return
		}
	}

	submissionID := b.newIDLocked()
	date := now.UTC().Format(time.RFC3339)
	out := make([]smsMessage, 0, len(plan))
	var accepted []*smsMessage
	for _, p := range plan {
		m := &smsMessage{
			ID: b.newIDLocked(), Type: smsSent, From: p.entry.From, To: p.to, Body: *p.entry.Body,
			Encoding: p.enc, NumberOfParts: p.parts, CreditCost: float64(p.parts),
			UserSuppliedID: p.entry.UserSuppliedID,
			Submission:     smsSubmission{ID: submissionID, Date: date},
			Status:         newStatus(smsAccepted, ""),
			reports:        p.entry.DeliveryReports,
		}
		b.messages[m.ID] = m
		b.order = append(b.order, m.ID)
		out = append(out, *m)
		accepted = append(accepted, m)
	}
	body, err := json.Marshal(out)
	if err != nil {
		writeProblem(w, http.StatusInternalServerError, "internal", "Internal Server Error", "")
		return
	}
	if dedupID != nil {
		b.dedup[*dedupID] = dedupEntry{body: body, at: now}
	}
	for _, m := range accepted {
		b.cfg.Outbox.addSMS(r.Context(), Message{
			ID: m.ID, Channel: ChannelSMS, Recipient: m.To, Body: m.Body,
			CreatedAt: now.UTC(), Status: StatusAccepted,
		})
		permanent := b.cfg.Failures.Mode(m.To, now) == FailPermanent
		b.wg.Add(1)
		go func() { defer b.wg.Done(); b.progress(m.ID, permanent) }()
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(body)
}

// parseSubmission reads an array of SubmissionEntry or a single one.
func parseSubmission(raw []byte) ([]submissionEntry, string) {
	raw = bytes.TrimSpace(raw)
	var entries []submissionEntry
	switch {
	case len(raw) > 0 && raw[0] == '[':
		if err := json.Unmarshal(raw, &entries); err != nil {
			return nil, "The request body is not a JSON array of messages: " + err.Error()
		}
	case len(raw) > 0 && raw[0] == '{':
		var e submissionEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, "The request body is not a JSON message: " + err.Error()
		}
		entries = []submissionEntry{e}
	default:
		return nil, "The request body must be a JSON array of messages or one message."
	}
	if len(entries) == 0 {
		return nil, "No messages were submitted."
	}
	return entries, ""
}

// recipients reads "to": one number or an array of numbers, each E.164.
func recipients(raw json.RawMessage) ([]string, string) {
	var tos []string
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		tos = []string{one}
	} else if err := json.Unmarshal(raw, &tos); err != nil || len(tos) == 0 {
		return nil, "to is required: a phone number or an array of them"
	}
	for _, to := range tos {
		if !ValidE164(to) {
			return nil, "to must be a phone number in international format (E.164), e.g. +27821234567"
		}
	}
	return tos, ""
}

// numberOfParts is how many SMS parts the body takes: 160 GSM characters in one (153 each when
// concatenated), 70 UCS-2 characters (67 each).
func numberOfParts(body, encoding string) int {
	n := utf8.RuneCountInString(body)
	single, multi := 160, 153
	if encoding == "UNICODE" {
		single, multi = 70, 67
	}
	if n <= single {
		return 1
	}
	return (n + multi - 1) / multi
}

func (b *BulkSMS) newIDLocked() string {
	b.nextID++
	return strconv.FormatInt(b.nextID, 10)
}

func (b *BulkSMS) forgetOldLocked(now time.Time) {
	for id, e := range b.dedup {
		if now.Sub(e.at) > dedupWindow {
			delete(b.dedup, id)
		}
	}
}

// progress moves one message through the network as the provider would see it, and queues a
// status report of each change for the webhook.
func (b *BulkSMS) progress(id string, permanent bool) {
	start := time.Now()
	wait := func(d time.Duration) bool {
		t := time.NewTimer(time.Until(start.Add(d)))
		defer t.Stop()
		select {
		case <-b.ctx.Done():
			return false
		case <-t.C:
			return true
		}
	}
	if !wait(b.cfg.SentAfter) {
		return
	}
	if permanent {
		if m, ok := b.setStatus(id, newStatus(smsFailed, smsNotSent), StatusFailed); ok && m.reports != reportsNone {
			b.queueReport(m)
		}
		return
	}
	if m, ok := b.setStatus(id, newStatus(smsSent, ""), StatusSent); ok && m.reports == reportsAll {
		b.queueReport(m)
	}
	if !wait(b.cfg.DeliveredAfter) {
		return
	}
	if m, ok := b.setStatus(id, newStatus(smsDelivered, ""), StatusDelivered); ok && m.reports == reportsAll {
		b.queueReport(m)
	}
}

// queueReport hands m's status report to the posters (none without a webhook).
func (b *BulkSMS) queueReport(m smsMessage) {
	if b.cfg.WebhookURL == "" {
		return
	}
	select {
	case b.reports <- m:
	case <-b.ctx.Done():
	}
}

// postReports posts the queued status reports until Close: a call carries the reports due
// within ReportWindow of its first, at most reportBatch of them, in the order they were queued,
// and up to reportPosters calls are in flight at once.
func (b *BulkSMS) postReports() {
	posting := make(chan struct{}, reportPosters)
	var calls sync.WaitGroup
	defer calls.Wait()
	for {
		batch, ok := b.nextReports()
		if !ok {
			return
		}
		select {
		case <-b.ctx.Done():
			return
		case posting <- struct{}{}:
		}
		calls.Go(func() {
			defer func() { <-posting }()
			b.report(batch)
		})
	}
}

// nextReports waits for a queued status report and gathers the ones that follow within
// ReportWindow; ok is false once the stand-in is closed.
func (b *BulkSMS) nextReports() (batch []smsMessage, ok bool) {
	select {
	case <-b.ctx.Done():
		return nil, false
	case m := <-b.reports:
		batch = append(batch, m)
	}
	window := time.NewTimer(b.cfg.ReportWindow)
	defer window.Stop()
	for len(batch) < reportBatch {
		select {
		case <-b.ctx.Done():
			return nil, false
		case m := <-b.reports:
			batch = append(batch, m)
		case <-window.C:
			return batch, true
		}
	}
	return batch, true
}

func (b *BulkSMS) setStatus(id string, st smsStatus, outboxStatus string) (smsMessage, bool) {
	b.mu.Lock()
	m, ok := b.messages[id]
	if ok {
		m.Status = st
	}
	var cp smsMessage
	if ok {
		cp = *m
	}
	b.mu.Unlock()
	if ok {
		b.cfg.Outbox.setStatus(id, outboxStatus)
	}
	return cp, ok
}

// report posts one webhook call of status reports, again with back-off until a 2xx answer, as
// BulkSMS's invoker does.
func (b *BulkSMS) report(batch []smsMessage) {
	body, err := json.Marshal(batch)
	if err != nil {
		return
	}
	delivery := newID()
	wait := b.cfg.RetryBase
	for attempt := 1; attempt <= b.cfg.ReportAttempts; attempt++ {
		status, err := b.post(body, delivery, attempt)
		if err == nil && status >= 200 && status < 300 {
			return
		}
		b.logger.Warn("dev BulkSMS: status reports not acknowledged; trying again",
			"reports", len(batch), "attempt", attempt, "http_status", status, "err", err)
		if attempt == b.cfg.ReportAttempts {
			break
		}
		t := time.NewTimer(wait)
		select {
		case <-b.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(2*wait, time.Minute)
	}
	b.logger.Error("dev BulkSMS: status reports given up", "reports", len(batch), "first_message_id", batch[0].ID)
}

func (b *BulkSMS) post(body []byte, delivery string, attempt int) (int, error) {
	req, err := http.NewRequestWithContext(b.ctx, http.MethodPost, b.cfg.WebhookURL, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "BulkSMS Invoker")
	req.Header.Set("X-BulkSMS-Event", "status-report")
	req.Header.Set("X-BulkSMS-Delivery", delivery)
	req.Header.Set("X-BulkSMS-Delivery-Attempt", strconv.Itoa(attempt))
	req.Header.Set("X-BulkSMS-Webhook-Id", webhookID)
	resp, err := b.cfg.Client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close() //nolint:errcheck // the body is only read; its Close error says nothing
	return resp.StatusCode, nil
}

// list answers GET /v1/messages: sent messages, newest first, optionally filtered by
// "userSuppliedId=<id>" and "type=SENT" terms joined by " and ".
func (b *BulkSMS) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 1000
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 1000 {
			writeProblem(w, http.StatusBadRequest, "bad-request", "Bad Request", "limit must be between 1 and 1000.")
			return
		}
		limit = n
	}
	var userSuppliedID *string
	if f := strings.TrimSpace(q.Get("filter")); f != "" {
		for term := range strings.SplitSeq(f, " and ") {
			field, value, ok := strings.Cut(strings.TrimSpace(term), "=")
			switch {
			case ok && field == "userSuppliedId":
				userSuppliedID = &value
			case ok && field == "type" && value == smsSent:
			default:
				writeProblem(w, http.StatusBadRequest, "bad-request", "Bad Request",
					"The filter supports userSuppliedId=<id> and type=SENT.")
				return
			}
		}
	}
	b.mu.Lock()
	out := []smsMessage{}
	for _, id := range slices.Backward(b.order) {
		m := b.messages[id]
		if userSuppliedID != nil && m.UserSuppliedID != *userSuppliedID {
			continue
		}
		out = append(out, *m)
		if len(out) == limit {
			break
		}
	}
	b.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

func (b *BulkSMS) one(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	m, ok := b.messages[r.PathValue("id")]
	var cp smsMessage
	if ok {
		cp = *m
	}
	b.mu.Unlock()
	if !ok {
		writeProblem(w, http.StatusNotFound, "not-found", "Not Found", "No such message.")
		return
	}
	writeJSON(w, http.StatusOK, cp)
}

// writeProblem answers with BulkSMS's problem JSON (RFC 7807).
func writeProblem(w http.ResponseWriter, status int, typ, title, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"type": problemBase + typ, "title": title, "status": status, "detail": detail,
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
