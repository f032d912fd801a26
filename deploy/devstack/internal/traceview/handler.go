package traceview

import (
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

//go:embed templates/*.html static/style.css
var assets embed.FS

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"dur":      formatDuration,
	"clock":    func(t time.Time) string { return t.Local().Format("15:04:05.000") },
	"stamp":    func(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05.000000 MST") },
	"hue":      serviceHue,
	"indent":   func(depth int) template.CSS { return template.CSS(fmt.Sprintf("--depth:%d", depth)) }, //nolint:gosec // G203: a number only
	"sorted":   sortedAttrs,
	"short":    func(id string) string { return id[:min(len(id), 8)] },
	"traceURL": traceURL,
	"plural": func(n int, one, many string) string {
		if n == 1 {
			return one
		}
		return many
	},
}).ParseFS(assets, "templates/*.html"))

// NewHandler serves the web UI and the JSON API over store:
//
//	GET /                      search page (?service=&q=&errors=1&limit=)
//	GET /traces/{trace id}     one trace as a waterfall
//	GET /api/traces            search as JSON (same parameters)
//	GET /api/traces/{trace id} one trace as JSON, its spans in tree order with their depth
//	GET /api/services          the services seen
//
// appURL, when set, is shown on an empty search page.
func NewHandler(store *Store, appURL string) http.Handler {
	h := &handler{store: store, appURL: appURL}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", h.search)
	mux.HandleFunc("GET /traces/{id}", h.trace)
	mux.HandleFunc("GET /api/traces", h.apiSearch)
	mux.HandleFunc("GET /api/traces/{id}", h.apiTrace)
	mux.HandleFunc("GET /api/services", h.apiServices)
	mux.HandleFunc("GET /static/style.css", h.style)
	return securityHeaders(mux)
}

type handler struct {
	store  *Store
	appURL string
}

// securityHeaders: the pages run no script at all and load nothing from elsewhere, so the
// policy says so; an attribute value that escaped escaping still could not run.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

func (h *handler) style(w http.ResponseWriter, _ *http.Request) {
	css, _ := assets.ReadFile("static/style.css")
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	_, _ = w.Write(css)
}

// ---------------------------------------------------------------------------------------------
// Search
// ---------------------------------------------------------------------------------------------

func parseQuery(r *http.Request) Query {
	v := r.URL.Query()
	limit, _ := strconv.Atoi(v.Get("limit"))
	return Query{
		Service:    strings.TrimSpace(v.Get("service")),
		Text:       strings.TrimSpace(v.Get("q")),
		ErrorsOnly: slices.Contains([]string{"1", "true", "on"}, v.Get("errors")),
		Limit:      min(limit, 1000),
	}
}

type searchPage struct {
	Query    Query
	Services []string
	Traces   []Summary
	Matched  int
	Stats    Stats
	AppURL   string
	Filtered bool
}

func (h *handler) search(w http.ResponseWriter, r *http.Request) {
	q := parseQuery(r)
	traces, matched := h.store.Search(q)
	render(w, "search.html", http.StatusOK, searchPage{
		Query:    q,
		Services: h.store.Services(),
		Traces:   traces,
		Matched:  matched,
		Stats:    h.store.Stats(),
		AppURL:   h.appURL,
		Filtered: q.Service != "" || q.Text != "" || q.ErrorsOnly,
	})
}

// apiHead is what the JSON API says of a whole trace, in the search and on the trace itself.
type apiHead struct {
	TraceID     string    `json:"traceId"`
	RootName    string    `json:"rootName"`
	RootService string    `json:"rootService"`
	Services    []string  `json:"services"`
	SpanCount   int       `json:"spanCount"`
	ErrorCount  int       `json:"errorCount"`
	Start       time.Time `json:"start"`
	DurationMs  float64   `json:"durationMs"`
}

func newAPIHead(s Summary) apiHead {
	return apiHead{
		TraceID: s.TraceID, RootName: s.Root.Name, RootService: s.Root.Service, Services: s.Services,
		SpanCount: s.Spans, ErrorCount: s.Errors, Start: s.Start, DurationMs: millis(s.Duration),
	}
}

// apiSummary is one trace of GET /api/traces.
type apiSummary struct {
	apiHead
	URL string `json:"url"`
}

