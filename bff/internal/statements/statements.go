// Package statements renders a sender's statement (CSV and PDF) and a transfer's proof of
// payment (PDF), and serves them as the BFF's file endpoints (docs/statements.md).
//
// What is rendered is a Transfer of this package, built from the transfers service's answer by
// FromProto: it has no field for the voucher number (nor the PIN, which the BFF never has), so
// no statement or proof can show one by mistake.
package statements

import (
	"errors"
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // Africa/Johannesburg even where the image has no zoneinfo

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
)

// Johannesburg is the zone of a statement's days and of every date shown.
var Johannesburg = mustLoad("Africa/Johannesburg")

func mustLoad(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err) // embedded by time/tzdata
	}
	return loc
}

// MaxMonths is the longest period a statement covers.
const MaxMonths = 12

// Transfer is one transfer as a statement or proof shows it.
type Transfer struct {
	ID        string
	Reference string
	CreatedAt time.Time
	Recipient string
	// MaskedPhone keeps the last 4 digits only ("+27 ** *** 4567").
	MaskedPhone string
	Bank        string
	AmountCents int64
	// BankFeeCents and PlatformFeeCents are what was charged: zero when the fee was waived.
	BankFeeCents     int64
	PlatformFeeCents int64
	FeeCents         int64
	TotalCents       int64
	FeeWaived        bool
	Status           string
	Completed        bool
	// Failed: the transfer failed, and nothing was taken from the sender's card (a failed
	// charge, or a refusal before it).
	Failed bool
	// Refunded: the whole total is back on the sender's card.
	Refunded bool
	// RefundPending: the refund is owed and on its way back to the sender's card.
	RefundPending bool
	// Voided: the voucher was cancelled or expired, so the cash never reaches the recipient
	// (its refund is owed, pending or made).
	Voided bool
	// VoucherState is "Awaiting collection", "Collected", "Refunded", "Refund pending",
	// "Cancelled", "Expired", or "" for a transfer without a voucher.
	VoucherState string
	// CollectedAt is when the cash was withdrawn (zero unless collected).
	CollectedAt time.Time
}

// FromProto converts the transfers service's transfer; bankNames names the banks (the fees
// service's display names). The voucher's number is never read.
func FromProto(t *transfersv1.Transfer, bankNames map[int32]string) Transfer {
	out := Transfer{
		ID:          t.GetId(),
		Reference:   t.GetReference(),
		CreatedAt:   t.GetCreatedAt().AsTime().In(Johannesburg),
		Recipient:   t.GetRecipientName(),
		MaskedPhone: MaskPhone(t.GetRecipientPhone()),
		Bank:        bankNames[int32(t.GetBank())],
		AmountCents: t.GetAmountCents(),
		FeeCents:    t.GetFeeCents(),
		TotalCents:  t.GetTotalAmountCents(),
		FeeWaived:   t.GetFeeWaived(),
		Completed:   t.GetStatus() == transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED,
		Failed:      t.GetStatus() == transfersv1.TransferStatus_TRANSFER_STATUS_FAILED,
		Refunded:    t.GetRefundStatus() == transfersv1.RefundStatus_REFUND_STATUS_REFUNDED,
		// A refund is owed only for a cancelled or expired voucher.
		RefundPending: t.GetRefundStatus() == transfersv1.RefundStatus_REFUND_STATUS_PENDING,
	}
	if !out.FeeWaived {
		out.BankFeeCents, out.PlatformFeeCents = t.GetBankFeeCents(), t.GetPlatformFeeCents()
	}
	if out.Bank == "" {
		out.Bank = strings.ReplaceAll(strings.TrimPrefix(t.GetBank().String(), "BANK_"), "_", " ")
	}
	switch t.GetStatus() {
	case transfersv1.TransferStatus_TRANSFER_STATUS_PENDING:
		out.Status = "Pending"
	case transfersv1.TransferStatus_TRANSFER_STATUS_PROCESSING:
		out.Status = "Processing"
	case transfersv1.TransferStatus_TRANSFER_STATUS_COMPLETED:
		out.Status = "Completed"
	case transfersv1.TransferStatus_TRANSFER_STATUS_FAILED:
		out.Status = "Failed"
	default:
		out.Status = "Unknown"
	}
	if v := t.GetVoucher(); v != nil {
		switch v.GetCollectionStatus() {
		case transfersv1.CollectionStatus_COLLECTION_STATUS_AWAITING_COLLECTION:
			out.VoucherState = "Awaiting collection"
		case transfersv1.CollectionStatus_COLLECTION_STATUS_COLLECTED:
			out.VoucherState = "Collected"
			if v.GetCollectedAt() != nil {
				out.CollectedAt = v.GetCollectedAt().AsTime().In(Johannesburg)
			}
		case transfersv1.CollectionStatus_COLLECTION_STATUS_CANCELLED, transfersv1.CollectionStatus_COLLECTION_STATUS_EXPIRED:
			out.Voided = true
			// The same words as the web's voucher state: a refund is done only when REFUNDED.
			switch t.GetRefundStatus() {
			case transfersv1.RefundStatus_REFUND_STATUS_REFUNDED:
				out.VoucherState = "Refunded"
			case transfersv1.RefundStatus_REFUND_STATUS_PENDING:
				out.VoucherState = "Refund pending"
			default:
				if v.GetCollectionStatus() == transfersv1.CollectionStatus_COLLECTION_STATUS_CANCELLED {
					out.VoucherState = "Cancelled"
				} else {
					out.VoucherState = "Expired"
				}
			}
		}
	}
	return out
}

