// Package proto holds Thumela's protobuf contracts (thumela/<service>/v1) and, under gen/go,
// the Go code that `make generate` writes from them. Never edit gen/ by hand.
package proto
