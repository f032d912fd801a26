package traceview

import (
	"cmp"
	"container/list"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/thumela/thumela/deploy/devstack/internal/otlpreceiver"
)

// Span is one received span.
type Span = otlpreceiver.Span

// Default bounds of a Store: a morning of clicking through the app locally is a few hundred
// traces of up to a few hundred spans (most of them pgx's); the bounds keep the viewer's memory
// around a hundred megabytes at worst.
const (
	DefaultMaxTraces        = 2000
	DefaultMaxSpans         = 100_000
	DefaultMaxSpansPerTrace = 10_000
)

// Store keeps the newest traces in memory: when a bound is passed, the trace that received a
// span least recently is dropped whole. A trace keeps growing as its spans arrive (the worker's
// steps join a transfer's trace seconds after the request), and every arrival makes it newest.
type Store struct {
	maxTraces, maxSpans, maxSpansPerTrace int

	mu      sync.RWMutex
	traces  map[string]*storedTrace
	order   *list.List // of *storedTrace, least recently updated first
	spans   int        // kept, across traces
	evicted int        // traces dropped to stay within the bounds
	dropped int        // spans refused because their trace was full
}

// storedTrace is one trace's spans, in arrival order, and its summary.
type storedTrace struct {
	id      string
	spans   []Span
	dropped int // spans refused past maxSpansPerTrace
	elem    *list.Element
	summary Summary
}

// NewStore returns a store with the given bounds; a bound below 1 takes its default.
func NewStore(maxTraces, maxSpans, maxSpansPerTrace int) *Store {
	if maxTraces < 1 {
		maxTraces = DefaultMaxTraces
	}
	if maxSpans < 1 {
		maxSpans = DefaultMaxSpans
	}
	if maxSpansPerTrace < 1 {
		maxSpansPerTrace = DefaultMaxSpansPerTrace
	}
	return &Store{
		maxTraces:        maxTraces,
		maxSpans:         maxSpans,
		maxSpansPerTrace: min(maxSpansPerTrace, maxSpans),
		traces:           map[string]*storedTrace{},
		order:            list.New(),
	}
}

// Add keeps spans, then evicts the least recently updated traces past the bounds.
func (s *Store) Add(spans []Span) {
	if len(spans) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	touched := map[*storedTrace]bool{}
	for _, sp := range spans {
		t := s.traces[sp.TraceID]
		if t == nil {
			t = &storedTrace{id: sp.TraceID}
			t.elem = s.order.PushBack(t)
			s.traces[sp.TraceID] = t
		}
		touched[t] = true
		if len(t.spans) >= s.maxSpansPerTrace {
			t.dropped++
			s.dropped++
			continue
		}
		t.spans = append(t.spans, sp)
		s.spans++
	}
	// Arrival order within one export is arbitrary, so the touched traces become newest in
	// the order of their first span here.
	seen := map[*storedTrace]bool{}
	for _, sp := range spans {
		if t := s.traces[sp.TraceID]; !seen[t] {
			seen[t] = true
			s.order.MoveToBack(t.elem)
		}
	}
	for t := range touched {
		t.summary = summarize(t)
	}
	for s.order.Len() > 1 && (s.order.Len() > s.maxTraces || s.spans > s.maxSpans) {
		oldest := s.order.Remove(s.order.Front()).(*storedTrace)
		delete(s.traces, oldest.id)
		s.spans -= len(oldest.spans)
		s.evicted++
	}
}

// Stats says what the store holds and what it let go.
type Stats struct {
	Traces, Spans, MaxTraces, MaxSpans int
	// Evicted traces were dropped whole to stay within the bounds; DroppedSpans arrived for a
	// trace that already had the most spans one trace may keep.
	Evicted, DroppedSpans int
}

// Stats returns the store's counts.
func (s *Store) Stats() Stats {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return Stats{
		Traces: len(s.traces), Spans: s.spans, MaxTraces: s.maxTraces, MaxSpans: s.maxSpans,
		Evicted: s.evicted, DroppedSpans: s.dropped,
	}
}

// Summary is one line of the search page.
type Summary struct {
	TraceID string
	// Root is the trace's first span without a received parent: the browser's request to the
	// BFF, whose own parent (the browser's span) is never exported.
	Root     Span
	Services []string // sorted
	Spans    int
	Dropped  int // spans past the per-trace bound
	Errors   int // spans with error status
	Start    time.Time
	Duration time.Duration
}

func summarize(t *storedTrace) Summary {
	sum := Summary{TraceID: t.id, Spans: len(t.spans), Dropped: t.dropped}
	byID := make(map[string]bool, len(t.spans))
	for _, sp := range t.spans {
		byID[sp.SpanID] = true
	}
	var end time.Time
	services := map[string]bool{}
	haveRoot := false
	for i, sp := range t.spans {
		if i == 0 || sp.Start.Before(sum.Start) {
			sum.Start = sp.Start
		}
		if i == 0 || sp.End.After(end) {
			end = sp.End
		}
		services[sp.Service] = true
		if sp.IsError() {
			sum.Errors++
		}
		if !byID[sp.ParentID] && (!haveRoot || rootBefore(sp, sum.Root)) {
			sum.Root, haveRoot = sp, true
		}
	}
	sum.Duration = max(end.Sub(sum.Start), 0)
	for svc := range services {
		sum.Services = append(sum.Services, svc)
	}
	slices.Sort(sum.Services)
	return sum
}

