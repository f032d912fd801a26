package scaleout_test

import (
	"fmt"
	"strings"
	"testing"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
)

// recorder collects what a check reports.
type recorder struct{ errs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

const (
	pending    = transfersv1.TransferStatus_TRANSFER_STATUS_PENDING
	processing = transfersv1.TransferStatus_TRANSFER_STATUS_PROCESSING
	completed  = transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED
)

// oneTransfer is the stream of one transfer "t1": its three statuses and its voucher.
var oneTransfer = []streamEvent{
	{seq: 10, kind: "status", transferID: "t1", status: pending},
	{seq: 12, kind: "status", transferID: "t1", status: processing},
	{seq: 15, kind: "status", transferID: "t1", status: completed},
	{seq: 16, kind: "voucher", transferID: "t1", status: completed},
}

func delivered(cursors ...uint64) *watcher {
	w := &watcher{user: 0, userID: "u1"}
	byCursor := map[uint64]streamEvent{}
	for _, ev := range oneTransfer {
		byCursor[ev.seq] = ev
	}
	for _, c := range cursors {
		ev := byCursor[c]
		w.deliveries = append(w.deliveries, delivery{cursor: c, transferID: ev.transferID, status: bffv1.TransferStatus(ev.status)})
	}
	return w
}

// The delivery check must fail on a lost, a repeated, a reordered or a foreign event, and
// pass on exactly the stream's events in order.
func TestCheckDeliveredCatchesLossRepeatsAndDisorder(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		w    *watcher
		want string // in the report; "" for none
	}{
		"exact":     {delivered(10, 12, 15, 16), ""},
		"lost":      {delivered(10, 15, 16), "missing 12=status/PROCESSING"},
		"twice":     {delivered(10, 12, 12, 15, 16), "more than once 12=status/PROCESSING"},
		"reordered": {delivered(10, 15, 12, 16), "in order false"},
		"foreign":   {delivered(10, 11, 12, 15, 16), "cursor 11, which is none of its transfer events"},
	} {
		r := &recorder{}
		checkDelivered(r, tc.w, oneTransfer)
		got := strings.Join(r.errs, "\n")
		switch {
		case tc.want == "" && got != "":
			t.Errorf("%s: reported %q", name, got)
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("%s: report %q does not say %q", name, got, tc.want)
		}
	}
	// A delivery whose transfer or status is not the event's at its cursor.
	w := delivered(10, 12, 15, 16)
	w.deliveries[1].status = bffv1.TransferStatus_TRANSFER_STATUS_COMPLETED
	r := &recorder{}
	checkDelivered(r, w, oneTransfer)
	if len(r.errs) == 0 {
		t.Error("a delivery with the wrong status at its cursor passed")
	}
}

// The stream check must fail on a step published twice, a step missing, or steps out of
// order, and pass on each step once in order.
func TestCheckStreamCatchesRepeatedAndMissingSteps(t *testing.T) {
	t.Parallel()
	dup := append(append([]streamEvent{}, oneTransfer[:2]...), oneTransfer[1:]...)
	swapped := []streamEvent{oneTransfer[1], oneTransfer[0], oneTransfer[2], oneTransfer[3]}
	for name, tc := range map[string]struct {
		events []streamEvent
		ok     bool
	}{
		"exact":    {oneTransfer, true},
		"repeated": {dup, false},
		"missing":  {oneTransfer[:3], false},
		"swapped":  {swapped, false},
	} {
		r := &recorder{}
		checkStreamHasEachStepOnce(r, map[string][]streamEvent{"u1": tc.events}, []created{{id: "t1"}})
		if ok := len(r.errs) == 0; ok != tc.ok {
			t.Errorf("%s: passed %v, want %v (%v)", name, ok, tc.ok, r.errs)
		}
	}
}
