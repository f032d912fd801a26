// Package atmnet is the wire protocol between the ATM networks' switches and Thumela's cash-out
// gateway: ISO 8583 (1987 layout, ASCII) messages over TCP, each framed by a 2-byte big-endian
// length, with the recipient's PIN in an ISO 9564 format 4 PIN block under a zone PIN key.
//
// It is public on purpose: the gateway speaks it, its tests speak it, and the development stack's
// /dev/atm page plays an ATM with it. docs/cashout.md is the message specification.
package atmnet

import (
	"github.com/moov-io/iso8583"
	"github.com/moov-io/iso8583/encoding"
	"github.com/moov-io/iso8583/field"
	"github.com/moov-io/iso8583/padding"
	"github.com/moov-io/iso8583/prefix"
)

// Message type indicators (ISO 8583:1987). A repeat (xxx1) is answered like the original.
const (
	MTIAuthorizationRequest        = "0200" // financial request: the cardless withdrawal
	MTIAuthorizationRequestRepeat  = "0201"
	MTIAuthorizationResponse       = "0210"
	MTIReversalAdvice              = "0420" // the ATM dispensed nothing: undo the 0200
	MTIReversalAdviceRepeat        = "0421"
	MTIReversalAdviceResponse      = "0430"
	MTINetworkManagementRequest    = "0800" // echo
	MTINetworkManagementRequestRep = "0801"
	MTINetworkManagementResponse   = "0810"
)

// ProcessingCodeCardlessWithdrawal is DE 3 of a withdrawal: transaction type 01 (cash), from
// account 00 (default: the voucher), to account 00.
const ProcessingCodeCardlessWithdrawal = "010000"

// CurrencyZAR is DE 49: ISO 4217 numeric code of the rand.
const CurrencyZAR = "710"

// NetworkCodeEcho is DE 70 of an echo test (0800).
const NetworkCodeEcho = "301"

// PINBlockSize is the length of DE 52: one AES block (format 4).
const PINBlockSize = 16

// Field lengths the builders and the gateway check against.
const (
	maxVoucherLen  = 19 // DE 2, n..19
	maxAcquirerLen = 11 // DE 32, n..11
	terminalLen    = 8  // DE 41, ans 8
	acceptorLen    = 15 // DE 42, ans 15
	locationLen    = 40 // DE 43, ans 40
	maxKeyIDLen    = 16 // DE 53, ans..16
	originalLen    = 42 // DE 90, n 42
)

// Data elements that carry the message authentication code: DE 64 is the last element of a
// message with a primary bitmap only, DE 128 the last of one with a secondary bitmap (ISO
// 8583:1987 reserves both for the MAC, so that it always closes the message).
const (
	fieldMAC          = 64
	fieldSecondaryMAC = 128
)