// rootBefore prefers a true root (no parent at all) over a span whose parent is missing, then
// the earlier start.
func rootBefore(a, b Span) bool {
	if (a.ParentID == "") != (b.ParentID == "") {
		return a.ParentID == ""
	}
	return a.Start.Before(b.Start)
}

// Query filters the search. Zero values match everything.
type Query struct {
	Service string // a span of the trace is from this service
	// Text matches, case-insensitively, a prefix of the trace id, a span id, or part of a span's
	// name, status message, attribute value, event name or event attribute value. "key=value"
	// also matches a span whose attribute key has exactly that value.
	Text       string
	ErrorsOnly bool
	Limit      int // at most this many, newest first; below 1 means DefaultLimit
}

// DefaultLimit is how many traces a search returns unless asked otherwise.
const DefaultLimit = 100

// Search returns the summaries of the matching traces, the latest started first, and how many
// matched in all.
func (s *Store) Search(q Query) (summaries []Summary, matched int) {
	limit := q.Limit
	if limit < 1 {
		limit = DefaultLimit
	}
	m := newMatcher(q.Text)
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, t := range s.traces {
		if q.ErrorsOnly && t.summary.Errors == 0 {
			continue
		}
		if q.Service != "" && !slices.Contains(t.summary.Services, q.Service) {
			continue
		}
		if !m.trace(t) {
			continue
		}
		summaries = append(summaries, t.summary)
	}
	slices.SortFunc(summaries, func(a, b Summary) int {
		return cmp.Or(b.Start.Compare(a.Start), strings.Compare(a.TraceID, b.TraceID))
	})
	matched = len(summaries)
	if len(summaries) > limit {
		summaries = summaries[:limit]
	}
	return summaries, matched
}

// Services returns the service names of every kept trace, sorted.
func (s *Store) Services() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	set := map[string]bool{}
	for _, t := range s.traces {
		for _, svc := range t.summary.Services {
			set[svc] = true
		}
	}
	out := make([]string, 0, len(set))
	for svc := range set {
		out = append(out, svc)
	}
	slices.Sort(out)
	return out
}

// Trace returns a copy of one trace's spans (arrival order) and its summary.
func (s *Store) Trace(traceID string) (spans []Span, sum Summary, ok bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t := s.traces[traceID]
	if t == nil {
		return nil, Summary{}, false
	}
	return slices.Clone(t.spans), t.summary, true
}

// Span returns one span of a trace, without copying the rest.
func (s *Store) Span(traceID, spanID string) (Span, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if t := s.traces[traceID]; t != nil {
		for _, sp := range t.spans {
			if sp.SpanID == spanID {
				return sp, true
			}
		}
	}
	return Span{}, false
}

// LinkedFrom returns, for the spans of traceID, the spans of other traces that link to them
// (at most limit): the BFF's delivery spans, in each transfer's trace, link to the tab's stream.
func (s *Store) LinkedFrom(traceID string, limit int) []Span {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []Span
	for id, t := range s.traces {
		if id == traceID {
			continue
		}
		for _, sp := range t.spans {
			for _, l := range sp.Links {
				if l.TraceID == traceID {
					out = append(out, sp)
					break
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b Span) int { return a.Start.Compare(b.Start) })
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// matcher is a compiled Query.Text.
type matcher struct {
	text       string // lower-cased
	key, value string // of key=value, when the text has that form
}

func newMatcher(text string) matcher {
	text = strings.TrimSpace(text)
	m := matcher{text: strings.ToLower(text)}
	if k, v, ok := strings.Cut(text, "="); ok && k != "" && !strings.ContainsAny(k, " \t") {
		m.key, m.value = k, v
	}
	return m
}

func (m matcher) trace(t *storedTrace) bool {
	if m.text == "" || strings.HasPrefix(t.id, m.text) {
		return true
	}
	for _, sp := range t.spans {
		if m.span(sp) {
			return true
		}
	}
	return false
}

func (m matcher) span(sp Span) bool {
	if sp.SpanID == m.text || containsFold(sp.Name, m.text) || containsFold(sp.StatusMessage, m.text) {
		return true
	}
	if m.key != "" {
		if v, ok := sp.Attrs[m.key]; ok && v == m.value {
			return true
		}
	}
	if valuesContain(sp.Attrs, m.text) {
		return true
	}
	for _, e := range sp.Events {
		if containsFold(e.Name, m.text) || valuesContain(e.Attrs, m.text) {
			return true
		}
	}
	return false
}

func valuesContain(attrs map[string]string, lower string) bool {
	for _, v := range attrs {
		if containsFold(v, lower) {
			return true
		}
	}
	return false
}

// containsFold reports whether lower (already lower-cased) is within s, ignoring case, without
// allocating for ASCII text: a search walks every attribute of every kept span.
func containsFold(s, lower string) bool {
	if lower == "" {
		return true
	}
	if len(lower) > len(s) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		if lower[i] >= utf8.RuneSelf {
			return strings.Contains(strings.ToLower(s), lower)
		}
	}
	first := lower[0]
	for i := 0; i+len(lower) <= len(s); i++ {
		if toLowerASCII(s[i]) != first {
			continue
		}
		j := 1
		for j < len(lower) && toLowerASCII(s[i+j]) == lower[j] {
			j++
		}
		if j == len(lower) {
			return true
		}
	}
	return false
}

func toLowerASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}
