package grpcport_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

// A statement's window: from inclusive, before exclusive, the sender's own transfers only, and
// the count matching the window (not the whole history).
func TestListTransfersWindow(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	user, pm := e.NewUser()
	ctx := e.Ctx(t, user)
	sast := time.FixedZone("SAST", 2*60*60)
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, sast)
	before := time.Date(2026, 12, 1, 0, 0, 0, 0, sast)
	at := []time.Time{
		from.Add(-time.Microsecond),   // the last instant of October: out
		from,                          // the first instant of November: in
		from.Add(14 * 24 * time.Hour), // mid-month: in
		before.Add(-time.Microsecond), // the last instant of November: in
		before,                        // December: out
	}
	var ids []string
	for i, ts := range at {
		tr := create(t, ctx, e, testkit.Request("w"+string(rune('a'+i)), pm))
		if _, err := e.Pool.Exec(context.Background(), `UPDATE transfers SET created_at = $2 WHERE id = $1`, tr.GetId(), ts); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tr.GetId())
	}
	other, otherPM := e.NewUser()
	theirs := create(t, e.Ctx(t, other), e, testkit.Request("theirs", otherPM))
	if _, err := e.Pool.Exec(context.Background(), `UPDATE transfers SET created_at = $2 WHERE id = $1`, theirs.GetId(), from.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}

	res, err := e.Client.ListTransfers(ctx, &transfersv1.ListTransfersRequest{
		CreatedFrom: timestamppb.New(from), CreatedBefore: timestamppb.New(before), PageSize: 50,
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tr := range res.GetTransfers() {
		got = append(got, tr.GetId())
	}
	if want := []string{ids[3], ids[2], ids[1]}; !slices.Equal(got, want) || res.GetTotalCount() != 3 {
		t.Fatalf("window listed %v (total %d), want %v (total 3)", got, res.GetTotalCount(), want)
	}

	// Open on one side.
	res, err = e.Client.ListTransfers(ctx, &transfersv1.ListTransfersRequest{CreatedFrom: timestamppb.New(before), PageSize: 50})
	if err != nil || res.GetTotalCount() != 1 || res.GetTransfers()[0].GetId() != ids[4] {
		t.Fatalf("from December: %v, %v", res, err)
	}
	res, err = e.Client.ListTransfers(ctx, &transfersv1.ListTransfersRequest{CreatedBefore: timestamppb.New(from), PageSize: 50})
	if err != nil || res.GetTotalCount() != 1 || res.GetTransfers()[0].GetId() != ids[0] {
		t.Fatalf("before November: %v, %v", res, err)
	}

	// A reversed or empty window is the caller's mistake.
	for _, w := range [][2]time.Time{{before, from}, {from, from}} {
		_, err = e.Client.ListTransfers(ctx, &transfersv1.ListTransfersRequest{CreatedFrom: timestamppb.New(w[0]), CreatedBefore: timestamppb.New(w[1])})
		if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), "end of the period") {
			t.Fatalf("window %v: %v", w, err)
		}
	}
}

// The window is read from transfers_user_created_idx, so a statement costs a range of the
// sender's index entries, not a scan of their history (or of everyone's).
func TestListTransfersWindowUsesTheIndex(t *testing.T) {
	t.Parallel()
	e := testkit.New(t, testkit.Options{})
	ctx := context.Background()
	tx, err := e.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, `SET LOCAL enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	var plan strings.Builder
	rows, err := tx.Query(ctx, `EXPLAIN SELECT id FROM transfers WHERE user_id = $1 AND created_at >= $2 AND created_at < $3
		ORDER BY created_at DESC, id DESC LIMIT 50`, "00000000-0000-0000-0000-000000000001", time.Now().Add(-time.Hour), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(line + "\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan.String(), "transfers_user_created_idx") || strings.Contains(plan.String(), "Sort") {
		t.Fatalf("the window is not read from (user_id, created_at):\n%s", plan.String())
	}
}
