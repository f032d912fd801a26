package atmnet

import (
	"crypto/rand"
	"fmt"
	"math/big"
	"strings"
	"time"
)

// Withdrawal is what an ATM sends for a cardless withdrawal: what the recipient typed, and
// where and when.
type Withdrawal struct {
	VoucherNumber string
	PIN           string
	Phone         string
	AmountCents   int64
	// AcquirerID is DE 32, the ATM's bank (Acquirer* constants, or the switch's own codes).
	AcquirerID string
	TerminalID string // DE 41, at most 8 characters
	Location   string // DE 43, cut to 40 characters
	STAN       string // DE 11, 6 digits (NewReferences)
	RRN        string // DE 37, 12 characters (NewReferences)
	// At is when the recipient pressed the button; zero means now.
	At time.Time
}

// NewWithdrawal builds the 0200 for w, with the PIN enciphered under key (a format 4 block
// bound to the voucher number). The PIN is in the message only as that block.
func NewWithdrawal(w Withdrawal, key ZoneKey) (*Message, error) {
	at := w.At
	if at.IsZero() {
		at = time.Now()
	}
	block, err := key.EncryptPIN(w.PIN, w.VoucherNumber, rand.Reader)
	if err != nil {
		return nil, err
	}
	if len(w.TerminalID) > terminalLen {
		return nil, fmt.Errorf("%w: terminal id longer than %d", ErrFormat, terminalLen)
	}
	return &Message{
		MTI:              MTIAuthorizationRequest,
		VoucherNumber:    w.VoucherNumber,
		ProcessingCode:   ProcessingCodeCardlessWithdrawal,
		AmountCents:      w.AmountCents,
		TransmissionTime: at.UTC().Format("0102150405"),
		STAN:             w.STAN,
		LocalTime:        at.Format("150405"),
		LocalDate:        at.Format("0102"),
		AcquirerID:       w.AcquirerID,
		RRN:              w.RRN,
		TerminalID:       w.TerminalID,
		Location:         truncate(w.Location, locationLen),
		RecipientPhone:   w.Phone,
		Currency:         CurrencyZAR,
		PINBlock:         block,
		PINKeyID:         key.ID(),
	}, nil
}

// NewReversal builds the 0420 reversal advice of withdrawal original (as sent), for an ATM that
// dispensed nothing: its own STAN stan, the original's RRN, amount, ATM, bank and zone keys
// (DE 53), and DE 90 naming the original.
func NewReversal(original *Message, stan string, at time.Time) *Message {
	if at.IsZero() {
		at = time.Now()
	}
	return &Message{
		MTI:              MTIReversalAdvice,
		VoucherNumber:    original.VoucherNumber,
		ProcessingCode:   original.ProcessingCode,
		AmountCents:      original.AmountCents,
		TransmissionTime: at.UTC().Format("0102150405"),
		STAN:             stan,
		LocalTime:        at.Format("150405"),
		LocalDate:        at.Format("0102"),
		AcquirerID:       original.AcquirerID,
		RRN:              original.RRN,
		TerminalID:       original.TerminalID,
		Currency:         original.Currency,
		PINKeyID:         original.PINKeyID,
		OriginalData: OriginalData{
			MTI:              original.MTI,
			STAN:             original.STAN,
			TransmissionTime: original.TransmissionTime,
			AcquirerID:       original.AcquirerID,
		}.String(),
	}
}

// NewEcho builds an 0800 echo test. Its DE 53 is left to the Client, which names its own zone
// keys.
func NewEcho(stan string, at time.Time) *Message {
	if at.IsZero() {
		at = time.Now()
	}
	return &Message{
		MTI:              MTINetworkManagementRequest,
		TransmissionTime: at.UTC().Format("0102150405"),
		STAN:             stan,
		NetworkCode:      NetworkCodeEcho,
	}
}

// NewReferences returns a fresh STAN (6 random digits) and RRN (YDDDhh of at, then the STAN),
// the references an ATM gives one request. Random STANs suit a test or development ATM; a real
// switch numbers them itself.
func NewReferences(at time.Time) (stan, rrn string) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	stan = fmt.Sprintf("%06d", n.Int64())
	at = at.UTC()
	rrn = fmt.Sprintf("%d%03d%02d%s", at.Year()%10, at.YearDay(), at.Hour(), stan)
	return stan, rrn
}

func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return s[:n]
}
