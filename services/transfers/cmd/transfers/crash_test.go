package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/pgtest"
	"github.com/thumela/thumela/services/platform/service/servicetest"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// The real binary, killed with SIGKILL (TRANSFERS_CRASHPOINT) before a charge, after a charge
// and before its result is recorded, and after completion is committed and before its events
// are published (NATS is kept down meanwhile), then restarted: every transfer ends completed
// or failed, each was charged exactly once at the payments peer (however often the worker
// asked), and each step's event reaches the stream exactly once, as does each notification
// request.
func TestSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := servicetest.BuildBinary(t, ".")
	for _, point := range app.Checkpoints {
		t.Run(point, func(t *testing.T) {
			t.Parallel()
			crashTest(t, bin, point)
		})
	}
}

func crashTest(t *testing.T, bin, point string) {
	addr := servicetest.FreeAddr(t)
	dbURL := pgtest.NewDatabase(t)
	e := newTestEnv(t)
	env := os.Environ()
	for k, v := range e.vars() {
		env = append(env, k+"="+v)
	}
	env = append(env,
		"DATABASE_URL="+dbURL,
		"TRANSFERS_GRPC_ADDR="+addr,
		"TRANSFERS_PROCESSING_LEASE=2s", // a dead worker's job is taken over after 2 s
		"TRANSFERS_WORKER_SWEEP=200ms",
		"TRANSFERS_SHUTDOWN_TIMEOUT=5s",
		"LOG_LEVEL=warn",
	)

	conn := servicetest.Dial(t, addr)
	client := transfersv1.NewTransfersServiceClient(conn)
	user := uuid.NewString()
	ctx := e.userContext(t, user)
	approve, decline := uuid.NewString(), uuid.NewString()
	e.peers.Payments.AddCard(user, approve, "Everyday Visa", "4242", testkit.TokenApprove)
	e.peers.Payments.AddCard(user, decline, "Declined Visa", "0002", testkit.TokenDecline)
	type job struct {
		key, pm string
		want    transfersv1.TransferStatus
		id      string
	}
	jobs := []*job{
		{key: "crash-1", pm: approve, want: transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED},
		{key: "crash-2", pm: decline, want: transfersv1.TransferStatus_TRANSFER_STATUS_FAILED},
		{key: "crash-3", pm: approve, want: transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED},
	}

	// First run: crashes at point. Creates after the crash fail; the client retries them with
	// the same keys after the restart, as a browser would.
	first := servicetest.StartChild(t, bin, append(env, "TRANSFERS_CRASHPOINT="+point), "first.log")
	first.WaitServing(t, conn)
	if point == app.CheckpointBeforePublish {
		e.nats.Shutdown() // what is committed stays in the outbox
	}
	for _, j := range jobs {
		req := testkit.Request(j.key, j.pm)
		if res, err := client.CreateTransfer(ctx, req); err == nil {
			j.id = res.GetTransfer().GetId()
		}
	}
	first.RequireKilledBySIGKILL(t, 30*time.Second)

	// What the crash left behind.
	db, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	var processing []string
	var finished, unpublished int
	rows, err := db.Query(t.Context(), `SELECT id::text FROM transfers.transfers WHERE status = 'processing'`)
	if err != nil {
		t.Fatal(err)
	}
	if processing, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(t.Context(), `SELECT count(*) FROM transfers.transfers WHERE status IN ('completed', 'failed')`).Scan(&finished); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(t.Context(), `SELECT count(*) FROM transfers.outbox WHERE published_at IS NULL`).Scan(&unpublished); err != nil {
		t.Fatal(err)
	}
	caught := false // the job the crash interrupted is there, in the state the point implies
	for _, id := range processing {
		switch point {
		case app.CheckpointBeforeCharge:
			caught = caught || e.peers.Payments.ChargeCalls(id) == 0
		case app.CheckpointAfterCharge:
			caught = caught || e.peers.Payments.ProcessorCharges(id) == 1
		}
	}
	if point == app.CheckpointBeforePublish {
		caught = finished > 0 && unpublished > 0
		e.nats.Restart()
	}
	if !caught {
		t.Fatalf("after a crash at %s: processing %v, %d finished, %d events unpublished", point, processing, finished, unpublished)
	}

	// Second run, without the crash point.
	second := servicetest.StartChild(t, bin, env, "second.log")
	second.WaitServing(t, conn)
	for _, j := range jobs {
		res, err := client.CreateTransfer(ctx, testkit.Request(j.key, j.pm))
		if err != nil {
			t.Fatalf("retry of %s: %v", j.key, err)
		}
		if j.id != "" && res.GetTransfer().GetId() != j.id {
			t.Fatalf("retry of %s made %s, want %s", j.key, res.GetTransfer().GetId(), j.id)
		}
		j.id = res.GetTransfer().GetId()
	}
	for _, j := range jobs {
		testkit.Eventually(t, 30*time.Second, fmt.Sprintf("%s to end %v", j.key, j.want), func() bool {
			got, err := client.GetTransfer(ctx, &transfersv1.GetTransferRequest{TransferId: j.id})
			return err == nil && got.GetTransfer().GetStatus() == j.want
		})
	}
	time.Sleep(500 * time.Millisecond) // a few sweeps: nothing more may be charged

	retried := false
	for _, j := range jobs {
		calls, made := e.peers.Payments.ChargeCalls(j.id), e.peers.Payments.ProcessorCharges(j.id)
		if made != 1 || calls < 1 {
			t.Errorf("%s: %d processor charges (%d calls), want exactly 1", j.key, made, calls)
		}
		retried = retried || calls > 1
	}
	if point == app.CheckpointAfterCharge && !retried {
		t.Error("no charge was asked for twice: the crash after the charge was not replayed")
	}
	if n := e.peers.Payments.ApprovedCharges(); n != 2 {
		t.Errorf("%d approved charges, want 2", n)
	}

	// Every step of every transfer is on the stream, once.
	js := e.jetStream(t)
	subject, _ := bus.Subject(bus.DomainTransfers, user, "status")
	for _, j := range jobs {
		waitEvents(t, js, subject, j.id, 3)
		time.Sleep(100 * time.Millisecond) // a duplicate would have arrived by now
		evs := readEvents(t, js, subject, j.id)
		var got []transfersv1.TransferStatus
		for _, ev := range evs {
			got = append(got, ev.GetTransfer().GetStatus())
		}
		want := []transfersv1.TransferStatus{transfersv1.TransferStatus_TRANSFER_STATUS_PENDING, transfersv1.TransferStatus_TRANSFER_STATUS_PROCESSING, j.want}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: events on the stream %v, want %v", j.key, got, want)
		}
	}
	testkit.Eventually(t, 10*time.Second, "every outbox row to be marked published", func() bool {
		return db.QueryRow(t.Context(), `SELECT count(*) FROM transfers.outbox WHERE published_at IS NULL`).Scan(&unpublished) == nil && unpublished == 0
	})
	// Every completed transfer asked for its SMS and its receipt exactly once, whichever step the
	// crash repeated; the declined one for nothing. (Everything is published by now: a
	// duplicate would be on the stream already.)
	requests := e.notificationRequests(t, js)
	for _, j := range jobs {
		got := requestsOf(requests, j.id)
		want := map[notificationsv1.Template]int{}
		if j.want == transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED {
			want[notificationsv1.Template_TEMPLATE_VOUCHER_ISSUED] = 1
			want[notificationsv1.Template_TEMPLATE_TRANSFER_RECEIPT] = 1
		}
		if !maps.Equal(got, want) {
			t.Errorf("%s: notification requests on the stream %v, want %v", j.key, got, want)
		}
	}
	second.Stop(t)
}