// MaskPhone shows a South African E.164 number with only its last 4 digits:
// "+27821234567" → "+27 ** *** 4567". Anything else keeps only its last 4 digits too.
func MaskPhone(e164 string) string {
	digits := make([]byte, 0, len(e164))
	for i := 0; i < len(e164); i++ {
		if c := e164[i]; c >= '0' && c <= '9' {
			digits = append(digits, c)
		}
	}
	if len(digits) < 4 {
		return "****"
	}
	last := string(digits[len(digits)-4:])
	if strings.HasPrefix(e164, "+27") {
		return "+27 ** *** " + last
	}
	return "*** " + last
}

// Sender is whose statement it is.
type Sender struct {
	Name  string
	Email string
}

// Period is a statement's days in Johannesburg: From and To inclusive.
type Period struct {
	From time.Time // midnight starting the first day
	To   time.Time // midnight starting the last day
}

// Start and End are the instants bounding the period: End is exclusive (the midnight after To).
func (p Period) Start() time.Time { return p.From }
func (p Period) End() time.Time   { return p.To.AddDate(0, 0, 1) }

// InputError is a request the sender can correct; its text is what they read.
type InputError struct{ Message string }

func (e *InputError) Error() string { return e.Message }

// ParsePeriod reads from and to (YYYY-MM-DD, Johannesburg days, to inclusive): from not after
// to, and at most MaxMonths months.
func ParsePeriod(from, to string) (Period, error) {
	if from == "" || to == "" {
		return Period{}, &InputError{"Choose the period's first and last day (from and to, as YYYY-MM-DD)."}
	}
	f, err := time.ParseInLocation(time.DateOnly, from, Johannesburg)
	if err != nil {
		return Period{}, &InputError{fmt.Sprintf("%q is not a date: use YYYY-MM-DD.", from)}
	}
	t, err := time.ParseInLocation(time.DateOnly, to, Johannesburg)
	if err != nil {
		return Period{}, &InputError{fmt.Sprintf("%q is not a date: use YYYY-MM-DD.", to)}
	}
	if t.Before(f) {
		return Period{}, &InputError{"The period's last day is before its first day."}
	}
	p := Period{From: f, To: t}
	if p.End().After(f.AddDate(0, MaxMonths, 0)) {
		return Period{}, &InputError{fmt.Sprintf("A statement covers at most %d months: choose a shorter period.", MaxMonths)}
	}
	return p, nil
}

