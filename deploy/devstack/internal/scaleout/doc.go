// Package scaleout proves on one machine that Thumela scales out: its test runs two BFF and
// two transfers instances (one of each other service) against one PostgreSQL and one NATS,
// drives transfers through both BFFs while killing instances mid-run, and checks that every
// transfer was processed exactly once and every status event reached its sender's live
// stream exactly once, in order, whichever BFF the stream was on. docs/deployment.md
// ("Scale-out") describes what it shows; `make test-go` runs it after building the binaries.
package scaleout
