package devsinks

import (
	"encoding/json"
	"errors"
	"html/template"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// NewDevTools serves the development tools (the BFF proxies every /dev/ path here):
//
//	GET    /dev/outbox          what the SMTP sink and the BulkSMS stand-in received: an HTML
//	                            page, newest first, or with ?format=json (or Accept:
//	                            application/json) {"messages":[…]} oldest first
//	GET    /dev/sms/failures    the failures in force, as JSON
//	POST   /dev/sms/failures    {"number":"+27…","mode":"permanent"|"transient","seconds":30}
//	                            (or the page's form) makes a number fail
//	DELETE /dev/sms/failures    clears them (the page's form posts clear=1)
//
// and each of tools at its own path (the ATM at /dev/atm), behind the same refusal of
// cross-site writes and the same no-store; the outbox page links to them.
func NewDevTools(outbox *Outbox, failures *Failures, tools ...Tool) http.Handler {
	h := &devTools{outbox: outbox, failures: failures, tools: tools, now: time.Now}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /dev/outbox", h.listOutbox)
	mux.HandleFunc("GET /dev/sms/failures", h.listFailures)
	mux.HandleFunc("POST /dev/sms/failures", h.setFailure)
	mux.HandleFunc("DELETE /dev/sms/failures", h.clearFailures)
	for _, t := range tools {
		mux.Handle(t.Path, t.Handler)
	}
	return noStore(sameOriginWrites(mux))
}

// Tool is one more development tool served beside the outbox: its page, at Path (a path under
// /dev/, every method), named Title in the outbox page's links.
type Tool struct {
	Path    string
	Title   string
	Handler http.Handler
}

type devTools struct {
	outbox   *Outbox
	failures *Failures
	tools    []Tool
	now      func() time.Time
}

func wantsJSON(r *http.Request) bool {
	return r.URL.Query().Get("format") == "json" || strings.Contains(r.Header.Get("Accept"), "application/json")
}

func (h *devTools) listOutbox(w http.ResponseWriter, r *http.Request) {
	msgs := h.outbox.Messages()
	if wantsJSON(r) {
		writeJSON(w, http.StatusOK, map[string]any{"messages": msgs})
		return
	}
	slices.Reverse(msgs)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = page.Execute(w, pageData{Messages: msgs, Failures: h.failures.List(h.now()), Notice: r.URL.Query().Get("notice"), Tools: h.tools})
}

func (h *devTools) listFailures(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"failures": h.failures.List(h.now())})
}

// failureRequest is POST /dev/sms/failures's JSON body.
type failureRequest struct {
	Number  string `json:"number"`
	Mode    string `json:"mode"`
	Seconds int    `json:"seconds"`
}

func (h *devTools) setFailure(w http.ResponseWriter, r *http.Request) {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	form := ct == "application/x-www-form-urlencoded" || ct == "multipart/form-data"
	var req failureRequest
	if form {
		if err := r.ParseForm(); err != nil {
			http.Error(w, "unreadable form", http.StatusBadRequest)
			return
		}
		if r.PostForm.Get("clear") != "" {
			h.failures.Clear()
			http.Redirect(w, r, "/dev/outbox?notice="+url.QueryEscape("Every failure cleared."), http.StatusSeeOther)
			return
		}
		req.Number, req.Mode = r.PostForm.Get("number"), r.PostForm.Get("mode")
		if s := strings.TrimSpace(r.PostForm.Get("seconds")); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil {
				http.Error(w, "seconds must be a whole number", http.StatusBadRequest)
				return
			}
			req.Seconds = n
		}
	} else if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "want JSON {\"number\",\"mode\",\"seconds\"}"})
		return
	}
	if req.Seconds < 0 {
		req.Seconds = 0
	}
	fl, err := h.failures.Set(req.Number, req.Mode, time.Duration(req.Seconds)*time.Second, h.now())
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), ErrBadFailure.Error()+": ")
		if !errors.Is(err, ErrBadFailure) {
			msg = "could not set the failure"
		}
		if form {
			http.Error(w, msg, http.StatusBadRequest)
			return
		}
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": msg})
		return
	}
	if form {
		http.Redirect(w, r, "/dev/outbox?notice="+url.QueryEscape(fl.Number+" now fails ("+fl.Mode+")."), http.StatusSeeOther)
		return
	}
	writeJSON(w, http.StatusOK, fl)
}