// Charged is what a statement's fee and total columns show for t: the fees and the total the
// sender's card was charged, none for a failed transfer, which took nothing (its amount column
// still says what was tried, and its status why nothing was taken). A pending or processing
// transfer shows what it charges.
func (t Transfer) Charged() (bankFeeCents, platformFeeCents, totalCents int64) {
	if t.Failed {
		return 0, 0, 0
	}
	return t.BankFeeCents, t.PlatformFeeCents, t.TotalCents
}

// Sent says whether t's money reached its recipient or still awaits them: a completed
// transfer whose voucher was neither cancelled nor expired and whose total is not being (or was
// not) refunded. A refunded transfer was charged, then given back: it was never sent.
func (t Transfer) Sent() bool {
	return t.Completed && !t.Voided && !t.Refunded && !t.RefundPending
}

// FileName is the statement's download name, e.g. thumela-statement-2026-11-01-to-2026-11-30.pdf.
func (p Period) FileName(ext string) string {
	return fmt.Sprintf("thumela-statement-%s-to-%s.%s", p.From.Format(time.DateOnly), p.To.Format(time.DateOnly), ext)
}

// Totals sum a statement. Only completed transfers were charged: a failed one never was, and a
// pending or processing one not yet. A cancelled or expired voucher's transfer was charged too,
// but its money never went to anyone: it is not Sent, and its total is Refunded (or, until the
// refund is made, RefundPending).
type Totals struct {
	SentCents          int64 // amounts that reached or await a recipient (Transfer.Sent)
	FeesCents          int64 // fees charged on completed transfers (refunded ones included)
	ChargedCents       int64 // what the card was charged for completed transfers
	RefundedCents      int64 // totals refunded (cancelled or expired vouchers, refund made)
	RefundPendingCents int64 // totals being refunded (cancelled or expired, refund not made yet)
	Count              int
}

// Sum adds up ts.
func Sum(ts []Transfer) Totals {
	var tot Totals
	for _, t := range ts {
		tot.Count++
		if !t.Completed {
			continue
		}
		if t.Sent() {
			tot.SentCents += t.AmountCents
		}
		tot.FeesCents += t.FeeCents
		tot.ChargedCents += t.TotalCents
		switch {
		case t.Refunded:
			tot.RefundedCents += t.TotalCents
		case t.RefundPending:
			tot.RefundPendingCents += t.TotalCents
		}
	}
	return tot
}

// Decimal is cents as rand with two decimals and no grouping ("1250.00"): the CSV's form,
// which spreadsheets read as a number.
func Decimal(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s%d.%02d", sign, cents/100, cents%100)
}

// Money is cents as the web shows them (en-ZA): "R1 250,00" (grouped by spaces, decimal comma).
func Money(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	whole := fmt.Sprintf("%d", cents/100)
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(c)
	}
	return fmt.Sprintf("%sR%s,%02d", sign, b.String(), cents%100)
}

// ErrNotCompleted: a proof of payment exists only for a completed transfer.
var ErrNotCompleted = errors.New("a proof of payment is only available once the transfer has completed")

// ErrNotSent: a transfer whose voucher was cancelled or expired, and whose money is being (or
// was) refunded, paid no one: it has no proof of payment.
var ErrNotSent = errors.New("a cancelled or expired transfer that is refunded has no proof of payment")

// ProofRefusal is what the sender reads when t has no proof of payment, or "" when it has one:
// only a completed transfer whose money reached or awaits its recipient (Transfer.Sent) does.
// A refunded transfer must not produce a document that says it was paid.
func ProofRefusal(t Transfer) string {
	switch {
	case !t.Completed:
		return "A proof of payment is only available once the transfer has completed."
	case t.Refunded:
		return "This transfer's voucher was cancelled or expired and the money was refunded to your card, so there is no proof of payment for it."
	case t.RefundPending:
		return "This transfer's voucher was cancelled or expired and the money is being refunded to your card, so there is no proof of payment for it."
	case t.Voided:
		return "This transfer's voucher was cancelled or expired, so there is no proof of payment for it."
	}
	return ""
}
