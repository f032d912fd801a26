package atmnet

import (
	"errors"
	"fmt"
	"strings"

	"github.com/moov-io/iso8583"
)

// ErrFormat wraps every failure to pack or unpack a message.
var ErrFormat = errors.New("atmnet: message format")

// Message is one ISO 8583 message of the cash-out network, data element by data element. An
// empty field (zero value) is absent from the message. Which elements each MTI carries is in
// docs/cashout.md.
type Message struct {
	MTI string `iso8583:"0"`
	// VoucherNumber is DE 2: the cash voucher's number stands where a card's PAN would.
	VoucherNumber  string `iso8583:"2"`
	ProcessingCode string `iso8583:"3"`
	AmountCents    int64  `iso8583:"4"`
	// TransmissionTime is DE 7, MMDDhhmmss in UTC.
	TransmissionTime string `iso8583:"7"`
	STAN             string `iso8583:"11"`
	LocalTime        string `iso8583:"12"` // hhmmss at the ATM
	LocalDate        string `iso8583:"13"` // MMDD at the ATM
	// AcquirerID is DE 32: the institution whose ATM this is (docs/cashout.md lists the codes).
	AcquirerID   string `iso8583:"32"`
	RRN          string `iso8583:"37"`
	AuthCode     string `iso8583:"38"`
	ResponseCode string `iso8583:"39"`
	TerminalID   string `iso8583:"41"`
	AcceptorID   string `iso8583:"42"`
	Location     string `iso8583:"43"`
	// RecipientPhone is DE 48 (private use): the phone number typed at the ATM.
	RecipientPhone string `iso8583:"48"`
	Currency       string `iso8583:"49"`
	// PINBlock is DE 52: the enciphered ISO 9564 format 4 PIN block (16 bytes).
	PINBlock []byte `iso8583:"52"`
	// PINKeyID is DE 53 (this network's use): the id of the link's zone keys, on every
	// request: the zone PIN key PINBlock is enciphered under, and the zone MAC key of the MAC.
	PINKeyID     string `iso8583:"53"`
	NetworkCode  string `iso8583:"70"`
	OriginalData string `iso8583:"90"`
	// MAC is DE 64 and SecondaryMAC DE 128: the message authentication code, in DE 64 when the
	// message has a primary bitmap only, in DE 128 when it has a secondary one (DE 70, DE 90).
	// PackMAC fills the right one; VerifyMAC checks it.
	MAC          []byte `iso8583:"64"`
	SecondaryMAC []byte `iso8583:"128"`
}

// Pack encodes m (without the length prefix; WriteFrame adds it) as it is, MAC fields
// included: PackMAC is what a link sends.
func Pack(m *Message) ([]byte, error) {
	msg, err := marshal(m)
	if err != nil {
		return nil, err
	}
	return pack(msg)
}

func marshal(m *Message) (*iso8583.Message, error) {
	msg := iso8583.NewMessage(Spec)
	if err := msg.Marshal(m); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	return msg, nil
}

func pack(msg *iso8583.Message) ([]byte, error) {
	b, err := msg.Pack()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	return b, nil
}

// macField is the data element that carries msg's MAC: DE 128 when another element of the
// secondary bitmap (65 to 127) is present, DE 64 otherwise.
func macField(msg *iso8583.Message) int {
	for id := range msg.GetFields() {
		if id > fieldMAC && id < fieldSecondaryMAC {
			return fieldSecondaryMAC
		}
	}
	return fieldMAC
}

// Unpack decodes one message (a frame's payload).
func Unpack(b []byte) (*Message, error) {
	msg := iso8583.NewMessage(Spec)
	if err := msg.Unpack(b); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	var m Message
	if err := msg.Unmarshal(&m); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	return &m, nil
}

// PeekMTI reads the MTI of a frame that may not unpack, so that a malformed request can still
// be answered with a format error of the right response MTI.
func PeekMTI(b []byte) (string, bool) {
	if len(b) < 4 {
		return "", false
	}
	mti := string(b[:4])
	for _, c := range mti {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return mti, true
}

// ResponseMTI is the MTI that answers request MTI mti (0200 and its repeat 0201 → 0210), and
// false for a message that is not a request (a response or an advice response).
func ResponseMTI(mti string) (string, bool) {
	if len(mti) != 4 || (mti[2]-'0')%2 != 0 || mti[3] > '1' {
		return "", false
	}
	return mti[:2] + string(mti[2]+1) + "0", true
}

// IsRepeat reports whether mti is a repeat (xxx1) of an earlier request.
func IsRepeat(mti string) bool { return len(mti) == 4 && mti[3] == '1' }

// Response returns the answer to request m with response code code: the response MTI and the
// elements a switch matches it by and reconciles with (DE 3, 4, 7, 11, 12, 13, 32, 37, 41, 42,
// 49, 70, 90). It never echoes the voucher number, the phone number or the PIN block.
func (m *Message) Response(code string) *Message {
	mti, ok := ResponseMTI(m.MTI)
	if !ok {
		mti = m.MTI
	}
	return &Message{
		MTI:              mti,
		ProcessingCode:   m.ProcessingCode,
		AmountCents:      m.AmountCents,
		TransmissionTime: m.TransmissionTime,
		STAN:             m.STAN,
		LocalTime:        m.LocalTime,
		LocalDate:        m.LocalDate,
		AcquirerID:       m.AcquirerID,
		RRN:              m.RRN,
		ResponseCode:     code,
		TerminalID:       m.TerminalID,
		AcceptorID:       m.AcceptorID,
		Currency:         m.Currency,
		NetworkCode:      m.NetworkCode,
		OriginalData:     m.OriginalData,
	}
}

// OriginalData is DE 90 of a reversal: which request it undoes.
type OriginalData struct {
	MTI              string // n4, the original request's MTI (0200)
	STAN             string // n6, its DE 11
	TransmissionTime string // n10, its DE 7 (zeros when it had none)
	AcquirerID       string // n11, its DE 32, zero-filled on the left (so kept as 11 digits)
	ForwarderID      string // n11, zeros: this network has no forwarding institution
}

// String encodes o as the 42 digits of DE 90.
func (o OriginalData) String() string {
	return zeroFill(o.MTI, 4) + zeroFill(o.STAN, 6) + zeroFill(o.TransmissionTime, 10) +
		zeroFill(o.AcquirerID, 11) + zeroFill(o.ForwarderID, 11)
}

// zeroFill left-fills s with zeros to n characters.
func zeroFill(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return strings.Repeat("0", n-len(s)) + s
}

// ParseOriginalData decodes DE 90.
func ParseOriginalData(s string) (OriginalData, error) {
	if len(s) != originalLen || strings.Trim(s, "0123456789") != "" {
		return OriginalData{}, fmt.Errorf("%w: DE 90 must be %d digits", ErrFormat, originalLen)
	}
	return OriginalData{
		MTI:              s[0:4],
		STAN:             s[4:10],
		TransmissionTime: s[10:20],
		AcquirerID:       s[20:31],
		ForwarderID:      s[31:42],
	}, nil
}
