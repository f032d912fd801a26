package outbox

import "slices"

// RelayLockKey is r's drain lock, which a test takes to play another replica in mid-batch.
func RelayLockKey(r *Relay) int64 { return r.lockKey }

// RelayRegistered reports whether r is in this process's registry, i.e. whether Write wakes it
// in memory from now on.
func RelayRegistered(r *Relay) bool {
	cur := localRelays.relays.Load()
	return cur != nil && slices.Contains(*cur, r)
}

// The relay's statements on table (quoted) that find rows by seq, for the test of their plans.
var (
	MarkPublishedSQL = markPublishedSQL
	PruneSQL         = pruneSQL
)
