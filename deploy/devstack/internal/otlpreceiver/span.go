// Package otlpreceiver receives OpenTelemetry trace exports over OTLP/HTTP (POST /v1/traces,
// binary protobuf or JSON, optionally gzipped) and flattens them into Spans, in memory: what the
// trace-chain test (internal/tracechain) asserts on. (`make traces` shows the dev stack's traces
// in otel-desktop-viewer instead.)
package otlpreceiver

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/thumela/thumela/services/platform/intconv"
)

// Span is one received span, flattened: ids in lower-case hex, attribute values as strings, and
// the service.name of the process that sent it.
type Span struct {
	Service string
	// Resource is the sending process's resource attributes (service.version, host.name, …);
	// the spans of one export share the map, so it must not be modified.
	Resource map[string]string
	Scope    string // instrumentation scope, e.g. github.com/exaring/otelpgx
	Name     string
	Kind     string // server, client, producer, consumer, internal (or unspecified)
	TraceID  string
	SpanID   string
	ParentID string // "" for a root
	Attrs    map[string]string
	Start    time.Time
	End      time.Time
	// Status is "unset", "ok" or "error"; StatusMessage says why for an error.
	Status        string
	StatusMessage string
	Events        []Event
	Links         []Link
}

// Duration is End - Start, never negative (a span whose clock went backwards is an instant).
func (s Span) Duration() time.Duration {
	return max(s.End.Sub(s.Start), 0)
}

// IsError reports an error status.
func (s Span) IsError() bool { return s.Status == StatusError }

// Span statuses.
const (
	StatusUnset = "unset"
	StatusOK    = "ok"
	StatusError = "error"
)

// Event is a timestamped annotation of a span; a recorded error is the event "exception" with
// exception.type, exception.message and, when captured, exception.stacktrace.
type Event struct {
	Name  string
	Time  time.Time
	Attrs map[string]string
}

// Link points from a span to a span of this or another trace (the BFF's delivery of an event to
// a tab links to the tab's stream request).
type Link struct {
	TraceID string
	SpanID  string
	Attrs   map[string]string
}

// Flatten turns an export request into spans, in the order they were sent.
func Flatten(req *coltracepb.ExportTraceServiceRequest) []Span {
	var out []Span
	for _, rs := range req.GetResourceSpans() {
		resource := attrMap(rs.GetResource().GetAttributes())
		service := resource["service.name"]
		for _, ss := range rs.GetScopeSpans() {
			scope := ss.GetScope().GetName()
			for _, s := range ss.GetSpans() {
				span := Span{
					Service:       service,
					Resource:      resource,
					Scope:         scope,
					Name:          s.GetName(),
					Kind:          kindName(s.GetKind()),
					TraceID:       hex.EncodeToString(s.GetTraceId()),
					SpanID:        hex.EncodeToString(s.GetSpanId()),
					ParentID:      hex.EncodeToString(s.GetParentSpanId()),
					Attrs:         attrMap(s.GetAttributes()),
					Start:         unixNano(s.GetStartTimeUnixNano()),
					End:           unixNano(s.GetEndTimeUnixNano()),
					Status:        statusName(s.GetStatus().GetCode()),
					StatusMessage: s.GetStatus().GetMessage(),
				}
				for _, e := range s.GetEvents() {
					span.Events = append(span.Events, Event{
						Name:  e.GetName(),
						Time:  unixNano(e.GetTimeUnixNano()),
						Attrs: attrMap(e.GetAttributes()),
					})
				}
				for _, l := range s.GetLinks() {
					span.Links = append(span.Links, Link{
						TraceID: hex.EncodeToString(l.GetTraceId()),
						SpanID:  hex.EncodeToString(l.GetSpanId()),
						Attrs:   attrMap(l.GetAttributes()),
					})
				}
				out = append(out, span)
			}
		}
	}
	return out
}

func unixNano(ns uint64) time.Time {
	return time.Unix(0, intconv.Int64FromUint64(ns))
}

func attrMap(kvs []*commonpb.KeyValue) map[string]string {
	if len(kvs) == 0 {
		return nil
	}
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = ValueString(kv.GetValue())
	}
	return m
}

// ValueString renders an attribute value as text: scalars as Go prints them, arrays as
// [a, b], key-value lists as {k: v}, bytes in base64.
func ValueString(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_BoolValue:
		return strconv.FormatBool(x.BoolValue)
	case *commonpb.AnyValue_DoubleValue:
		return strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
	case *commonpb.AnyValue_BytesValue:
		return base64.StdEncoding.EncodeToString(x.BytesValue)
	case *commonpb.AnyValue_ArrayValue:
		parts := make([]string, 0, len(x.ArrayValue.GetValues()))
		for _, e := range x.ArrayValue.GetValues() {
			parts = append(parts, ValueString(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *commonpb.AnyValue_KvlistValue:
		parts := make([]string, 0, len(x.KvlistValue.GetValues()))
		for _, kv := range x.KvlistValue.GetValues() {
			parts = append(parts, kv.GetKey()+": "+ValueString(kv.GetValue()))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case nil:
		return ""
	default:
		return fmt.Sprint(v)
	}
}

func kindName(k tracepb.Span_SpanKind) string {
	return strings.ToLower(strings.TrimPrefix(k.String(), "SPAN_KIND_"))
}

func statusName(c tracepb.Status_StatusCode) string {
	switch c {
	case tracepb.Status_STATUS_CODE_OK:
		return StatusOK
	case tracepb.Status_STATUS_CODE_ERROR:
		return StatusError
	default:
		return StatusUnset
	}
}
