package outbox

import (
	"slices"
	"sync"
	"sync/atomic"
)

// Waking the relay without pg_notify.
//
// pg_notify takes a server-wide lock at commit (notifications must be queued in commit order),
// so every committing transaction of the PostgreSQL server, of every service, queues behind
// it; benchmarked, one NOTIFY per transaction cut throughput to 0.35–0.51×. The relay that
// publishes a row almost always runs in the process that wrote it, so Write wakes it in
// memory instead: it registers a postgres.OnCommit hook that pokes every relay running in
// this process once the transaction has committed. NOTIFY stays the fallback for a
// transaction InTx did not start (OnCommit refuses it) and for a process that runs no relay.
//
// Replicas of a service each run a relay, and the in-memory wake reaches only the writer's
// process. That is enough: see drainBatch for why a relay woken while another replica holds
// the drain lock still publishes the row right after that replica's batch. Rows whose wake
// was lost anyway (the process stopped between commit and drain) are found by the next
// replica's drain or its fallback sweep.

// localRelays is the set of relays running in this process: an immutable slice replaced on
// Run's start and end, so the per-write and per-commit reads take no lock.
var localRelays struct {
	mu     sync.Mutex // serialises replacements
	relays atomic.Pointer[[]*Relay]
}

func registerLocal(r *Relay) {
	localRelays.mu.Lock()
	defer localRelays.mu.Unlock()
	var next []*Relay
	if cur := localRelays.relays.Load(); cur != nil {
		next = slices.Clone(*cur)
	}
	next = append(next, r)
	localRelays.relays.Store(&next)
}

func unregisterLocal(r *Relay) {
	localRelays.mu.Lock()
	defer localRelays.mu.Unlock()
	cur := localRelays.relays.Load()
	if cur == nil {
		return
	}
	next := slices.DeleteFunc(slices.Clone(*cur), func(x *Relay) bool { return x == r })
	localRelays.relays.Store(&next)
}

// localRelayRunning reports whether a relay runs in this process, i.e. whether an in-memory
// wake-up reaches anyone.
func localRelayRunning() bool {
	cur := localRelays.relays.Load()
	return cur != nil && len(*cur) > 0
}

// wakeLocalRelays pokes every relay running in this process. A process normally runs one
// relay, its own service's; any other (tests run several, one per database) merely drains
// and finds nothing, which is harmless. It never blocks: each relay's wake channel holds one
// pending wake-up, and a full channel already guarantees a drain that starts after this
// commit (the pending wake is consumed before the drain that serves it begins).
func wakeLocalRelays() {
	cur := localRelays.relays.Load()
	if cur == nil {
		return
	}
	for _, r := range *cur {
		r.notify()
	}
}
