package server_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/grpc/metadata"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"

	"github.com/thumela/thumela/bff/internal/historycache"
	"github.com/thumela/thumela/bff/internal/live"
)

// transfersHistory is the one transfer of each user that countingTransfers lists: its status,
// changed by CancelTransfer or by the test (as the worker would), and the lists answered.
type transfersHistory struct {
	mu     sync.Mutex
	status map[string]transfersv1.TransferStatus
	lists  atomic.Int64
}

func (h *transfersHistory) set(userID string, s transfersv1.TransferStatus) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.status == nil {
		h.status = map[string]transfersv1.TransferStatus{}
	}
	h.status[userID] = s
}

func (h *transfersHistory) page(userID string) *transfersv1.ListTransfersResponse {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.status[userID]
	if !ok {
		s = transfersv1.TransferStatus_TRANSFER_STATUS_PENDING
	}
	return &transfersv1.ListTransfersResponse{TotalCount: 1, Transfers: []*transfersv1.Transfer{{Id: "t-" + userID, UserId: userID, Status: s}}}
}

// userOf is the user of the call's access token ("access-for-<session>", usersIdentity's).
func (f *countingTransfers) userOf(ctx context.Context) string {
	md, _ := metadata.FromIncomingContext(ctx)
	token := strings.TrimPrefix(strings.Join(md.Get("authorization"), ""), "Bearer access-for-")
	f.users.mu.Lock()
	defer f.users.mu.Unlock()
	return f.users.sessions[token]
}

func (f *countingTransfers) ListTransfers(ctx context.Context, _ *transfersv1.ListTransfersRequest) (*transfersv1.ListTransfersResponse, error) {
	f.history.lists.Add(1)
	return f.history.page(f.userOf(ctx)), nil
}

func (f *countingTransfers) CancelTransfer(ctx context.Context, req *transfersv1.CancelTransferRequest) (*transfersv1.CancelTransferResponse, error) {
	user := f.userOf(ctx)
	f.history.set(user, transfersv1.TransferStatus_TRANSFER_STATUS_FAILED)
	return &transfersv1.CancelTransferResponse{Transfer: &transfersv1.Transfer{Id: req.GetTransferId(), UserId: user}}, nil
}

// historyBFF is a BFF with its live hub and a history cache of a TTL long enough that only
// events and changes drop a page within a test.
func historyBFF(t *testing.T) (*liveBFF, jetstream.JetStream) {
	t.Helper()
	js := jetStream(t)
	return newLiveBFFWith(t, js, live.Limits{}, historycache.New(time.Hour, historycache.DefaultMaxPages)), js
}

// historyOf signs userID in and returns its transfers client and its events client, sharing
// the session.
func (b *liveBFF) historyOf(t *testing.T, userID string) (bffv1connect.TransfersServiceClient, bffv1connect.EventsServiceClient) {
	t.Helper()
	hc := b.browser(t, userID)
	return bffv1connect.NewTransfersServiceClient(hc, b.srv.URL), bffv1connect.NewEventsServiceClient(hc, b.srv.URL)
}

// listStatus reads the first page and returns its transfer's status.
func listStatus(t *testing.T, c bffv1connect.TransfersServiceClient) bffv1.TransferStatus {
	t.Helper()
	res, err := c.ListTransfers(context.Background(), &bffv1.ListTransfersRequest{Page: 1, PageSize: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.GetTransfers()) != 1 {
		t.Fatalf("page: %v", res)
	}
	return res.GetTransfers()[0].GetStatus()
}

// A page read again is answered from memory; once the sender's transfer event has reached a
// tab, the page the tab then reads is the new one (the hub drops the page before it queues the
// event), and another sender's page is untouched.
func TestHistoryPageIsReadAgainOnceATabHearsOfAChange(t *testing.T) {
	t.Parallel()
	b, js := historyBFF(t)
	u1, events := b.historyOf(t, "u1")
	u2, _ := b.historyOf(t, "u2")

	for range 3 {
		if got := listStatus(t, u1); got != bffv1.TransferStatus_TRANSFER_STATUS_PENDING {
			t.Fatalf("status %v", got)
		}
	}
	listStatus(t, u2)
	listStatus(t, u2)
	if n := b.transfers.history.lists.Load(); n != 2 {
		t.Fatalf("transfers was asked %d times for 5 reads of 2 senders' first pages, want 2", n)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tab, _ := watch(t, ctx, events, "")
	// The worker completes u1's transfer: the row changes, then its event is published.
	b.transfers.history.set("u1", transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED)
	publishStatus(t, js, "u1", "t-u1")
	next(t, tab)
	if got := listStatus(t, u1); got != bffv1.TransferStatus_TRANSFER_STATUS_COMPLETED {
		t.Fatalf("after the tab heard of the change the page still says %v", got)
	}
	listStatus(t, u2)
	if n := b.transfers.history.lists.Load(); n != 3 {
		t.Fatalf("transfers was asked %d times, want 3 (u1's page again, u2's from memory)", n)
	}
}

// A change made through the BFF drops the sender's pages when it answers: the next read is
// the transfers service's, without waiting for the event.
func TestHistoryPageIsReadAgainAfterACancelThroughTheBFF(t *testing.T) {
	t.Parallel()
	b, _ := historyBFF(t)
	u1, _ := b.historyOf(t, "u1")
	listStatus(t, u1)
	if _, err := u1.CancelTransfer(context.Background(), &bffv1.CancelTransferRequest{Id: "t-u1"}); err != nil {
		t.Fatal(err)
	}
	if got := listStatus(t, u1); got != bffv1.TransferStatus_TRANSFER_STATUS_FAILED {
		t.Fatalf("after the cancel the page says %v", got)
	}
	if n := b.transfers.history.lists.Load(); n != 2 {
		t.Fatalf("transfers was asked %d times, want 2", n)
	}
}

// Without a cache (HISTORY_CACHE_TTL=0) every read asks transfers.
func TestHistoryWithoutACacheAsksEveryTime(t *testing.T) {
	t.Parallel()
	b := newLiveBFF(t, jetStream(t), live.Limits{})
	u1, _ := b.historyOf(t, "u1")
	listStatus(t, u1)
	listStatus(t, u1)
	if n := b.transfers.history.lists.Load(); n != 2 {
		t.Fatalf("transfers was asked %d times, want 2", n)
	}
}
