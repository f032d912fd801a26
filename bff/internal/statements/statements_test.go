package statements_test

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ledongthuc/pdf"
	"google.golang.org/protobuf/types/known/timestamppb"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"

	"github.com/thumela/thumela/bff/internal/statements"
)

const voucherNumber = "918273645501"

var banks = map[int32]string{int32(feesv1.Bank_BANK_FNB): "FNB", int32(feesv1.Bank_BANK_CAPITEC): "Capitec"}

func fixture() []*transfersv1.Transfer {
	at := func(d, h int) *timestamppb.Timestamp {
		return timestamppb.New(time.Date(2026, 11, d, h, 0, 0, 0, statements.Johannesburg))
	}
	voucher := func(s transfersv1.CollectionStatus) *transfersv1.Voucher {
		return &transfersv1.Voucher{Number: voucherNumber, CollectionStatus: s}
	}
	return []*transfersv1.Transfer{
		{Id: "aaaaaaaa-1", Reference: "aaaaaaaa", RecipientName: "Thandi Mokoena", RecipientPhone: "+27821234567",
			Bank: feesv1.Bank_BANK_FNB, AmountCents: 125000, BankFeeCents: 1000, PlatformFeeCents: 2125, FeeCents: 3125, TotalAmountCents: 128125,
			Status: transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED, CreatedAt: at(3, 9),
			Voucher: voucher(transfersv1.CollectionStatus_COLLECTION_STATUS_COLLECTED)},
		{Id: "bbbbbbbb-2", Reference: "bbbbbbbb", RecipientName: "=HYPERLINK(\"x\")", RecipientPhone: "+27605550101",
			Bank: feesv1.Bank_BANK_CAPITEC, AmountCents: 50000, BankFeeCents: 800, PlatformFeeCents: 1000, FeeCents: 1800, TotalAmountCents: 51800,
			Status: transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED, RefundStatus: transfersv1.RefundStatus_REFUND_STATUS_REFUNDED, CreatedAt: at(10, 14),
			Voucher: voucher(transfersv1.CollectionStatus_COLLECTION_STATUS_CANCELLED)},
		{Id: "cccccccc-3", Reference: "cccccccc", RecipientName: "Sipho Dlamini", RecipientPhone: "+27719998888",
			Bank: feesv1.Bank_BANK_FNB, AmountCents: 30000, BankFeeCents: 900, PlatformFeeCents: 600, FeeCents: 1500, TotalAmountCents: 31500,
			Status: transfersv1.TransferStatus_TRANSFER_STATUS_FAILED, CreatedAt: at(20, 18)},
		{Id: "dddddddd-4", Reference: "dddddddd", RecipientName: "Lerato Sithole", RecipientPhone: "+27831112222",
			Bank: feesv1.Bank_BANK_FNB, AmountCents: 100000, BankFeeCents: 1000, PlatformFeeCents: 1500, FeeCents: 0, TotalAmountCents: 100000, FeeWaived: true,
			Status: transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED, CreatedAt: at(1, 0),
			Voucher: voucher(transfersv1.CollectionStatus_COLLECTION_STATUS_AWAITING_COLLECTION)},
	}
}

func converted() []statements.Transfer {
	var out []statements.Transfer
	for _, t := range fixture() {
		out = append(out, statements.FromProto(t, banks))
	}
	return out
}

// pdfText reads a PDF's text back, page after page, in the order it was drawn: a table row
// reads as its cells one after the other, a label as itself followed by its value.
func pdfText(t *testing.T, b []byte) string {
	t.Helper()
	r, err := pdf.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := r.GetPlainText()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := out.ReadFrom(tr); err != nil {
		t.Fatal(err)
	}
	// The reader breaks a line wherever the drawing moves down; cells are compared joined.
	return strings.ReplaceAll(out.String(), "\n", "")
}

func mustHold(t *testing.T, text string, parts ...string) {
	t.Helper()
	if want := strings.Join(parts, ""); !strings.Contains(text, want) {
		t.Errorf("the PDF does not read %q; it reads:\n%s", want, text)
	}
}