func (h *devTools) clearFailures(w http.ResponseWriter, _ *http.Request) {
	h.failures.Clear()
	w.WriteHeader(http.StatusNoContent)
}

// noStore keeps every answer out of caches: the page changes with every message.
func noStore(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(w, r)
	})
}

// sameOriginWrites refuses a change asked by another site's page (Fetch Metadata): a page
// elsewhere must not be able to make the developer's numbers fail by posting a form to
// localhost. Requests without the header (curl, tests) pass.
func sameOriginWrites(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			switch r.Header.Get("Sec-Fetch-Site") {
			case "", "same-origin", "none":
			default:
				http.Error(w, "cross-site request refused", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

type pageData struct {
	Messages []Message
	Failures []Failure
	Notice   string
	Tools    []Tool
}

var page = template.Must(template.New("outbox").Funcs(template.FuncMap{
	"clock": func(t time.Time) string { return t.Local().Format("15:04:05") },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Thumela dev outbox</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px system-ui,sans-serif;margin:2rem;color:#111}
table{border-collapse:collapse;width:100%}td,th{border:1px solid #bbb;padding:.4rem;text-align:left;vertical-align:top}
pre{white-space:pre-wrap;margin:0;font:13px ui-monospace,monospace}
form{display:flex;flex-wrap:wrap;gap:.75rem;align-items:end;margin:.5rem 0}
label{display:flex;flex-direction:column;gap:.2rem;font-weight:600}
input,select,button{font:inherit;padding:.3rem .5rem}
.notice{background:#eef6ee;border:1px solid #8b8;padding:.5rem}
.failed{color:#a00;font-weight:600}.delivered{color:#060}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
</style>
</head><body>
<main>
<h1>Dev outbox</h1>
<p>What the stack's SMTP sink and SMS provider stand-in received, newest first (development only).
As JSON: <a href="/dev/outbox?format=json">/dev/outbox?format=json</a>.</p>
{{with .Tools}}<nav aria-label="Other dev tools"><ul>{{range .}}<li><a href="{{.Path}}">{{.Title}}</a></li>{{end}}</ul></nav>{{end}}
{{with .Notice}}<p class="notice" role="status">{{.}}</p>{{end}}

<section aria-labelledby="failures-heading">
<h2 id="failures-heading">Make an SMS number fail</h2>
<form method="post" action="/dev/sms/failures">
<label for="fail-number">Phone number
<input id="fail-number" name="number" type="tel" required placeholder="+27821234567" autocomplete="off"></label>
<label for="fail-mode">How it fails
<select id="fail-mode" name="mode">
<option value="permanent">Permanently: accepted, then reported not sent</option>
<option value="transient">For a while: the SMS API answers 503</option>
</select></label>
<label for="fail-seconds">For how many seconds (0: until cleared, permanent only)
<input id="fail-seconds" name="seconds" type="number" min="0" value="30" inputmode="numeric"></label>
<button type="submit">Make it fail</button>
</form>
{{if .Failures}}
<ul aria-label="Numbers failing now">{{range .Failures}}<li>{{.Number}}: {{.Mode}}{{with .Until}} until {{clock .}}{{else}} until cleared{{end}}</li>{{end}}</ul>
<form method="post" action="/dev/sms/failures"><input type="hidden" name="clear" value="1"><button type="submit">Clear every failure</button></form>
{{else}}<p>No number fails now.</p>{{end}}
</section>

<section aria-labelledby="messages-heading">
<h2 id="messages-heading">Messages</h2>
<table>
<caption class="visually-hidden">E-mails and SMS, newest first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Channel</th><th scope="col">To</th><th scope="col">Subject</th><th scope="col">Message</th><th scope="col">SMS status</th></tr></thead>
<tbody>
{{range .Messages}}<tr><td>{{clock .CreatedAt}}</td><td>{{if eq .Channel "sms"}}SMS{{else}}E-mail{{end}}</td><td>{{.Recipient}}</td><td>{{.Subject}}</td><td><pre>{{.Body}}</pre></td><td{{if .Status}} class="{{.Status}}"{{end}}>{{.Status}}</td></tr>
{{else}}<tr><td colspan="6">No messages yet.</td></tr>{{end}}
</tbody></table>
</section>
</main>
</body></html>`))
