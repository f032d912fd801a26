package tracechain

import (
	"net/http"
	"slices"
	"sync"

	"github.com/thumela/thumela/deploy/devstack/internal/otlpreceiver"
)

// Span is one received span (ids in hex, attributes as strings, the sender's service.name).
type Span = otlpreceiver.Span

// Collector is an OTLP/HTTP trace receiver (POST /v1/traces, protobuf or JSON, optionally
// gzipped) that keeps every span in memory, unbounded: a test's worth. It is an http.Handler
// for httptest.NewServer.
type Collector struct {
	mu    sync.Mutex
	spans []Span
	once  sync.Once
	h     http.Handler
}

func (c *Collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.once.Do(func() { c.h = otlpreceiver.Handler(c.add) })
	c.h.ServeHTTP(w, r)
}

func (c *Collector) add(spans []Span) {
	c.mu.Lock()
	c.spans = append(c.spans, spans...)
	c.mu.Unlock()
}

// Spans returns a copy of every span received so far.
func (c *Collector) Spans() []Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.spans)
}
