package server_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
)

// statementTransfers answers the sender "u1"'s transfers as the real service scopes them: any
// other id is NotFound; it records the windows it was asked for.
type statementTransfers struct {
	transfersv1.UnimplementedTransfersServiceServer
	windows []*transfersv1.ListTransfersRequest
}

func (f *statementTransfers) GetTransfer(_ context.Context, req *transfersv1.GetTransferRequest) (*transfersv1.GetTransferResponse, error) {
	switch req.GetTransferId() {
	case "t-completed":
		return &transfersv1.GetTransferResponse{Transfer: awaitingTransfer("t-completed", "+27821234567", "918273645501", 3, 1)}, nil
	case "t-refunded", "t-refund-pending":
		// A cancelled voucher whose money was, or is being, refunded: it paid no one.
		tr := awaitingTransfer(req.GetTransferId(), "+27821234567", "918273645501", 3, 1)
		tr.Voucher.CollectionStatus = transfersv1.CollectionStatus_COLLECTION_STATUS_CANCELLED
		tr.RefundStatus = transfersv1.RefundStatus_REFUND_STATUS_REFUNDED
		if req.GetTransferId() == "t-refund-pending" {
			tr.RefundStatus = transfersv1.RefundStatus_REFUND_STATUS_PENDING
		}
		return &transfersv1.GetTransferResponse{Transfer: tr}, nil
	case "t-pending":
		tr := awaitingTransfer("t-pending", "+27821234567", "", 3, 1)
		tr.Status, tr.Voucher = transfersv1.TransferStatus_TRANSFER_STATUS_PENDING, nil
		return &transfersv1.GetTransferResponse{Transfer: tr}, nil
	}
	return nil, status.Error(codes.NotFound, "transfer not found")
}

func (f *statementTransfers) ListTransfers(_ context.Context, req *transfersv1.ListTransfersRequest) (*transfersv1.ListTransfersResponse, error) {
	f.windows = append(f.windows, req)
	tr := awaitingTransfer("t-completed", "+27821234567", "918273645501", 3, 1)
	tr.CreatedAt = timestamppb.New(req.GetCreatedFrom().AsTime())
	return &transfersv1.ListTransfersResponse{Transfers: []*transfersv1.Transfer{tr}, TotalCount: 1}, nil
}

func TestStatementAndProofEndpoints(t *testing.T) {
	fake := &statementTransfers{}
	_, _, deps := newBFFWithBus(t, nil)
	conn := serveUpstream(t, func(s *grpc.Server) { transfersv1.RegisterTransfersServiceServer(s, fake) })
	deps.Transfers = transfersv1.NewTransfersServiceClient(conn)
	srv := serveBFF(t, deps) // the file endpoints take their clients when the handler is built
	_, hc := client(t, srv)

	get := func(path string, signedIn bool, header ...string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		c := srv.Client()
		if signedIn {
			c = hc
		}
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}

	// Signed out: refused before anything is read, the query too.
	for _, q := range []string{"from=2026-11-01&to=2026-11-30&format=csv", "format=xls", ""} {
		if res, _ := get("/api/statement?"+q, false); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("signed out, %q: %d", q, res.StatusCode)
		}
	}
	if res, err := hc.Do(signInRequest(t, srv, "right-password")); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("sign in: %v %v", res, err)
	}

	res, body := get("/api/statement?from=2026-11-01&to=2026-11-30&format=csv", true)
	if res.StatusCode != http.StatusOK || res.Header.Get("Cache-Control") != "no-store" ||
		res.Header.Get("Content-Disposition") != `attachment; filename="thumela-statement-2026-11-01-to-2026-11-30.csv"` ||
		!strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("CSV answer %d %v", res.StatusCode, res.Header)
	}
	if !strings.Contains(body, "t-comple,Thandi Mokoena,+27 ** *** 4567,") || !strings.Contains(body, "500.00,0.00,0.00,512.45,Completed,Awaiting collection") || strings.Contains(body, "918273645501") {
		t.Fatalf("CSV body:\n%s", body)
	}
	w := fake.windows[len(fake.windows)-1]
	if w.GetPageSize() != 50 || w.GetCreatedFrom().AsTime().Format("2006-01-02T15:04Z07:00") != "2026-10-31T22:00Z" {
		t.Fatalf("window asked: %v", w)
	}

	res, body = get("/api/statement?from=2026-11-01&to=2026-11-30&format=pdf", true)
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/pdf" || !strings.HasPrefix(body, "%PDF-") {
		t.Fatalf("PDF answer %d %v", res.StatusCode, res.Header)
	}

	// Bad input: 400 and the reason, nothing else.
	for _, q := range []string{"from=2026-11-01&to=2026-11-30", "from=2026-11-01&to=2026-11-30&format=xls", "from=2026-13-01&to=2026-11-30&format=csv",
		"from=2026-11-30&to=2026-11-01&format=csv", "from=2025-01-01&to=2026-11-30&format=pdf", "to=2026-11-30&format=csv"} {
		res, body := get("/api/statement?"+q, true)
		if res.StatusCode != http.StatusBadRequest || strings.Contains(body, "Thandi") || len(body) > 200 || body == "" {
			t.Errorf("%s: %d %q", q, res.StatusCode, body)
		}
	}

	res, body = get("/api/transfers/t-completed/proof-of-payment.pdf", true)
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(body, "%PDF-") || strings.Contains(body, "918273645501") ||
		res.Header.Get("Content-Disposition") != `attachment; filename="thumela-proof-of-payment-tcomple.pdf"` {
		t.Fatalf("proof answer %d %v", res.StatusCode, res.Header)
	}
	// Another user's (or an unknown) transfer is not found; one not completed has no proof.
	if res, _ := get("/api/transfers/someone-elses/proof-of-payment.pdf", true); res.StatusCode != http.StatusNotFound {
		t.Errorf("another user's transfer: %d", res.StatusCode)
	}
	if res, body := get("/api/transfers/t-pending/proof-of-payment.pdf", true); res.StatusCode != http.StatusConflict || !strings.Contains(body, "once the transfer has completed") {
		t.Errorf("pending transfer: %d %q", res.StatusCode, body)
	}
	// A refunded transfer, or one being refunded, has no proof of payment: 409 and the reason
	// in words, never a PDF that says it was paid (the walk's F9).
	for id, words := range map[string]string{"t-refunded": "the money was refunded", "t-refund-pending": "is being refunded"} {
		res, body := get("/api/transfers/"+id+"/proof-of-payment.pdf", true)
		if res.StatusCode != http.StatusConflict || !strings.Contains(body, words) || !strings.Contains(body, "no proof of payment") ||
			strings.HasPrefix(body, "%PDF") || res.Header.Get("Content-Disposition") != "" || res.Header.Get("Content-Type") == "application/pdf" {
			t.Errorf("%s: %d %v %q", id, res.StatusCode, res.Header, body)
		}
	}
	// The cross-site guard, as for the API.
	if res, _ := get("/api/statement?from=2026-11-01&to=2026-11-30&format=csv", true, "Sec-Fetch-Site", "cross-site"); res.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site: %d", res.StatusCode)
	}
}