func TestMaskPhone(t *testing.T) {
	for in, want := range map[string]string{
		"+27821234567": "+27 ** *** 4567",
		"+27605550101": "+27 ** *** 0101",
		"+4420712345":  "*** 2345",
		"12":           "****",
	} {
		if got := statements.MaskPhone(in); got != want {
			t.Errorf("MaskPhone(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParsePeriod(t *testing.T) {
	p, err := statements.ParsePeriod("2026-11-01", "2026-11-30")
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 10, 31, 22, 0, 0, 0, time.UTC); !p.Start().Equal(want) {
		t.Errorf("start %v, want %v (midnight in Johannesburg)", p.Start(), want)
	}
	if want := time.Date(2026, 11, 30, 22, 0, 0, 0, time.UTC); !p.End().Equal(want) {
		t.Errorf("end %v, want %v (the last day is included)", p.End(), want)
	}
	if got := p.FileName("pdf"); got != "thumela-statement-2026-11-01-to-2026-11-30.pdf" {
		t.Errorf("file name %q", got)
	}
	if _, err := statements.ParsePeriod("2026-01-01", "2026-12-31"); err != nil {
		t.Errorf("12 months refused: %v", err)
	}
	for _, bad := range [][2]string{
		{"", "2026-11-30"}, {"2026-11-01", ""}, {"01/11/2026", "2026-11-30"}, {"2026-11-01", "2026-02-30"},
		{"2026-11-30", "2026-11-01"}, {"2026-01-01", "2027-01-01"},
	} {
		_, err := statements.ParsePeriod(bad[0], bad[1])
		var ie *statements.InputError
		if !errors.As(err, &ie) || ie.Message == "" {
			t.Errorf("ParsePeriod(%q, %q) = %v, want an InputError", bad[0], bad[1], err)
		}
	}
}

func TestMoney(t *testing.T) {
	for cents, want := range map[int64]string{0: "R0,00", 5: "R0,05", 125000: "R1 250,00", 123456789: "R1 234 567,89", -1800: "-R18,00"} {
		if got := statements.Money(cents); got != want {
			t.Errorf("Money(%d) = %q, want %q", cents, got, want)
		}
	}
	if got := statements.Decimal(125000); got != "1250.00" {
		t.Errorf("Decimal = %q", got)
	}
}

func TestCSV(t *testing.T) {
	var b bytes.Buffer
	if err := statements.WriteCSV(&b, converted()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), voucherNumber) || strings.Contains(b.String(), "1234567") {
		t.Fatalf("the CSV holds a voucher number or a whole phone:\n%s", b.String())
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		statements.CSVHeader,
		{"2026-11-03T09:00:00+02:00", "aaaaaaaa", "Thandi Mokoena", "+27 ** *** 4567", "FNB", "1250.00", "10.00", "21.25", "1281.25", "Completed", "Collected"},
		{"2026-11-10T14:00:00+02:00", "bbbbbbbb", "'=HYPERLINK(\"x\")", "+27 ** *** 0101", "Capitec", "500.00", "8.00", "10.00", "518.00", "Completed", "Refunded"},
		// Failed: nothing was charged, so no fee and no total; the amount says what was tried.
		{"2026-11-20T18:00:00+02:00", "cccccccc", "Sipho Dlamini", "+27 ** *** 8888", "FNB", "300.00", "0.00", "0.00", "0.00", "Failed", ""},
		{"2026-11-01T00:00:00+02:00", "dddddddd", "Lerato Sithole", "+27 ** *** 2222", "FNB", "1000.00", "0.00", "0.00", "1000.00", "Completed", "Awaiting collection"},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d", len(recs), len(want))
	}
	for i := range want {
		if strings.Join(recs[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("record %d:\n got %q\nwant %q", i, recs[i], want[i])
		}
	}
}

func TestStatementPDFReadsBackWithEveryFigure(t *testing.T) {
	ts := converted()
	p, _ := statements.ParsePeriod("2026-11-01", "2026-11-30")
	b, err := statements.StatementPDF(statements.Sender{Name: "Nomsa Khumalo", Email: "nomsa@example.co.za"}, p, ts)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Fatalf("not a PDF: %q", b[:min(len(b), 16)])
	}
	text := pdfText(t, b)
	for _, want := range []string{"Thumela", "Statement of transfers", "Nomsa Khumalo", "nomsa@example.co.za", "Period: 1 November 2026 to 30 November 2026"} {
		mustHold(t, text, want)
	}
	// Each transfer's row carries its figures in the columns' order, oldest first as given.
	for _, tr := range ts {
		fees := []string{statements.Money(tr.BankFeeCents), statements.Money(tr.PlatformFeeCents)}
		total := statements.Money(tr.TotalCents)
		switch {
		case tr.FeeWaived:
			fees = []string{"Waived", "Waived"}
		case tr.Status == "Failed":
			// Nothing was charged: no fee and no total; the amount says what was tried.
			fees, total = []string{"R0,00", "R0,00"}, "R0,00"
		}
		row := []string{tr.CreatedAt.Format("2006-01-02 15:04"), tr.Reference, tr.Recipient, tr.MaskedPhone, tr.Bank, statements.Money(tr.AmountCents)}
		row = append(append(row, fees...), total, tr.Status, tr.VoucherState)
		mustHold(t, text, row...)
	}
	if strings.Contains(text, statements.Money(31500)) {
		t.Error("the failed transfer's total reads as charged")
	}
	mustHold(t, text, "1 250,00R10,00R21,25R1 281,25") // the figures themselves, once spelled out
	// Totals: completed transfers only (the failed one was never charged); the cancelled one
	// was refunded in full, so its amount was never sent (the walk's F11).
	mustHold(t, text, "Transfers in the period", "4")
	mustHold(t, text, "Sent (to recipients, refunds excluded)", statements.Money(125000+100000))
	mustHold(t, text, "Fees", statements.Money(3125+1800))
	mustHold(t, text, "Total charged", statements.Money(128125+51800+100000))
	mustHold(t, text, "Refunded", statements.Money(51800))
	if strings.Contains(text, "Refund pending"+statements.Money(0)) || strings.Contains(text, "Sent (completed transfers)") {
		t.Error("a refund-pending line without one, or the old 'Sent' line")
	}
	if strings.Contains(text, voucherNumber) || strings.Contains(text, "821234567") {
		t.Fatal("the statement holds a voucher number or a whole phone")
	}
}

func TestStatementPDFSpansPages(t *testing.T) {
	var ts []statements.Transfer
	for i := range 120 {
		tr := converted()[0]
		tr.Reference = fmt.Sprintf("ref%03d", i)
		ts = append(ts, tr)
	}
	p, _ := statements.ParsePeriod("2026-11-01", "2026-11-30")
	b, err := statements.StatementPDF(statements.Sender{Name: "N K", Email: "n@example.co.za"}, p, ts)
	if err != nil {
		t.Fatal(err)
	}
	r, err := pdf.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil || r.NumPage() < 3 {
		t.Fatalf("120 rows on %d pages (%v), want at least 3", r.NumPage(), err)
	}
	text := pdfText(t, b)
	mustHold(t, text, "ref000")
	mustHold(t, text, "ref119")
	mustHold(t, text, "Transfers in the period", "120")
	mustHold(t, text, "Total charged", statements.Money(120*128125))
}

func TestProofPDF(t *testing.T) {
	tr := converted()[0]
	b, err := statements.ProofPDF(statements.Sender{Name: "Nomsa Khumalo"}, tr)
	if err != nil {
		t.Fatal(err)
	}
	text := pdfText(t, b)
	for _, lv := range [][2]string{
		{"Reference", "aaaaaaaa"}, {"Date", "3 November 2026 09:00"}, {"Sender", "Nomsa Khumalo"},
		{"Recipient", "Thandi Mokoena"}, {"Recipient's phone", "+27 ** *** 4567"}, {"Bank", "FNB"},
		{"Amount", "R1 250,00"}, {"Bank fee", "R10,00"}, {"Platform fee", "R21,25"}, {"Total paid", "R1 281,25"},
		{"Status", "Completed"}, {"Voucher", "Collected"},
	} {
		mustHold(t, text, lv[0], lv[1])
	}
	if strings.Contains(text, voucherNumber) || strings.Contains(text, "821234567") || bytes.Contains(b, []byte(voucherNumber)) {
		t.Fatal("the proof holds the voucher number or the whole phone")
	}

	failed := converted()[2]
	if _, err := statements.ProofPDF(statements.Sender{}, failed); !errors.Is(err, statements.ErrNotCompleted) {
		t.Fatalf("proof of a failed transfer: %v", err)
	}
	if msg := statements.ProofRefusal(failed); !strings.Contains(msg, "once the transfer has completed") {
		t.Errorf("refusal of a failed transfer: %q", msg)
	}
	// A voucher still awaiting collection has its proof: the money awaits the recipient.
	if msg := statements.ProofRefusal(converted()[3]); msg != "" {
		t.Errorf("an awaiting voucher's proof refused: %q", msg)
	}
}

// refundCase is the fixture's cancelled transfer with its refund in the given state, its voucher
// cancelled or expired.
func refundCase(refund transfersv1.RefundStatus, voucher transfersv1.CollectionStatus) statements.Transfer {
	tr := fixture()[1]
	tr.RefundStatus = refund
	tr.Voucher.CollectionStatus = voucher
	return statements.FromProto(tr, banks)
}

// A transfer cancelled (or expired) and refunded, or being refunded, paid no one: no proof of
// payment says it was paid (the walk's F9), and the refusal says why.
func TestProofPDFRefusesARefundedTransfer(t *testing.T) {
	for _, c := range []struct {
		name    string
		refund  transfersv1.RefundStatus
		voucher transfersv1.CollectionStatus
		words   string
	}{
		{"cancelled, refunded", transfersv1.RefundStatus_REFUND_STATUS_REFUNDED, transfersv1.CollectionStatus_COLLECTION_STATUS_CANCELLED, "the money was refunded"},
		{"expired, refunded", transfersv1.RefundStatus_REFUND_STATUS_REFUNDED, transfersv1.CollectionStatus_COLLECTION_STATUS_EXPIRED, "the money was refunded"},
		{"cancelled, refund pending", transfersv1.RefundStatus_REFUND_STATUS_PENDING, transfersv1.CollectionStatus_COLLECTION_STATUS_CANCELLED, "is being refunded"},
		{"cancelled, refund not started", transfersv1.RefundStatus_REFUND_STATUS_NONE, transfersv1.CollectionStatus_COLLECTION_STATUS_CANCELLED, "cancelled or expired"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := refundCase(c.refund, c.voucher)
			if !tr.Completed {
				t.Fatal("the fixture is not completed")
			}
			if b, err := statements.ProofPDF(statements.Sender{Name: "Nomsa Khumalo"}, tr); !errors.Is(err, statements.ErrNotSent) || b != nil {
				t.Fatalf("proof of a %s transfer: %d bytes, %v", c.name, len(b), err)
			}
			if msg := statements.ProofRefusal(tr); !strings.Contains(msg, c.words) || !strings.Contains(msg, "no proof of payment") {
				t.Errorf("refusal %q, want it to say %q", msg, c.words)
			}
			if tr.Sent() {
				t.Error("counted as sent")
			}
		})
	}
}

