package statements

import (
	"encoding/csv"
	"io"
	"time"
)

// CSVHeader is the statement CSV's first row.
var CSVHeader = []string{
	"date", "reference", "recipient", "phone", "bank", "amount", "bank fee", "platform fee",
	"total", "status", "voucher state",
}

// WriteCSV writes the statement as RFC 4180 CSV: a header row, then one row per transfer,
// oldest first, amounts in rand with two decimals (1250.00), dates ISO 8601 in Johannesburg.
// The fee and total columns are what was charged (Transfer.Charged): 0.00 for a failed
// transfer, whose amount column keeps what was tried.
func WriteCSV(w io.Writer, ts []Transfer) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true // RFC 4180's line break
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, t := range ts {
		bankFee, platformFee, total := t.Charged()
		if err := cw.Write([]string{
			t.CreatedAt.In(Johannesburg).Format(time.RFC3339),
			t.Reference,
			csvSafe(t.Recipient),
			t.MaskedPhone,
			t.Bank,
			Decimal(t.AmountCents),
			Decimal(bankFee),
			Decimal(platformFee),
			Decimal(total),
			t.Status,
			t.VoucherState,
		}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvSafe defuses a cell a spreadsheet would run as a formula (CSV injection): a recipient's
// name is typed by the sender, and names stored before the name rule may start with anything.
func csvSafe(s string) string {
	if s != "" && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r') {
		return "'" + s
	}
	return s
}
