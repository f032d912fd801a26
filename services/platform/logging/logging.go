// Package logging builds the structured logger every Thumela process uses: log/slog JSON, one
// record per line, tagged with the service and, when the record's context carries an
// OpenTelemetry span, its trace_id and span_id, so that on-call can jump from a log line to the
// trace of the request that wrote it.
//
// The ids come from the context given to the *Context methods (InfoContext, ErrorContext, …);
// plain Info has no context and so no ids. Code on a request path should always pass ctx.
package logging

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"go.opentelemetry.io/otel/trace"
)

// Attribute keys added to every record.
const (
	ServiceKey = "service"
	TraceIDKey = "trace_id"
	SpanIDKey  = "span_id"
)

// ErrUnknownLevel is returned by ParseLevel for a name it does not know.
var ErrUnknownLevel = errors.New("logging: unknown level")

// New returns a JSON logger writing to w at the given minimum level (a slog.Level, or a
// *slog.LevelVar to change it at run time), tagging each record with service and the trace of
// its context.
func New(service string, w io.Writer, level slog.Leveler) *slog.Logger {
	json := slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})
	return slog.New(NewTraceHandler(json.WithAttrs([]slog.Attr{slog.String(ServiceKey, service)})))
}

// ParseLevel reads a level name as operators write it: debug, info, warn/warning, error, in any
// case, or slog's offset form such as "INFO+2". An empty string means info.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return slog.LevelInfo, nil
	case "warning":
		return slog.LevelWarn, nil
	}
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.TrimSpace(s))); err != nil {
		return slog.LevelInfo, fmt.Errorf("%w %q: want debug, info, warn or error", ErrUnknownLevel, s)
	}
	return l, nil
}

// NewTraceHandler wraps next so that every record handled with a context carrying a valid span
// gets trace_id and span_id attributes at the top level, whatever groups the logger has opened
// (an id nested under a group would be missed by log search).
func NewTraceHandler(next slog.Handler) slog.Handler {
	return &traceHandler{next: next}
}

// traceHandler keeps attributes given before the first WithGroup in next (pre-formatted, the
// fast path) and replays later groups and attributes itself on each record, because a record's
// own attributes always land in the innermost open group and the trace ids must not.
type traceHandler struct {
	next slog.Handler
	// pending holds the groups and attributes added after the first WithGroup, in order.
	pending []groupOrAttrs
}

type groupOrAttrs struct {
	group string      // set for a WithGroup
	attrs []slog.Attr // set for a WithAttrs
}

func (h *traceHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

func (h *traceHandler) Handle(ctx context.Context, r slog.Record) error {
	var ids []slog.Attr
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		ids = []slog.Attr{
			slog.String(TraceIDKey, sc.TraceID().String()),
			slog.String(SpanIDKey, sc.SpanID().String()),
		}
	}
	if len(h.pending) == 0 {
		r.AddAttrs(ids...)
		return h.next.Handle(ctx, r)
	}
	// Rebuild the nesting: the record's attributes go inside the innermost group.
	inner := make([]slog.Attr, 0, r.NumAttrs())
	r.Attrs(func(a slog.Attr) bool {
		inner = append(inner, a)
		return true
	})
	for i := len(h.pending) - 1; i >= 0; i-- {
		p := h.pending[i]
		if p.group != "" {
			inner = []slog.Attr{{Key: p.group, Value: slog.GroupValue(inner...)}}
			continue
		}
		inner = append(append([]slog.Attr(nil), p.attrs...), inner...)
	}
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	out.AddAttrs(inner...)
	out.AddAttrs(ids...)
	return h.next.Handle(ctx, out)
}

func (h *traceHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	if len(h.pending) == 0 {
		return &traceHandler{next: h.next.WithAttrs(attrs)}
	}
	return &traceHandler{next: h.next, pending: h.with(groupOrAttrs{attrs: attrs})}
}

func (h *traceHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &traceHandler{next: h.next, pending: h.with(groupOrAttrs{group: name})}
}

func (h *traceHandler) with(g groupOrAttrs) []groupOrAttrs {
	out := make([]groupOrAttrs, len(h.pending), len(h.pending)+1)
	copy(out, h.pending)
	return append(out, g)
}
