// Package tracechain checks, against the whole of Thumela running as real processes, that one
// transfer is one trace: the browser's request → BFF → transfers → fees / paymentmethods →
// PostgreSQL → outbox relay → NATS → the worker's steps → the BFF's live stream, linked by trace
// context in gRPC metadata and NATS headers.
//
// Collector is a minimal OTLP/HTTP trace receiver that keeps every span in memory; the test
// (tracechain_test.go) points every process's exporter at it, makes a transfer as the browser
// does, and asserts the chain of spans.
package tracechain