// "Sent" is money that reached or awaits a recipient: a refunded transfer and one being
// refunded are not in it, each has its own line, and both were still charged (the walk's F11).
func TestSumLeavesRefundedTransfersOutOfSent(t *testing.T) {
	ts := converted()
	pending := refundCase(transfersv1.RefundStatus_REFUND_STATUS_PENDING, transfersv1.CollectionStatus_COLLECTION_STATUS_EXPIRED)
	pending.Reference = "eeeeeeee"
	ts = append(ts, pending)
	tot := statements.Sum(ts)
	want := statements.Totals{
		SentCents:          125000 + 100000, // collected, and awaiting collection
		FeesCents:          3125 + 1800 + 0 + 1800,
		ChargedCents:       128125 + 51800 + 100000 + 51800,
		RefundedCents:      51800,
		RefundPendingCents: 51800,
		Count:              5,
	}
	if tot != want {
		t.Fatalf("totals %+v, want %+v", tot, want)
	}

	p, _ := statements.ParsePeriod("2026-11-01", "2026-11-30")
	b, err := statements.StatementPDF(statements.Sender{Name: "Nomsa Khumalo", Email: "nomsa@example.co.za"}, p, ts)
	if err != nil {
		t.Fatal(err)
	}
	text := pdfText(t, b)
	mustHold(t, text, "Sent (to recipients, refunds excluded)", statements.Money(225000))
	mustHold(t, text, "Refunded", statements.Money(51800))
	mustHold(t, text, "Refund pending", statements.Money(51800))
	mustHold(t, text, "Total charged", statements.Money(128125+51800+100000+51800))
}