// Spec is the message specification: the data elements the cash-out network uses, and only
// those (an element outside it fails to unpack, so a message with unexpected content is a
// format error rather than silently half read).
var Spec = &iso8583.MessageSpec{
	Name: "Thumela cash-out (ISO 8583:1987, ASCII)",
	Fields: map[int]field.Field{
		0:  field.NewString(&field.Spec{Length: 4, Description: "Message Type Indicator", Enc: encoding.ASCII, Pref: prefix.ASCII.Fixed}),
		1:  field.NewBitmap(&field.Spec{Length: 8, Description: "Bitmap", Enc: encoding.BytesToASCIIHex, Pref: prefix.Hex.Fixed}),
		2:  field.NewString(&field.Spec{Length: maxVoucherLen, Description: "Primary Account Number (the voucher number)", Enc: encoding.ASCII, Pref: prefix.ASCII.LL}),
		3:  field.NewString(&field.Spec{Length: 6, Description: "Processing Code", Enc: encoding.ASCII, Pref: prefix.ASCII.Fixed}),
		4:  field.NewNumeric(&field.Spec{Length: 12, Description: "Amount, Transaction (cents)", Enc: encoding.ASCII, Pref: prefix.ASCII.Fixed, Pad: padding.Left('0')}),
		7:  field.NewString(&field.Spec{Length: 10, Description: "Transmission Date & Time (MMDDhhmmss, UTC)", Enc: encoding.ASCII, Pref: prefix.ASCII.Fixed}),
		11: field.NewString(&field.Spec{Length: 6, Description: "Systems Trace Audit Number", Enc: encoding.ASCII, Pref: prefix.ASCII.Fixed}),
		12: field.NewString(&field.Spec{Length: 6, Description: "Time, Local Transaction (hhmmss)", Enc: encoding.ASCII, Pref: prefix.ASCII.Fixed}),
		13: field.NewString(&field.Spec{Length: 4, Description: "Date, Local Transaction (MMDD)", Enc: encoding.ASCII, Pref: prefix.ASCII.Fixed}),
		32: field.NewString(&field.Spec{Length: maxAcquirerLen, Description: "Acquiring Institution Identification Code (the ATM's bank)", Enc: encoding.ASCII, Pref: prefix.ASCII.LL}),
		37: field.NewString(&field.Spec{Length: 12, Description: "Retrieval Reference Number", Enc: encoding.ASCII, Pref: prefix.ASCII.Fixed}),
		38: field.NewString(&field.Spec{Length: 6, Description: "Authorization Identification Response", Enc: encoding.ASCII, Pref: prefix.ASCII.Fixed}),
		39: field.NewString(&field.Spec{Length: 2, Description: "Response Code", Enc: encoding.ASCII, Pref: prefix.ASCII.Fixed}),
		41: field.NewString(&field.Spec{Length: terminalLen, Description: "Card Acceptor Terminal Identification (the ATM)", Enc: encoding.ASCII, Pref: prefix.ASCII.Fixed, Pad: padding.Right(' ')}),
		42: field.NewString(&field.Spec{Length: acceptorLen, Description: "Card Acceptor Identification Code", Enc: encoding.ASCII, Pref: prefix.ASCII.Fixed, Pad: padding.Right(' ')}),
		43: field.NewString(&field.Spec{Length: locationLen, Description: "Card Acceptor Name/Location (the ATM's location)", Enc: encoding.ASCII, Pref: prefix.ASCII.Fixed, Pad: padding.Right(' ')}),
		48: field.NewString(&field.Spec{Length: 999, Description: "Additional Data, Private (the recipient's phone number)", Enc: encoding.ASCII, Pref: prefix.ASCII.LLL}),
		49: field.NewString(&field.Spec{Length: 3, Description: "Currency Code, Transaction", Enc: encoding.ASCII, Pref: prefix.ASCII.Fixed}),
		52: field.NewBinary(&field.Spec{Length: PINBlockSize, Description: "PIN Data (ISO 9564 format 4, AES)", Enc: encoding.BytesToASCIIHex, Pref: prefix.ASCII.Fixed}),
		53: field.NewString(&field.Spec{Length: maxKeyIDLen, Description: "Security Related Control Information (zone keys id)", Enc: encoding.ASCII, Pref: prefix.ASCII.LL}),
		// DE 64 and 128 are b 64: the leftmost 8 bytes of the AES-CMAC (mac.go), as 16 hex
		// characters like DE 52.
		64:  field.NewBinary(&field.Spec{Length: MACSize, Description: "Message Authentication Code (AES-CMAC)", Enc: encoding.BytesToASCIIHex, Pref: prefix.ASCII.Fixed}),
		70:  field.NewString(&field.Spec{Length: 3, Description: "Network Management Information Code", Enc: encoding.ASCII, Pref: prefix.ASCII.Fixed}),
		90:  field.NewString(&field.Spec{Length: originalLen, Description: "Original Data Elements", Enc: encoding.ASCII, Pref: prefix.ASCII.Fixed}),
		128: field.NewBinary(&field.Spec{Length: MACSize, Description: "Message Authentication Code (AES-CMAC, secondary bitmap)", Enc: encoding.BytesToASCIIHex, Pref: prefix.ASCII.Fixed}),
	},
}
