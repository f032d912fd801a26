// Package outage proves on one machine that an outage of a dependency during a burst loses
// nothing: its test runs the whole stack on a PostgreSQL cluster of its own, keeps a steady
// stream of sends, ATM withdrawals (through the dev ATM and the cash-out gateway) and cancels
// going, and meanwhile stops PostgreSQL for 10 s, stops NATS for 10 s and SIGKILLs
// notifications and cashout mid-request. Afterwards every accepted transfer is completed or
// failed, every voucher is in one final state or still collectable, every voucher SMS was
// sent exactly once, and transfers' reconciliation (full) finds no mismatch. docs/outages.md
// describes what it proves and what the BFF answers while a dependency is down; `make
// test-go` runs it after building the binaries.
package outage
