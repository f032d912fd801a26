package app

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/thumela/thumela/services/fees/internal/domain"
)

// ErrInvalidEvent is returned by RecordTransfer for an event that can never be recorded.
var ErrInvalidEvent = errors.New("invalid transfer event")

// rememberedTransfers bounds how many recorded transfers the service remembers (recentTransfers):
// a transfer's three events arrive within seconds, so a few thousand cover every transfer in
// flight at hundreds a second, in about half a megabyte.
const rememberedTransfers = 8192

// RecordTransfer records a transfer's status from the transfers service's events. The history
// reads only whether a transfer failed, so once a transfer is recorded as not failed, its later
// steps (processing, completed) change nothing: this process remembers the transfers it
// recorded and does not write those steps again (two statements per transfer). A failure is
// always written. A transfer it does not remember (another replica's, or before a restart, or
// one whose pending event it never saw) is written as before.
func (s *Service) RecordTransfer(ctx context.Context, transferID, userID string, status domain.TransferStatus) error {
	if transferID == "" || userID == "" || !status.Known() {
		return fmt.Errorf("%w: transfer %q of user %q with status %q", ErrInvalidEvent, transferID, userID, status)
	}
	if s.history == nil {
		return nil
	}
	if status != domain.TransferFailed && s.recorded.has(transferID) {
		return nil
	}
	if err := s.history.Record(ctx, transferID, userID, status); err != nil {
		return err
	}
	s.recorded.add(transferID)
	return nil
}

// recentTransfers is a bounded set of transfer ids, the oldest forgotten first.
type recentTransfers struct {
	mu    sync.Mutex
	ids   map[string]struct{}
	order []string // a ring of the ids in ids, next the slot the next id takes
	next  int
}

func newRecentTransfers(n int) *recentTransfers {
	return &recentTransfers{ids: make(map[string]struct{}, n), order: make([]string, n)}
}

func (r *recentTransfers) has(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.ids[id]
	return ok
}

func (r *recentTransfers) add(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.ids[id]; ok {
		return
	}
	if old := r.order[r.next]; old != "" {
		delete(r.ids, old)
	}
	r.order[r.next] = id
	r.next = (r.next + 1) % len(r.order)
	r.ids[id] = struct{}{}
}