func (h *handler) apiSearch(w http.ResponseWriter, r *http.Request) {
	traces, matched := h.store.Search(parseQuery(r))
	out := struct {
		Matched int          `json:"matched"`
		Traces  []apiSummary `json:"traces"`
	}{Matched: matched, Traces: make([]apiSummary, 0, len(traces))}
	for _, t := range traces {
		out.Traces = append(out.Traces, apiSummary{apiHead: newAPIHead(t), URL: traceURL(t.TraceID)})
	}
	writeJSON(w, http.StatusOK, out)
}

func (h *handler) apiServices(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, h.store.Services())
}

// ---------------------------------------------------------------------------------------------
// One trace
// ---------------------------------------------------------------------------------------------

// traceID reads and normalises the path's trace id: 32 hex digits.
func traceID(r *http.Request) (string, bool) {
	id := strings.ToLower(strings.TrimSpace(r.PathValue("id")))
	if len(id) != 32 {
		return id, false
	}
	_, err := hex.DecodeString(id)
	return id, err == nil
}

func traceURL(id string) string { return "/traces/" + url.PathEscape(id) }

// row is one span of the waterfall.
type row struct {
	node
	Bar template.CSS // left and width of the span's bar, in % of the trace's duration
	// Links to spans, each with the linked span when the store has it.
	Links []shownLink
}

type shownLink struct {
	TraceID, SpanID string
	Attrs           map[string]string
	Target          *Span // nil when not received (or evicted)
	SameTrace       bool
}

type tracePage struct {
	Summary    Summary
	Rows       []row
	LinkedFrom []Span
	Missing    int // spans whose parent has not arrived
	Stats      Stats
}

// maxLinkedFrom bounds the "linked from" list: a tab open for an hour receives many events.
const maxLinkedFrom = 50

func (h *handler) trace(w http.ResponseWriter, r *http.Request) {
	id, ok := traceID(r)
	if !ok {
		render(w, "notfound.html", http.StatusBadRequest, notFound{ID: id, Invalid: true})
		return
	}
	spans, sum, found := h.store.Trace(id)
	if !found {
		render(w, "notfound.html", http.StatusNotFound, notFound{ID: id, Stats: h.store.Stats()})
		return
	}
	nodes := buildTree(spans, sum.Start)
	page := tracePage{Summary: sum, LinkedFrom: h.store.LinkedFrom(id, maxLinkedFrom), Stats: h.store.Stats()}
	inTrace := make(map[string]*Span, len(spans))
	for i := range spans {
		inTrace[spans[i].SpanID] = &spans[i]
	}
	for _, n := range nodes {
		rw := row{node: n, Bar: barStyle(n.Offset, n.Duration(), sum.Duration)}
		if n.ParentMissing {
			page.Missing++
		}
		for _, l := range n.Links {
			sl := shownLink{TraceID: l.TraceID, SpanID: l.SpanID, Attrs: l.Attrs, SameTrace: l.TraceID == id}
			if sl.SameTrace {
				sl.Target = inTrace[l.SpanID]
			} else if target, ok := h.store.Span(l.TraceID, l.SpanID); ok {
				sl.Target = &target
			}
			rw.Links = append(rw.Links, sl)
		}
		page.Rows = append(page.Rows, rw)
	}
	render(w, "trace.html", http.StatusOK, page)
}

type notFound struct {
	ID      string
	Invalid bool
	Stats   Stats
}

// barStyle places a span's bar on the trace's time line; a span too short to see gets a
// sliver, and nothing runs past the end.
func barStyle(offset, d, total time.Duration) template.CSS {
	left, width := 0.0, 100.0
	if total > 0 {
		left = math.Max(0, math.Min(100, float64(offset)/float64(total)*100))
		width = float64(d) / float64(total) * 100
	}
	width = math.Max(0.2, math.Min(width, 100-left))
	if left+width > 100 {
		left = 100 - width
	}
	// Only numbers are formatted in: the value is safe as CSS.
	return template.CSS(fmt.Sprintf("left:%.3f%%;width:%.3f%%", left, width)) //nolint:gosec // G203: numbers only
}

