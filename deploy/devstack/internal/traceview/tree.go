package traceview

import (
	"cmp"
	"hash/fnv"
	"slices"
	"strings"
	"time"
)

// node is one span placed in its trace's tree: the order and depth of the waterfall and of the
// JSON API's spans.
type node struct {
	Span
	Depth int
	// ParentMissing: the span names a parent that has not been received (the browser's span
	// above the BFF's request, or a parent still in an exporter's batch).
	ParentMissing bool
	Offset        time.Duration // from the trace's start
}

// buildTree orders a trace's spans depth-first: roots (no parent, or a parent not received) by
// start time, each followed by its children by start time. Spans caught in a parent cycle,
// which only a broken exporter sends, follow as roots of their own.
func buildTree(spans []Span, start time.Time) []node {
	byID := make(map[string]bool, len(spans))
	for _, sp := range spans {
		byID[sp.SpanID] = true
	}
	children := map[string][]Span{}
	var roots []Span
	for _, sp := range spans {
		if sp.ParentID != "" && byID[sp.ParentID] && sp.ParentID != sp.SpanID {
			children[sp.ParentID] = append(children[sp.ParentID], sp)
		} else {
			roots = append(roots, sp)
		}
	}
	byStart := func(a, b Span) int {
		return cmp.Or(a.Start.Compare(b.Start), strings.Compare(a.SpanID, b.SpanID))
	}
	slices.SortFunc(roots, byStart)
	for _, c := range children {
		slices.SortFunc(c, byStart)
	}

	out := make([]node, 0, len(spans))
	visited := make(map[string]bool, len(spans))
	var walk func(sp Span, depth int)
	walk = func(sp Span, depth int) {
		if visited[sp.SpanID] {
			return
		}
		visited[sp.SpanID] = true
		out = append(out, node{
			Span:          sp,
			Depth:         depth,
			ParentMissing: sp.ParentID != "" && (!byID[sp.ParentID] || sp.ParentID == sp.SpanID),
			Offset:        sp.Start.Sub(start),
		})
		for _, c := range children[sp.SpanID] {
			walk(c, depth+1)
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
	if len(out) < len(spans) {
		rest := slices.Clone(spans)
		slices.SortFunc(rest, byStart)
		for _, sp := range rest {
			walk(sp, 0)
		}
	}
	return out
}

// serviceHue gives each service a stable colour (one of the stylesheet's --svc-N), the same on
// every page and in every trace.
func serviceHue(service string) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(service))
	return int(h.Sum32() % serviceColours)
}

// serviceColours is how many --svc-N colours style.css defines.
const serviceColours = 8
