// Package bulksms sends SMS through the BulkSMS JSON REST API v1 (https://www.bulksms.com/developer/json/v1/):
// HTTP Basic auth with an API token, POST /messages with a deduplication-id that makes a
// resubmission harmless, userSuppliedId to find a message again, problem-JSON errors, and
// the Message objects that both the API's answers and the delivery-report webhook carry.
package bulksms

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/thumela/thumela/services/notifications/internal/app"
	"github.com/thumela/thumela/services/notifications/internal/domain"
)

// DefaultURL is the API's base.
const DefaultURL = "https://api.bulksms.com/v1"

// maxBody bounds what is read of an answer.
const maxBody = 1 << 20

// SubmissionEntry is one message to send (POST /messages).
type SubmissionEntry struct {
	To              string `json:"to"`
	Body            string `json:"body"`
	From            string `json:"from,omitempty"`
	UserSuppliedID  string `json:"userSuppliedId,omitempty"`
	DeliveryReports string `json:"deliveryReports,omitempty"`
}

// Message is a sent message as the API and the webhook show it.
type Message struct {
	ID             string `json:"id"`
	Type           string `json:"type"`
	From           Text   `json:"from,omitempty"`
	To             Text   `json:"to"`
	Body           Text   `json:"body,omitempty"`
	Encoding       string `json:"encoding,omitempty"`
	UserSuppliedID string `json:"userSuppliedId,omitempty"`
	Submission     struct {
		ID   string `json:"id,omitempty"`
		Date string `json:"date,omitempty"`
	} `json:"submission"`
	Status Status `json:"status"`
}

// Status is a message's status: Type ACCEPTED, SCHEDULED, SENT, DELIVERED, UNKNOWN or FAILED;
// Subtype (FAILED only) EXPIRED, HANDSET_ERROR, BLOCKED or NOT_SENT; ID "TYPE.SUBTYPE".
type Status struct {
	ID      string  `json:"id"`
	Type    string  `json:"type"`
	Subtype *string `json:"subtype"`
	// Condition is the type's name in the webhook guide's sample report
	// ({"condition":"SENT","final":false,…}), which differs from the API reference's
	// {"id","type","subtype"}; reports in either shape are read.
	Condition string `json:"condition,omitempty"`
}

// Text is an address or a body as BulkSMS writes it: a plain string in the API reference's
// messages, an object ({"type":"INTERNATIONAL","address":"+27…"}, {"value":"…","encoding":…})
// in the webhook guide's sample. Both decode to the string.
type Text string