// apiSpan is one span of GET /api/traces/{id}.
type apiSpan struct {
	SpanID        string            `json:"spanId"`
	ParentSpanID  string            `json:"parentSpanId,omitempty"`
	ParentMissing bool              `json:"parentMissing,omitempty"`
	Depth         int               `json:"depth"`
	Service       string            `json:"service"`
	Scope         string            `json:"scope,omitempty"`
	Name          string            `json:"name"`
	Kind          string            `json:"kind"`
	Start         time.Time         `json:"start"`
	End           time.Time         `json:"end"`
	OffsetMs      float64           `json:"offsetMs"`
	DurationMs    float64           `json:"durationMs"`
	Status        string            `json:"status"`
	StatusMessage string            `json:"statusMessage,omitempty"`
	Attributes    map[string]string `json:"attributes"`
	Events        []apiEvent        `json:"events,omitempty"`
	Links         []apiLink         `json:"links,omitempty"`
	Resource      map[string]string `json:"resource,omitempty"`
}

type apiEvent struct {
	Name       string            `json:"name"`
	Time       time.Time         `json:"time"`
	OffsetMs   float64           `json:"offsetMs"`
	Attributes map[string]string `json:"attributes,omitempty"`
}

type apiLink struct {
	TraceID    string            `json:"traceId"`
	SpanID     string            `json:"spanId"`
	Attributes map[string]string `json:"attributes,omitempty"`
}

// apiTrace is GET /api/traces/{id}.
type apiTrace struct {
	apiHead
	DroppedSpans int       `json:"droppedSpans,omitempty"`
	Spans        []apiSpan `json:"spans"`
}

func (h *handler) apiTrace(w http.ResponseWriter, r *http.Request) {
	id, ok := traceID(r)
	if !ok {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "a trace id is 32 hex digits"})
		return
	}
	spans, sum, found := h.store.Trace(id)
	if !found {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "trace " + id + " not received, or evicted"})
		return
	}
	out := apiTrace{apiHead: newAPIHead(sum), DroppedSpans: sum.Dropped}
	for _, n := range buildTree(spans, sum.Start) {
		s := apiSpan{
			SpanID: n.SpanID, ParentSpanID: n.ParentID, ParentMissing: n.ParentMissing, Depth: n.Depth,
			Service: n.Service, Scope: n.Scope, Name: n.Name, Kind: n.Kind,
			Start: n.Start, End: n.End, OffsetMs: millis(n.Offset), DurationMs: millis(n.Duration()),
			Status: n.Status, StatusMessage: n.StatusMessage, Attributes: n.Attrs, Resource: n.Resource,
		}
		if s.Attributes == nil {
			s.Attributes = map[string]string{}
		}
		for _, e := range n.Events {
			s.Events = append(s.Events, apiEvent{Name: e.Name, Time: e.Time, OffsetMs: millis(e.Time.Sub(sum.Start)), Attributes: e.Attrs})
		}
		for _, l := range n.Links {
			s.Links = append(s.Links, apiLink{TraceID: l.TraceID, SpanID: l.SpanID, Attributes: l.Attrs})
		}
		out.Spans = append(out.Spans, s)
	}
	writeJSON(w, http.StatusOK, out)
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

func render(w http.ResponseWriter, name string, status int, data any) {
	var b strings.Builder
	if err := pages.ExecuteTemplate(&b, name, data); err != nil {
		slog.Error("trace viewer: render", "page", name, "err", err)
		http.Error(w, "render: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(b.String()))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// millis is d in milliseconds, to the microsecond.
func millis(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}

// formatDuration prints a span's length for people: µs below a millisecond, ms below a
// second, s above.
func formatDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return strconv.FormatFloat(float64(d)/float64(time.Microsecond), 'f', 0, 64) + " µs"
	case d < 10*time.Millisecond:
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 2, 64) + " ms"
	case d < time.Second:
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + " ms"
	default:
		return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + " s"
	}
}

type attr struct{ Key, Value string }

func sortedAttrs(m map[string]string) []attr {
	out := make([]attr, 0, len(m))
	for k, v := range m {
		out = append(out, attr{k, v})
	}
	slices.SortFunc(out, func(a, b attr) int { return strings.Compare(a.Key, b.Key) })
	return out
}