// A name in a script the PDF's font lacks is drawn with a "?" for each character it cannot draw,
// and the PDF says so, instead of a blank where the name was (the probe of 30 Nov 2026). A PDF
// whose text all draws has no such note.
func TestPDFMarksWhatItCannotDraw(t *testing.T) {
	tr := converted()[0]
	tr.Recipient = "李小龍 Wang"
	b, err := statements.ProofPDF(statements.Sender{Name: "Nomsa Khumalo"}, tr)
	if err != nil {
		t.Fatal(err)
	}
	text := pdfText(t, b)
	mustHold(t, text, "Recipient", "??? Wang")
	mustHold(t, text, "A ? stands for a character this PDF's font cannot draw")

	p, _ := statements.ParsePeriod("2026-11-01", "2026-11-30")
	b, err = statements.StatementPDF(statements.Sender{Name: "Nomsa Khumalo", Email: "nomsa@example.co.za"}, p, []statements.Transfer{tr})
	if err != nil {
		t.Fatal(err)
	}
	text = pdfText(t, b)
	mustHold(t, text, "??? Wang")
	mustHold(t, text, "A ? stands for a character")

	plain := converted()[0]
	plain.Recipient = "Zoë Ntšekhe-Вера" // Latin with accents and Cyrillic: the Go fonts draw both
	b, err = statements.ProofPDF(statements.Sender{Name: "Nomsa Khumalo"}, plain)
	if err != nil {
		t.Fatal(err)
	}
	if text := pdfText(t, b); !strings.Contains(text, "Zoë Ntšekhe-Вера") || strings.Contains(text, "stands for a character") {
		t.Errorf("a name the font draws:\n%s", text)
	}
}