// UnmarshalJSON reads a string, null, or an object with "address" or "value".
func (t *Text) UnmarshalJSON(b []byte) error {
	var s *string
	if err := json.Unmarshal(b, &s); err == nil {
		if s != nil {
			*t = Text(*s)
		}
		return nil
	}
	var o struct {
		Address string `json:"address"`
		Value   string `json:"value"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return fmt.Errorf("bulksms: neither a string nor an address/value object: %w", err)
	}
	*t = Text(o.Address + o.Value)
	return nil
}

// Problem is the API's error body (application/problem+json).
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
}

// Report maps m's status to the service's terms: ACCEPTED, SCHEDULED and SENT are sent;
// DELIVERED is delivered; FAILED (whatever the subtype) is failed; UNKNOWN changes nothing.
func (m Message) Report() domain.Report {
	r := domain.Report{ProviderMessageID: m.ID}
	typ, sub := m.Status.Type, ""
	if m.Status.Subtype != nil {
		sub = *m.Status.Subtype
	}
	if typ == "" {
		typ = m.Status.Condition
	}
	if typ == "" && m.Status.ID != "" { // "FAILED.EXPIRED"
		typ, sub, _ = strings.Cut(m.Status.ID, ".")
		if sub == "null" {
			sub = ""
		}
	}
	switch strings.ToUpper(typ) {
	case "ACCEPTED", "SCHEDULED", "SENT":
		r.Outcome = domain.OutcomeAccepted
	case "DELIVERED":
		r.Outcome = domain.OutcomeDelivered
	case "FAILED":
		r.Outcome = domain.OutcomeFailed
		r.FailureReason = failureReason(sub)
	default:
		r.Outcome = domain.OutcomeUnknown
	}
	return r
}

func failureReason(subtype string) string {
	switch strings.ToUpper(subtype) {
	case "EXPIRED":
		return domain.ReasonNotReachable
	case "HANDSET_ERROR":
		return domain.ReasonHandset
	case "BLOCKED":
		return domain.ReasonNumberBlocked
	default:
		return domain.ReasonNotSent
	}
}

// Config is the API's address and credentials.
type Config struct {
	URL         string // default DefaultURL
	TokenID     string
	TokenSecret string
	// From, optional, is the sender id or number the recipient sees.
	From string
	// Timeout bounds one request.
	Timeout time.Duration
	// Transport, optional, replaces the HTTP transport (tests).
	Transport http.RoundTripper
}

// Client implements app.SMSProvider.
type Client struct {
	base               *url.URL
	tokenID, tokenSecr string
	from               string
	http               *http.Client
}

var _ app.SMSProvider = (*Client)(nil)

// New returns a client for the API at cfg.URL.
func New(cfg Config) (*Client, error) {
	if cfg.URL == "" {
		cfg.URL = DefaultURL
	}
	base, err := url.Parse(strings.TrimRight(cfg.URL, "/"))
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return nil, fmt.Errorf("bulksms: URL %q: want http(s)://host/…", cfg.URL)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	transport := cfg.Transport
	if transport == nil {
		transport = &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   5 * time.Second,
			ResponseHeaderTimeout: cfg.Timeout,
			IdleConnTimeout:       90 * time.Second,
			MaxIdleConnsPerHost:   16,
			ForceAttemptHTTP2:     true,
		}
	}
	return &Client{base: base, tokenID: cfg.TokenID, tokenSecr: cfg.TokenSecret, from: cfg.From,
		http: &http.Client{Timeout: cfg.Timeout, Transport: transport}}, nil
}

// SendSMS implements app.SMSProvider: one SubmissionEntry with delivery reports for every
// status, sent with the delivery's deduplication id.
func (c *Client) SendSMS(ctx context.Context, m app.SMS) (domain.Report, error) {
	body, err := json.Marshal([]SubmissionEntry{{
		To: m.To, Body: m.Body, From: c.from, UserSuppliedID: m.UserSuppliedID, DeliveryReports: "ALL",
	}})
	if err != nil {
		return domain.Report{}, err
	}
	q := url.Values{}
	if m.DedupID != 0 {
		q.Set("deduplication-id", strconv.FormatInt(int64(m.DedupID), 10))
	}
	var sent []Message
	if err := c.do(ctx, http.MethodPost, "/messages", q, body, http.StatusCreated, &sent); err != nil {
		return domain.Report{}, err
	}
	if len(sent) == 0 {
		return domain.Report{}, &domain.SendError{Reason: "bulksms: 201 without a message"}
	}
	r := sent[0].Report()
	if r.Outcome == domain.OutcomeFailed {
		return domain.Report{}, &domain.SendError{Permanent: true, Reason: "bulksms: message " + sent[0].Status.ID,
			UserReason: r.FailureReason}
	}
	if r.Outcome == domain.OutcomeUnknown {
		r.Outcome = domain.OutcomeAccepted // the API took it (201)
	}
	return r, nil
}

// FindSMS implements app.SMSProvider: GET /messages?filter=userSuppliedId=<id>.
func (c *Client) FindSMS(ctx context.Context, userSuppliedID string) ([]domain.Report, error) {
	q := url.Values{}
	q.Set("filter", "userSuppliedId="+userSuppliedID)
	var found []Message
	if err := c.do(ctx, http.MethodGet, "/messages", q, nil, http.StatusOK, &found); err != nil {
		return nil, err
	}
	out := make([]domain.Report, 0, len(found))
	for _, m := range found {
		if m.UserSuppliedID == "" || m.UserSuppliedID == userSuppliedID {
			out = append(out, m.Report())
		}
	}
	return out, nil
}

// do sends one request and decodes a want answer into out; any other answer becomes a
// *domain.SendError.
func (c *Client) do(ctx context.Context, method, path string, q url.Values, body []byte, want int, out any) error {
	u := *c.base
	u.Path += path
	u.RawQuery = q.Encode()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return err
	}
	if c.tokenID != "" {
		req.SetBasicAuth(c.tokenID, c.tokenSecr) // preemptively, as the API expects
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http.Do(req)
	if err != nil {
		// url.Error quotes the URL, which carries no personal data (the filter is our id).
		return &domain.SendError{Reason: "bulksms: " + transportReason(err)}
	}
	defer res.Body.Close() //nolint:errcheck // the body is only read; its Close error says nothing
	data, err := io.ReadAll(io.LimitReader(res.Body, maxBody))
	if err != nil {
		return &domain.SendError{Reason: "bulksms: reading the answer: " + transportReason(err)}
	}
	if res.StatusCode == want {
		if err := json.Unmarshal(data, out); err != nil {
			return &domain.SendError{Reason: fmt.Sprintf("bulksms: %d answer does not decode", res.StatusCode)}
		}
		return nil
	}
	return classify(res.StatusCode, res.Header.Get("Retry-After"), data)
}

// classify maps an error answer. 400 (an invalid number, a malformed request) and the other
// 4xx are permanent; 401 and 403 (credentials, insufficient credits) are the operator's to fix
// and are retried meanwhile, as are 429 and 5xx. The Reason keeps the status and the problem's
// type and title, never its detail, which may quote the number.
func classify(status int, retryAfter string, body []byte) error {
	var p Problem
	_ = json.Unmarshal(body, &p)
	kind := p.Type
	if i := strings.LastIndexByte(kind, '#'); i >= 0 {
		kind = kind[i+1:]
	}
	reason := fmt.Sprintf("bulksms: %d %s %s", status, kind, p.Title)
	reason = strings.TrimSpace(strings.Join(strings.Fields(reason), " "))
	switch {
	case status == http.StatusUnauthorized, status == http.StatusForbidden,
		status == http.StatusTooManyRequests, status == http.StatusRequestTimeout, status >= 500:
		if retryAfter != "" {
			reason += " (retry after " + retryAfter + ")"
		}
		return &domain.SendError{Reason: reason}
	case status == http.StatusBadRequest:
		return &domain.SendError{Permanent: true, Reason: reason, UserReason: domain.ReasonNumberInvalid}
	default:
		return &domain.SendError{Permanent: true, Reason: reason, UserReason: domain.ReasonProviderRefused}
	}
}

func transportReason(err error) string {
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	case strings.Contains(err.Error(), "connection refused"):
		return "connection refused"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Op + ": " + ue.Err.Error()
	}
	return err.Error()
}

// DecodeReports reads a delivery-report webhook body: a JSON array of Message.
func DecodeReports(r io.Reader) ([]Message, error) {
	dec := json.NewDecoder(r)
	var msgs []Message
	if err := dec.Decode(&msgs); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("bulksms: trailing data after the reports")
	}
	return msgs, nil
}
