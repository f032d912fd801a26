package devatm

import (
	"fmt"
	"strconv"

	"github.com/thumela/thumela/services/cashout/atmnet"
)

// declines says, for each response code the gateway answers with (atmnet.Resp*), what an ATM
// shows the recipient. A test checks that every code atmnet defines has its sentence here.
var declines = map[string]string{
	atmnet.RespInvalidTransaction: "This voucher has already been collected.",
	atmnet.RespInvalidAmount:      "The amount must be the voucher's full amount.",
	atmnet.RespInvalidVoucher:     "This is not a valid voucher number.",
	atmnet.RespNoOriginal:         "The bank found no withdrawal matching this reversal; nothing was reversed.",
	atmnet.RespFormatError:        "The bank could not read this ATM's request.",
	atmnet.RespBankNotSupported:   "This bank's ATMs do not pay out Thumela vouchers.",
	atmnet.RespExpired:            "This voucher has expired.",
	atmnet.RespIncorrectPIN:       "Incorrect PIN, voucher number or phone number.",
	atmnet.RespNotPermitted:       "This voucher can only be collected at an ATM of the bank the sender chose.",
	atmnet.RespRestricted:         "The sender cancelled this voucher.",
	atmnet.RespSecurityViolation:  "The bank could not authenticate this ATM's request: the ATM and the bank do not share a MAC key, or this ATM's bank is not one its keys were issued for.",
	atmnet.RespPINTriesExceeded:   "Too many incorrect attempts: this voucher is locked for 24 hours.",
	atmnet.RespPINCryptoError:     "This ATM could not send the PIN securely: the ATM and the bank do not share a PIN key.",
	atmnet.RespIssuerUnavailable:  msgUnreachable,
	atmnet.RespDuplicate:          "This withdrawal was reversed. Start a new withdrawal.",
	atmnet.RespSystemMalfunction:  "Something went wrong at the bank. Try again later.",
}

// msgUnreachable is response code 91's sentence, and what the page says when it cannot reach
// the gateway at all: for the person at the ATM the two are the same.
const msgUnreachable = "The bank cannot be reached right now. Try again."

// declineText is the sentence for response code code; a code the page does not know is shown
// with atmnet's own description.
func declineText(code string) string {
	if s, ok := declines[code]; ok {
		return s
	}
	return atmnet.ResponseText(code) + "."
}

// randText formats cents as the product's messages show money: R1,234.00.
func randText(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	rands := strconv.FormatInt(cents/100, 10)
	for i := len(rands) - 3; i > 0; i -= 3 {
		rands = rands[:i] + "," + rands[i:]
	}
	return fmt.Sprintf("%sR%s.%02d", sign, rands, cents%100)
}
